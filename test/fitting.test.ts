import { describe, expect, it } from 'bun:test'
import { makeApp, NOW, readJson } from '../harness/app'

// Clubs that fit a student's week (docs/reference.md §24 "By time"): `meets_on=` and `free=` on the club
// list, and real iCalendar timetables POSTed to /api/clubs/fitting/, each result reasoned out by
// hand. The campus is New York; the directory's clock (harness NOW) reads Sunday 2026-11-22, so
// the four weeks checked are Sunday 22 November to Saturday 19 December, all on Eastern Standard
// Time (UTC-5).

type App = Awaited<ReturnType<typeof makeApp>>

/** Clubs and their meetings for these tests, set through the API (the seed's own are similar). */
const MEETINGS: Record<string, [string, string, string][]> = {
  'penn-chess-society': [
    ['tuesday', '19:00', '21:30'],
    ['saturday', '10:00', '12:00'],
  ],
  'jazz-ensemble': [['tuesday', '18:00', '20:00']],
  'robotics-collective': [['wednesday', '18:00', '21:00']],
  'ballroom-dance-team': [
    ['monday', '19:00', '21:00'],
    ['thursday', '19:00', '21:00'],
  ],
  'societe-francaise': [['thursday', '17:00', '18:30']],
  'astronomy-society': [['friday', '20:00', '23:00']],
  // A club that never meets fits nobody's week.
  'club-de-ajedrez': [],
}
const CODES = Object.keys(MEETINGS).join(',')

async function campus(now: () => Date = () => NOW): Promise<App> {
  const app = await makeApp({ config: { timezone: 'America/New_York' }, now })
  for (const [code, meetings] of Object.entries(MEETINGS)) {
    const res = await app.admin.patch(`/api/clubs/${code}/`, {
      meetings: meetings.map(([day, start, end]) => ({ day, start, end })),
    })
    expect(res.status).toBe(200)
  }
  return app
}

const CRLF = '\r\n'
/** A VCALENDAR around `parts` (components, each its lines). */
const calendar = (...parts: string[][]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test//Timetable//EN', ...parts.flat(), 'END:VCALENDAR', ''].join(CRLF)
const event = (uid: string, ...lines: string[]) => [
  'BEGIN:VEVENT',
  `UID:${uid}`,
  'DTSTAMP:20260901T000000Z',
  ...lines,
  'END:VEVENT',
]

const NEW_YORK = [
  'BEGIN:VTIMEZONE',
  'TZID:America/New_York',
  'BEGIN:DAYLIGHT',
  'TZOFFSETFROM:-0500',
  'TZOFFSETTO:-0400',
  'DTSTART:20070311T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU',
  'TZNAME:EDT',
  'END:DAYLIGHT',
  'BEGIN:STANDARD',
  'TZOFFSETFROM:-0400',
  'TZOFFSETTO:-0500',
  'DTSTART:20071104T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU',
  'TZNAME:EST',
  'END:STANDARD',
  'END:VTIMEZONE',
]
/** London's rules under the name Outlook gives them: only the VTIMEZONE can place its times. */
const LONDON_AS_OUTLOOK = [
  'BEGIN:VTIMEZONE',
  'TZID:GMT Standard Time',
  'BEGIN:DAYLIGHT',
  'TZOFFSETFROM:+0000',
  'TZOFFSETTO:+0100',
  'DTSTART:19810329T010000',
  'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
  'END:DAYLIGHT',
  'BEGIN:STANDARD',
  'TZOFFSETFROM:+0100',
  'TZOFFSETTO:+0000',
  'DTSTART:19961027T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
  'END:STANDARD',
  'END:VTIMEZONE',
]

async function fitting(app: App, body: string, query = `?code=${CODES}`, type = 'text/calendar') {
  return app.req(`/api/clubs/fitting/${query}`, { method: 'POST', headers: { 'content-type': type }, body })
}

/** Each fitting club's code with its fitting meetings, "tue 19:00-21:30". */
async function fits(res: Response): Promise<Record<string, string[]>> {
  expect(res.status).toBe(200)
  const clubs = (await readJson(res)) as {
    code: string
    fitting_meetings: { day: string; start: string; end: string }[]
  }[]
  return Object.fromEntries(
    clubs.map((club) => [club.code, club.fitting_meetings.map((m) => `${m.day.slice(0, 3)} ${m.start}-${m.end}`)]),
  )
}

const sorted = (record: Record<string, string[]>) => Object.fromEntries(Object.entries(record).sort())

describe('GET /api/clubs/ by time', () => {
  it('meets_on= keeps the clubs meeting on any of the days', async () => {
    const app = await campus()
    const res = await app.req(`/api/clubs/?code=${CODES}&meets_on=tue,Friday&ordering=code`)
    expect(res.status).toBe(200)
    expect((await readJson(res)).map((c: { code: string }) => c.code)).toEqual([
      'astronomy-society',
      'jazz-ensemble',
      'penn-chess-society',
    ])
  })

  it('free= keeps the clubs with a meeting wholly inside a free slot', async () => {
    const app = await campus()
    const codes = async (free: string, extra = '') => {
      const res = await app.req(`/api/clubs/?code=${CODES}&ordering=code&free=${encodeURIComponent(free)}${extra}`)
      expect(res.status).toBe(200)
      return (await readJson(res)).map((c: { code: string }) => c.code)
    }
    // Tuesday 18:00-21:30 holds the jazz (18-20) and chess (19-21:30) meetings; Wednesday 12-14 nothing.
    expect(await codes('tue 18:00-21:30,wed 12:00-14:00')).toEqual(['jazz-ensemble', 'penn-chess-society'])
    // A slot a minute short holds neither chess meeting (21:30 is past 21:29); jazz's still fits.
    expect(await codes('tue 18:00-21:29')).toEqual(['jazz-ensemble'])
    // Overlapping is not enough: ballroom's Monday 19-21 is not inside 20:00-23:00.
    expect(await codes('mon 20:00-23:00')).toEqual([])
    // Thursday evening: Société française (17-18:30) and ballroom (19-21); days in full or any case.
    expect(await codes('THURSDAY 17:00-24:00')).toEqual(['ballroom-dance-team', 'societe-francaise'])
    // With the other filters, an order and a page.
    expect(await codes('thu 17:00-24:00', '&search=dance')).toEqual(['ballroom-dance-team'])
    const paged = await app.req(
      `/api/clubs/?code=${CODES}&free=sat+09:00-13:00,fri+19:00-23:00&ordering=-name&page=1&page_size=1`,
    )
    expect(paged.headers.get('x-total-count')).toBe('2')
    expect((await readJson(paged)).results.map((c: { code: string }) => c.code)).toEqual(['penn-chess-society'])
  })

  it('a malformed meets_on or free is a 400 naming it', async () => {
    const app = await campus()
    for (const [query, param] of [
      ['meets_on=funday', 'meets_on'],
      ['meets_on=mon,,tue', 'meets_on'],
      ['free=mon', 'free'],
      ['free=mon 18:00', 'free'],
      ['free=mon 21:00-18:00', 'free'],
      ['free=mon 18:00-25:00', 'free'],
      ['free=someday 10:00-11:00', 'free'],
      [`free=${Array(51).fill('mon 10:00-11:00').join(',')}`, 'free'],
    ]) {
      const res = await app.req(`/api/clubs/?${query!.replace(/ /g, '+')}`)
      expect(res.status).toBe(400)
      const body = await readJson(res)
      expect(Object.keys(body)).toEqual([param])
      expect(body[param!][0]).toBeString()
    }
  })
})

describe('POST /api/clubs/fitting/', () => {
  it('weekly classes with RRULE, EXDATE and a moved occurrence', async () => {
    const app = await campus()
    const timetable = calendar(
      NEW_YORK,
      // Tuesdays and Thursdays 17:00-18:30: clashes with jazz (Tue 18-20) and Société française (Thu 17-18:30).
      event(
        'analysis',
        'DTSTART;TZID=America/New_York:20260901T170000',
        'DTEND;TZID=America/New_York:20260901T183000',
        'RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20261219T000000Z',
        'SUMMARY:Real analysis',
      ),
      // Friday lab 19:00-20:30, ending before 4 December; its one date in the weeks checked (27
      // November, Thanksgiving break) is excluded: astronomy (Fri 20-23) fits.
      event(
        'lab',
        'DTSTART;TZID=America/New_York:20260904T190000',
        'DTEND;TZID=America/New_York:20260904T203000',
        'RRULE:FREQ=WEEKLY;UNTIL=20261203T000000Z',
        'EXDATE;TZID=America/New_York:20261127T190000',
        'SUMMARY:Chemistry lab',
      ),
      // Wednesday mornings, but the one of 9 December moved to the evening: robotics (Wed 18-21) clashes that week.
      event(
        'seminar',
        'DTSTART;TZID=America/New_York:20260902T090000',
        'DTEND;TZID=America/New_York:20260902T100000',
        'RRULE:FREQ=WEEKLY',
        'SUMMARY:Seminar',
      ),
      event(
        'seminar',
        'RECURRENCE-ID;TZID=America/New_York:20261209T090000',
        'DTSTART;TZID=America/New_York:20261209T190000',
        'DTEND;TZID=America/New_York:20261209T200000',
        'SUMMARY:Seminar (evening this week)',
      ),
      // A cancelled and a transparent event keep their time free.
      event('off', 'DTSTART:20261123T000000Z', 'DTEND:20261124T000000Z', 'STATUS:CANCELLED'),
      event('free', 'DTSTART:20261124T000000Z', 'DTEND:20261125T000000Z', 'TRANSP:TRANSPARENT'),
    )
    expect(sorted(await fits(await fitting(app, timetable)))).toEqual({
      'astronomy-society': ['fri 20:00-23:00'],
      'ballroom-dance-team': ['mon 19:00-21:00', 'thu 19:00-21:00'],
      'penn-chess-society': ['tue 19:00-21:30', 'sat 10:00-12:00'],
    })
  })

  it('answers list items in the list order, narrowed by the list filters', async () => {
    const app = await campus()
    const res = await fitting(app, calendar(), `?code=${CODES}&ordering=name&search=dance`)
    expect(res.status).toBe(200)
    const clubs = await readJson(res)
    expect(clubs.map((c: { code: string }) => c.code)).toEqual(['ballroom-dance-team'])
    const list = await readJson(await app.req(`/api/clubs/?code=ballroom-dance-team`))
    expect(clubs[0]).toEqual({
      ...list[0],
      fitting_meetings: [
        { day: 'monday', start: '19:00', end: '21:00', location: '', note: '' },
        { day: 'thursday', start: '19:00', end: '21:00', location: '', note: '' },
      ],
    })
    // Paged as the list is: the same timetable POSTed to next and previous.
    const paged = await fitting(app, calendar(), `?code=${CODES}&ordering=code&page=2&page_size=2`)
    expect(paged.headers.get('x-total-count')).toBe('6')
    expect(paged.headers.get('link')).toContain('rel="next"')
    const page = await readJson(paged)
    expect([page.count, page.results.map((c: { code: string }) => c.code)]).toEqual([
      6,
      ['jazz-ensemble', 'penn-chess-society'],
    ])
    expect(new URL(page.next).searchParams.get('page')).toBe('3')
    expect(new URL(page.previous).pathname).toBe('/api/clubs/fitting/')
    expect((await fitting(app, calendar(), `?code=${CODES}&page=9`)).status).toBe(404)
    // Every club with meetings fits an empty timetable; a club that never meets fits none.
    const all = await fits(await fitting(app, calendar(), `?code=${CODES}&ordering=code`))
    expect(Object.keys(all)).toEqual([
      'astronomy-society',
      'ballroom-dance-team',
      'jazz-ensemble',
      'penn-chess-society',
      'robotics-collective',
      'societe-francaise',
    ])
  })

  it("places times in another zone by the file's VTIMEZONE, or by an IANA TZID it does not define", async () => {
    const app = await campus()
    const timetable = calendar(
      LONDON_AS_OUTLOOK,
      // Monday 23:30-01:30 in London is 18:30-20:30 in New York: ballroom's Monday clashes, its Thursday fits.
      event(
        'london',
        'DTSTART;TZID=GMT Standard Time:20261123T233000',
        'DTEND;TZID=GMT Standard Time:20261124T013000',
        'RRULE:FREQ=WEEKLY',
      ),
      // Saturday 11:00-12:00 in Tokyo is Friday 21:00-22:00 in New York: astronomy clashes, chess's Saturday does not.
      event(
        'tokyo',
        'DTSTART;TZID=Asia/Tokyo:20261121T110000',
        'DTEND;TZID=Asia/Tokyo:20261121T120000',
        'RRULE:FREQ=WEEKLY',
      ),
    )
    expect(sorted(await fits(await fitting(app, timetable)))).toEqual({
      'ballroom-dance-team': ['thu 19:00-21:00'],
      'jazz-ensemble': ['tue 18:00-20:00'],
      'penn-chess-society': ['tue 19:00-21:30', 'sat 10:00-12:00'],
      'robotics-collective': ['wed 18:00-21:00'],
      'societe-francaise': ['thu 17:00-18:30'],
    })
  })

  it('reads all-day and floating events on the campus clock', async () => {
    const app = await campus()
    const timetable = calendar(
      // All of Tuesday 1 December: both Tuesday meetings clash that week.
      event('exam-day', 'DTSTART;VALUE=DATE:20261201', 'SUMMARY:Exam day'),
      // Friday 4 December 20:00-21:00 on the campus clock (no zone): astronomy clashes.
      event('floating', 'DTSTART:20261204T200000', 'DTEND:20261204T210000'),
    )
    expect(sorted(await fits(await fitting(app, timetable)))).toEqual({
      'ballroom-dance-team': ['mon 19:00-21:00', 'thu 19:00-21:00'],
      'penn-chess-society': ['sat 10:00-12:00'],
      'robotics-collective': ['wed 18:00-21:00'],
      'societe-francaise': ['thu 17:00-18:30'],
    })
  })

  it('keeps wall-clock hours across a change of the clocks', async () => {
    // Monday 1 March 2027: the weeks checked hold 14 March, when New York moves to daylight time.
    const app = await campus(() => new Date('2027-03-01T17:00:00Z'))
    const timetable = calendar(
      NEW_YORK,
      // Tuesdays 18:00-19:00 New York time, every week: jazz moved to 17:00-18:00 fits every week.
      event(
        'evening',
        'DTSTART;TZID=America/New_York:20270105T180000',
        'DTEND;TZID=America/New_York:20270105T190000',
        'RRULE:FREQ=WEEKLY',
      ),
      // Wednesdays 23:00-00:00 UTC: 18:00 in New York until the change, 19:00 after: robotics (Wed 18-21) clashes.
      event('utc', 'DTSTART:20270106T230000Z', 'DTEND:20270107T000000Z', 'RRULE:FREQ=WEEKLY'),
    )
    expect(
      (
        await app.admin.patch('/api/clubs/jazz-ensemble/', {
          meetings: [{ day: 'tuesday', start: '17:00', end: '18:00' }],
        })
      ).status,
    ).toBe(200)
    // Hack club meets Wednesday 19:00-20:00: free of the UTC class before the change, not after it
    // (read at 18:00 every week, as a wall clock, the class would leave it free).
    expect(
      (
        await app.admin.patch('/api/clubs/hack-club/', {
          meetings: [{ day: 'wednesday', start: '19:00', end: '20:00' }],
        })
      ).status,
    ).toBe(200)
    const found = await fits(await fitting(app, timetable, `?code=${CODES},hack-club`))
    expect(found['jazz-ensemble']).toEqual(['tue 17:00-18:00'])
    expect(found['penn-chess-society']).toEqual(['tue 19:00-21:30', 'sat 10:00-12:00'])
    expect(found['robotics-collective']).toBeUndefined()
    expect(found['hack-club']).toBeUndefined()
  })

  it('refuses what is not a timetable: not iCalendar, too big, exploding, another type', async () => {
    const app = await campus()
    for (const body of ['hello, world', 'BEGIN:VCARD\r\nVERSION:4.0\r\nEND:VCARD\r\n', '']) {
      const res = await fitting(app, body)
      expect(res.status).toBe(400)
      expect((await readJson(res)).detail).toContain('not an iCalendar file')
    }
    const broken = await fitting(app, calendar(event('bad', 'DTSTART:tomorrow', 'RRULE:FREQ=WEEKLY')))
    expect(broken.status).toBe(400)
    expect((await readJson(broken)).detail).toBeString()

    const big = calendar(event('big', 'DTSTART:20261123T100000Z', `DESCRIPTION:${'x'.repeat(1024 * 1024)}`))
    const tooBig = await fitting(app, big)
    expect(tooBig.status).toBe(413)
    expect((await readJson(tooBig)).detail).toContain('1048576')

    // Every minute for a year: 40,320 occurrences in the four weeks.
    const exploding = await fitting(
      app,
      calendar(event('flood', 'DTSTART:20261120T000000Z', 'DURATION:PT1M', 'RRULE:FREQ=MINUTELY')),
    )
    expect(exploding.status).toBe(400)
    expect((await readJson(exploding)).detail).toContain('too many')
    // Every second since 1970: stopped long before reaching the weeks checked.
    const ancient = await fitting(app, calendar(event('ancient', 'DTSTART:19700101T000000Z', 'RRULE:FREQ=SECONDLY')))
    expect(ancient.status).toBe(400)

    const json = await fitting(app, '{}', `?code=${CODES}`, 'application/json')
    expect(json.status).toBe(415)
    expect((await app.req('/api/clubs/fitting/')).status).toBe(405)
  })

  it('is no club: the code "fitting" is reserved', async () => {
    const app = await campus()
    const res = await app.admin.post('/api/clubs/', { name: 'Fitting' })
    expect(res.status).toBe(201)
    expect((await readJson(res)).code).toBe('fitting-2')
  })
})

describe("the site's directory and timetable page", () => {
  const html = { accept: 'text/html' }
  const cardNames = (page: string) => [...page.matchAll(/<h3><a href="\/clubs\/([^"]+)">/g)].map((m) => m[1]).sort()

  it('takes meets_on= and free= in a link as the API does, and the form rows beside them', async () => {
    const app = await campus()
    const page = await (await app.req('/?meets_on=fri', { headers: html })).text()
    expect(cardNames(page)).toContain('astronomy-society')
    expect(cardNames(page)).not.toContain('penn-chess-society')
    const both = await app.req('/?free=tue+19:00-22:00&free_day_1=thu&free_from_1=17:00&free_to_1=18:30', {
      headers: html,
    })
    expect(cardNames(await both.text())).toEqual(['penn-chess-society', 'societe-francaise'])
    const wrong = await (await app.req('/?meets_on=someday', { headers: html })).text()
    expect(wrong).toContain('role="alert"')
    expect(wrong).toContain('&quot;someday&quot; is not a day')
  })

  it('shows the clubs that fit an uploaded timetable, and says what is wrong with a bad file', async () => {
    const app = await campus()
    const upload = (content: string | Uint8Array, headers: Record<string, string> = {}) => {
      const form = new FormData()
      form.append('timetable', new Blob([content as BlobPart], { type: 'text/calendar' }), 'timetable.ics')
      return app.req('/timetable', { method: 'POST', body: form, headers })
    }
    // Every day busy but Saturday (on the campus clock): the clubs meeting on Saturdays.
    const busy = calendar(
      event('weekdays', 'DTSTART:20261116T000000', 'DTEND:20261121T000000', 'RRULE:FREQ=WEEKLY'),
      event('sunday', 'DTSTART;VALUE=DATE:20261122', 'RRULE:FREQ=WEEKLY'),
    )
    const fit = await upload(busy)
    expect(fit.status).toBe(200)
    const page = await fit.text()
    expect(page).toContain('Clubs that fit your timetable')
    expect(cardNames(page).filter((code) => code! in MEETINGS)).toEqual(['penn-chess-society'])
    expect(page).toContain('Meetings that fit')

    const notCalendar = await upload('my classes: maths, art')
    expect(notCalendar.status).toBe(400)
    expect(await notCalendar.text()).toContain('This is not an iCalendar file')
    const tooBig = await upload(new Uint8Array(1024 * 1024 + 300 * 1024))
    expect(tooBig.status).toBe(413)
    expect(await tooBig.text()).toContain('That file is too big')
    expect((await upload(busy, { origin: 'https://evil.example' })).status).toBe(403)
  })
})
