import { describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import ICAL from 'ical.js'
import { ADMIN_TOKEN, makeApp, readJson, tempDir, type TestConfig } from '../harness/app'
import { sha256 } from '../src/domain/user-directory'
import { users } from '../harness/users'

// Meetings as calendars (docs/reference.md §21), read as a calendar app reads them: every feed parsed by
// ical.js (Mozilla's iCalendar library), its events, weekly rules and times checked in UTC, so
// a wrong VTIMEZONE shows as a wrong hour. The seed's Penn Chess Society was made on
// 2024-02-07 (a Wednesday).

type App = Awaited<ReturnType<typeof makeApp>>

const CHESS = 'penn-chess-society'
const CHESS_URL = `/api/clubs/${CHESS}/`
const CHESS_CALENDAR = `${CHESS_URL}calendar.ics`
const TUESDAY = { day: 'tuesday', start: '18:00', end: '20:00', location: 'Houston Hall 202', note: '' }
const SATURDAY = { day: 'saturday', start: '09:30', end: '11:00', location: '', note: 'Blitz' }

/** The feed's text parsed by ical.js, its time zones registered as a calendar app would. */
function parse(text: string) {
  const calendar = new ICAL.Component(ICAL.parse(text))
  for (const zone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone)
  const events = calendar.getAllSubcomponents('vevent').map((vevent) => new ICAL.Event(vevent))
  return { calendar, events }
}

/** The UTC instants of an event's first `count` occurrences. */
function occurrences(event: ICAL.Event, count: number): string[] {
  const iterator = event.iterator()
  const out: string[] = []
  for (let next = iterator.next(); next && out.length < count; next = iterator.next())
    out.push(next.toJSDate().toISOString())
  return out
}

async function calendarOf(app: App, path: string, init: { token?: string | null } = {}) {
  const res = await app.req(path, init)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe('text/calendar; charset=utf-8')
  return { res, text: await res.text() }
}

async function appWith(config: TestConfig = {}) {
  const app = await makeApp({ config })
  expect((await app.admin.patch(CHESS_URL, { meetings: [TUESDAY, SATURDAY] })).status).toBe(200)
  return app
}

describe("a club's calendar", () => {
  it('holds a weekly event per meeting: summary, location, description with the club page, times in the zone', async () => {
    const app = await appWith({ timezone: 'America/New_York' })
    const { text } = await calendarOf(app, CHESS_CALENDAR)
    const { calendar, events } = parse(text)
    expect(calendar.getFirstPropertyValue('version')).toBe('2.0')
    expect(calendar.getFirstSubcomponent('vtimezone')!.getFirstPropertyValue('tzid')).toBe('America/New_York')
    expect(events.map((event): unknown[] => [event.summary, event.location, event.description])).toEqual([
      ['Penn Chess Society', 'Houston Hall 202', 'http://localhost/clubs/penn-chess-society'],
      // No LOCATION at all for a meeting without one.
      ['Penn Chess Society', null, 'Blitz\n\nhttp://localhost/clubs/penn-chess-society'],
    ])
    const [tuesday, saturday] = events
    // The first Tuesday and Saturday at or after the club was made, on the wall clock of New York.
    expect(tuesday!.startDate.toString()).toBe('2024-02-13T18:00:00')
    expect(tuesday!.endDate.toString()).toBe('2024-02-13T20:00:00')
    expect(tuesday!.startDate.zone!.tzid).toBe('America/New_York')
    expect(saturday!.startDate.toString()).toBe('2024-02-10T09:30:00')
    for (const event of events) {
      const rule = event.component.getFirstPropertyValue('rrule') as ICAL.Recur
      expect(rule.freq).toBe('WEEKLY')
    }
    expect(String(tuesday!.component.getFirstPropertyValue('rrule'))).toBe('FREQ=WEEKLY;BYDAY=TU')
    expect(String(saturday!.component.getFirstPropertyValue('rrule'))).toBe('FREQ=WEEKLY;BYDAY=SA')
    // Every week, at 18:00 in New York: 23:00 UTC in winter, 22:00 UTC in summer time.
    const weeks = occurrences(tuesday!, 150)
    expect(weeks[0]).toBe('2024-02-13T23:00:00.000Z')
    expect(weeks[1]).toBe('2024-02-20T23:00:00.000Z')
    expect(weeks).toContain('2026-07-07T22:00:00.000Z')
    expect(weeks).toContain('2026-12-01T23:00:00.000Z')
    expect(weeks).toContain('2026-03-03T23:00:00.000Z')
    expect(weeks).toContain('2026-03-10T22:00:00.000Z')
  })

  it('is named and says how often to read it again (RFC 7986 NAME and REFRESH-INTERVAL, docs/reference.md §24)', async () => {
    const app = await appWith()
    const named = async (path: string) => {
      const { calendar } = parse((await calendarOf(app, path)).text)
      const refresh = calendar.getFirstProperty('refresh-interval')!
      return {
        name: calendar.getFirstPropertyValue('name'),
        calname: calendar.getFirstPropertyValue('x-wr-calname'),
        refresh: String(refresh.getFirstValue()),
        type: refresh.type,
        seconds: (refresh.getFirstValue() as ICAL.Duration).toSeconds(),
      }
    }
    const club = { name: 'Penn Chess Society: meetings', calname: 'Penn Chess Society: meetings' }
    expect(await named(CHESS_CALENDAR)).toEqual({ ...club, refresh: 'PT12H', type: 'duration', seconds: 43_200 })
    const directory = await named('/api/calendar.ics')
    expect([directory.name, directory.calname, directory.seconds]).toEqual(['Club meetings', 'Club meetings', 43_200])
  })

  it('follows a southern time zone too, and UTC by default', async () => {
    const sydney = await appWith({ timezone: 'Australia/Sydney' })
    const [tuesday] = parse((await calendarOf(sydney, CHESS_CALENDAR)).text).events
    const weeks = occurrences(tuesday!, 150)
    // 18:00 in Sydney: 07:00 UTC in its summer (January), 08:00 UTC in its winter (July).
    expect(weeks).toContain('2026-01-06T07:00:00.000Z')
    expect(weeks).toContain('2026-07-07T08:00:00.000Z')

    const utc = await appWith()
    const { events, calendar } = parse((await calendarOf(utc, CHESS_CALENDAR)).text)
    expect(calendar.getFirstSubcomponent('vtimezone')!.getFirstPropertyValue('tzid')).toBe('UTC')
    expect(occurrences(events[0]!, 1)).toEqual(['2024-02-13T18:00:00.000Z'])
  })

  it('keeps UIDs stable: the same text on every request, an edited meeting a new UID, the others kept', async () => {
    const app = await appWith()
    const first = (await calendarOf(app, CHESS_CALENDAR)).text
    expect((await calendarOf(app, CHESS_CALENDAR)).text).toBe(first)
    const uids = parse(first).events.map((event) => event.uid)
    expect(new Set(uids).size).toBe(2)
    for (const uid of uids) expect(uid).toMatch(/^penn-chess-society-[0-9a-f]+@localhost$/)
    await app.admin.patch(CHESS_URL, { meetings: [TUESDAY, { ...SATURDAY, start: '10:00' }] })
    const after = parse((await calendarOf(app, CHESS_CALENDAR)).text).events.map((event) => event.uid)
    expect(after[0]).toBe(uids[0]!)
    expect(after[1]).not.toBe(uids[1]!)
  })

  it('escapes ; , \\ and line breaks, which a calendar app reads back as sent', async () => {
    const app = await makeApp()
    const name = 'Chess; Go, and C:\\Games'
    const note = 'Line one;\nline two, with a comma\r\nand \\ a backslash'
    const location = 'Hall 2; room 3, upstairs'
    await app.admin.patch(CHESS_URL, { name, meetings: [{ ...TUESDAY, location, note }] })
    const { text } = await calendarOf(app, CHESS_CALENDAR)
    expect(text).toContain('SUMMARY:Chess\\; Go\\, and C:\\\\Games\r\n')
    expect(text).toContain('LOCATION:Hall 2\\; room 3\\, upstairs\r\n')
    const [event] = parse(text).events
    expect(event!.summary).toBe(name)
    expect(event!.location).toBe(location)
    expect(event!.description).toBe(`${note.replace('\r\n', '\n')}\n\nhttp://localhost/clubs/${CHESS}`)
  })

  it('folds long lines at 75 octets with CRLF, never inside a character, and unfolds to the text sent', async () => {
    const app = await makeApp()
    const name = `Société ${'日本語のクラブ'.repeat(8)} 🎲🎲🎲`
    const note = `${'Ça va? '.repeat(30)}${'é'.repeat(101)}`
    await app.admin.patch(CHESS_URL, { name, meetings: [{ ...TUESDAY, note }] })
    const res = await app.req(CHESS_CALENDAR)
    const bytes = new Uint8Array(await res.arrayBuffer())
    const text = new TextDecoder().decode(bytes)
    expect(text.endsWith('\r\n')).toBe(true)
    expect(text.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/)
    const strict = new TextDecoder('utf-8', { fatal: true })
    let start = 0
    const lines: string[] = []
    for (let i = 0; i < bytes.length - 1; i++) {
      if (bytes[i] !== 13 || bytes[i + 1] !== 10) continue
      const line = bytes.subarray(start, i)
      expect(line.length).toBeLessThanOrEqual(75)
      // A line cut inside a character would not decode on its own.
      lines.push(strict.decode(line))
      start = i + 2
    }
    expect(lines.filter((line) => line.startsWith(' ')).length).toBeGreaterThan(5)
    const [event] = parse(text).events
    expect(event!.summary).toBe(name)
    expect(event!.description).toBe(`${note}\n\nhttp://localhost/clubs/${CHESS}`)
  })

  it('answers its ETag, 304 to If-None-Match with it, and a new one once the meetings change', async () => {
    const app = await appWith()
    const { res } = await calendarOf(app, CHESS_CALENDAR)
    const etag = res.headers.get('etag')!
    expect(etag).toBeTruthy()
    const again = await app.req(CHESS_CALENDAR, { headers: { 'if-none-match': etag } })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
    await app.admin.patch(CHESS_URL, { meetings: [TUESDAY] })
    const changed = await app.req(CHESS_CALENDAR, { headers: { 'if-none-match': etag } })
    expect(changed.status).toBe(200)
    expect(changed.headers.get('etag')).not.toBe(etag)
    expect(parse(await changed.text()).events.length).toBe(1)
  })

  it('is a 404 for a club the caller may not see, an unknown club and a ?format=; its owner sees a pending club', async () => {
    const app = await makeApp()
    const { olga: token } = await users(app, 'olga')
    const made = await app.req('/api/clubs/', {
      method: 'POST',
      token,
      json: { name: 'Hidden Club', meetings: [TUESDAY] },
    })
    expect(made.status).toBe(201)
    const hidden = '/api/clubs/hidden-club/calendar.ics'
    expect((await app.req(hidden)).status).toBe(404)
    expect(await readJson(await app.req(hidden))).toEqual({ detail: 'Not found.' })
    expect(parse((await calendarOf(app, hidden, { token })).text).events.map((e) => e.summary)).toEqual(['Hidden Club'])
    expect((await app.req('/api/clubs/no-such-club/calendar.ics')).status).toBe(404)
    expect((await app.req(`${CHESS_CALENDAR}?format=api`)).status).toBe(404)
    // A browser asking for HTML still gets the calendar to download.
    await calendarOf(app, CHESS_CALENDAR)
    const browser = await app.req(CHESS_CALENDAR, { headers: { accept: 'text/html' } })
    expect(browser.headers.get('content-type')).toBe('text/calendar; charset=utf-8')
  })
})

/** The wall-clock time in `zone` at the instant `at`, as milliseconds read as if UTC, from Intl's own data. */
function wallClockAt(zone: string, at: number): number {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    ...{ year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' },
  })
  const part = Object.fromEntries(format.formatToParts(at).map(({ type, value }) => [type, Number(value)]))
  return Date.UTC(part.year!, part.month! - 1, part.day!, part.hour!, part.minute!)
}

/** The instant at which the wall clock of `zone` shows `wall` (a time no change of offset skips). */
function instantOf(zone: string, wall: number): number {
  let at = wall
  for (let i = 0; i < 4; i++) at += wall - wallClockAt(zone, at)
  expect(wallClockAt(zone, at)).toBe(wall)
  return at
}

// Issue 35: the VTIMEZONE took the last year's changes as yearly rules and a calendar app applied
// them to every later year: Casablanca's changes follow Ramadan, and 87 of these meetings of
// 2026-2032 came an hour off. Each zone's changes are now written out as they are, years ahead.
describe('the time zone of a feed: every weekly meeting of 2026-2032 at the instant the zone says', () => {
  const zones = [
    'Africa/Casablanca', // daylight time off for Ramadan, a month that moves
    'America/New_York',
    'Europe/London',
    'Australia/Lord_Howe', // half an hour of daylight saving
    'Asia/Kolkata', // none
    'America/Sao_Paulo', // none since 2019
    'Pacific/Apia', // none since 2021
  ]
  for (const zone of zones)
    it(zone, async () => {
      const app = await appWith({ timezone: zone })
      const wrong: string[] = []
      let meetings = 0
      for (const event of parse((await calendarOf(app, CHESS_CALENDAR)).text).events) {
        const iterator = event.iterator()
        for (let next = iterator.next(); next && next.year <= 2032; next = iterator.next()) {
          if (next.year < 2026) continue
          meetings++
          const wall = Date.UTC(next.year, next.month - 1, next.day, next.hour, next.minute)
          const expected = new Date(instantOf(zone, wall)).toISOString()
          const shown = next.toJSDate().toISOString()
          if (shown !== expected) wrong.push(`${next.toString()}: ${shown}, not ${expected}`)
        }
      }
      expect(meetings).toBeGreaterThan(2 * 7 * 52)
      expect(wrong).toEqual([])
    })
})

describe("the directory's calendar", () => {
  it('holds every public club with meetings, by code; tags= and code= narrow it; pending clubs stay out', async () => {
    const app = await appWith()
    await app.admin.patch('/api/clubs/robotics-collective/', { meetings: [SATURDAY] })
    const { olga: token } = await users(app, 'olga')
    await app.req('/api/clubs/', { method: 'POST', token, json: { name: 'Hidden Club', meetings: [TUESDAY] } })
    const summaries = async (path: string, token?: string) =>
      parse((await calendarOf(app, path, { token })).text).events.map((event) => event.summary)
    // One event a meeting, of each public club with meetings (the sample's own among them).
    const listed = await readJson(await app.req('/api/clubs/?fields=name,meetings'))
    const expected = listed.flatMap((club: { name: string; meetings: unknown[] }) => club.meetings.map(() => club.name))
    const all = await summaries('/api/calendar.ics')
    expect([...all].sort()).toEqual([...expected].sort())
    expect(all.filter((name) => name === 'Penn Chess Society')).toHaveLength(2)
    expect(all.filter((name) => name === 'Robotics Collective')).toHaveLength(1)
    // Credentials change nothing: the calendar is the public directory's.
    expect(await summaries('/api/calendar.ics', token)).toEqual(await summaries('/api/calendar.ics'))
    expect(await summaries('/api/calendar.ics?code=robotics-collective,hidden-club')).toEqual(['Robotics Collective'])
    const chess = await readJson(await app.req(CHESS_URL))
    const tag = chess.tags[0].name as string
    expect(await summaries(`/api/calendar.ics?tags=${encodeURIComponent(tag)}`)).toContain('Penn Chess Society')
    expect(await summaries('/api/calendar.ics?tags=No%20Such%20Tag')).toEqual([])
    const { res } = await calendarOf(app, '/api/calendar.ics')
    expect(
      (await app.req('/api/calendar.ics', { headers: { 'if-none-match': res.headers.get('etag')! } })).status,
    ).toBe(304)
  })
})

describe("a user's calendar at a secret address", () => {
  async function withAlice(dataFile?: string) {
    const app = await makeApp({ dataFile })
    await app.admin.patch(CHESS_URL, { meetings: [TUESDAY] })
    await app.admin.patch('/api/clubs/robotics-collective/', { meetings: [SATURDAY] })
    const { alice: token } = await users(app, 'alice')
    await app.req('/api/favorites/', { method: 'POST', token, json: { club: CHESS } })
    return { app, token }
  }
  const pathOf = (url: string) => new URL(url).pathname

  it("serves the meetings of the user's favorite clubs without credentials, at an address shown on every GET", async () => {
    const { app, token } = await withAlice()
    expect((await app.req('/api/users/me/calendar-url/')).status).toBe(401)
    const res = await app.req('/api/users/me/calendar-url/', { token })
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const { url } = await readJson(res)
    expect(url).toMatch(/^http:\/\/localhost\/api\/calendars\/[A-Za-z0-9_-]{43}\/meetings\.ics$/)
    // Derived again from the service's key and the nonce the data file keeps: the same address.
    expect(await readJson(await app.req('/api/users/me/calendar-url/', { token }))).toEqual({ url })
    const { events } = parse((await calendarOf(app, pathOf(url))).text)
    expect(events.map((event) => event.summary)).toEqual(['Penn Chess Society'])
    await app.req('/api/favorites/', { method: 'POST', token, json: { club: 'robotics-collective' } })
    const both = parse((await calendarOf(app, pathOf(url))).text).events.map((event) => event.summary)
    expect(both).toEqual(['Penn Chess Society', 'Robotics Collective'])
  })

  it('is replaced by POST: the old address is a 404 at once, the new one works', async () => {
    const { app, token } = await withAlice()
    const old = pathOf((await readJson(await app.req('/api/users/me/calendar-url/', { token }))).url)
    await calendarOf(app, old)
    const res = await app.req('/api/users/me/calendar-url/', { method: 'POST', token })
    expect(res.status).toBe(201)
    const fresh = pathOf((await readJson(res)).url)
    expect(fresh).not.toBe(old)
    expect((await app.req(old)).status).toBe(404)
    expect(await readJson(await app.req(old))).toEqual({ detail: 'Not found.' })
    expect(parse((await calendarOf(app, fresh)).text).events.length).toBe(1)
    expect((await app.req('/api/calendars/not-a-token/meetings.ics')).status).toBe(404)
  })

  it('is a 404 while its user is disabled, and works again once they are enabled', async () => {
    const { app, token } = await withAlice()
    const path = pathOf((await readJson(await app.req('/api/users/me/calendar-url/', { token }))).url)
    await calendarOf(app, path)
    expect((await app.admin.patch('/api/users/alice/', { is_active: false })).status).toBe(200)
    expect((await app.req(path)).status).toBe(404)
    expect((await app.req('/api/users/me/calendar-url/', { token })).status).toBe(403)
    expect((await app.admin.patch('/api/users/alice/', { is_active: true })).status).toBe(200)
    await calendarOf(app, path)
  })

  it('keeps only the SHA-256 of the token in the data file; the address survives a restart, and a lost key makes a new one', async () => {
    const dir = tempDir('clubs-calendars-')
    const file = join(dir, 'db.json')
    const { app, token } = await withAlice(file)
    const url = (await readJson(await app.req('/api/users/me/calendar-url/', { token }))).url as string
    const secret = url.split('/').at(-2)!
    // The data file at rest: its snapshot and its journal.
    const saved = readFileSync(file, 'utf8') + readFileSync(`${file}.journal`, 'utf8')
    expect(saved).not.toContain(secret)
    expect(saved).toContain(sha256(secret))
    const restarted = await makeApp({ dataFile: file })
    expect(parse((await calendarOf(restarted, pathOf(url))).text).events.length).toBe(1)
    expect((await readJson(await restarted.req('/api/users/me/calendar-url/', { token }))).url).toBe(url)
    // The key file lost: the address cannot be derived again, so GET makes a new one and the old one goes.
    const rekeyed = await makeApp({ dataFile: file, key: new Uint8Array(32).fill(7) })
    const fresh = (await readJson(await rekeyed.req('/api/users/me/calendar-url/', { token }))).url as string
    expect(fresh).not.toBe(url)
    expect((await rekeyed.req(pathOf(url))).status).toBe(404)
    expect(parse((await calendarOf(rekeyed, pathOf(fresh))).text).events.length).toBe(1)
  })

  it('gives the bootstrap admin an address too', async () => {
    const app = await makeApp()
    await app.admin.post('/api/favorites/', { club: CHESS })
    const { url } = await readJson(await app.req('/api/users/me/calendar-url/', { token: ADMIN_TOKEN }))
    await calendarOf(app, pathOf(url))
    expect((await app.admin.get('/api/users/')).status).toBe(200)
  })
})
