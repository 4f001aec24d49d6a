import { describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { ADMIN_TOKEN, makeApp, NOW, ON_POSTGRES, readJson, tempDir, testDatabase } from '../harness/app'
import { FORM, ORIGIN } from '../harness/site-session'
import { directoryOnDisk } from '../harness/on-disk'
import { blockWrites } from '../harness/write-fault'
import { users } from '../harness/users'

// Students interested in a club without an account (docs/reference.md §23): entries made with the club
// page's form, read by the club's owners, officers and admins at GET /api/clubs/{code}/interested/
// (JSON, newest first, or CSV) and deleted one by one; refused entries leave nothing; the same
// address keeps one entry; entries a year old are removed by a sweep at the start (and hourly).

type Json = Record<string, any>
const CODE = 'penn-chess-society'
const URL_OF = (code = CODE) => `/api/clubs/${code}/interested/`
const DAY_MS = 24 * 60 * 60 * 1000
const NO_PERMISSION = { detail: 'You do not have permission to perform this action.' }

/** A clock the test moves. */
function clock(start = NOW) {
  let now = start
  return {
    now: () => now,
    set: (at: Date) => void (now = at),
    add: (ms: number) => void (now = new Date(now.getTime() + ms)),
  }
}

/**
 * An app where "olive" is an officer of the club, "mia" a member and "zed" has no part in it;
 * `interest` sends the club page's form as an anonymous reader's browser does.
 */
async function world(options: Parameters<typeof makeApp>[0] = {}) {
  const app = await makeApp(options)
  const tokens: Record<string, string | null> = { anonymous: null, admin: ADMIN_TOKEN }
  for (const [username, role] of [
    ['olive', 'officer'],
    ['mia', 'member'],
    ['zed', null],
  ] as const) {
    tokens[username] = (await users(app, username))[username]
    if (role) expect((await app.admin.post(`/api/clubs/${CODE}/members/`, { username, role })).status).toBe(201)
  }
  const as =
    (who: string) =>
    (path: string, init: RequestInit = {}) =>
      app.req(path, { ...init, token: tokens[who] })
  const interest = (fields: Record<string, string>, code = CODE) =>
    app.req(`/clubs/${code}/interest`, {
      method: 'POST',
      headers: { 'content-type': FORM, origin: ORIGIN },
      body: new URLSearchParams(fields),
    })
  const entries = async (code = CODE): Promise<Json[]> => readJson(await app.req(URL_OF(code), { token: ADMIN_TOKEN }))
  return { ...app, tokens, as, interest, entries }
}

const ADA = { name: 'Ada Lovelace', email: 'ada@campus.example.edu', consent: 'true' }

describe('GET /api/clubs/{code}/interested/', () => {
  it('lists the entries newest first, with id, name, email and created_at, to owners, officers and admins', async () => {
    const time = clock()
    const w = await world({ now: time.now })
    expect(await w.entries()).toEqual([])
    expect((await w.interest(ADA)).status).toBe(303)
    time.add(60_000)
    expect(
      (await w.interest({ name: '  Grace Hopper ', email: 'grace@navy.example.mil', consent: 'true' })).status,
    ).toBe(303)

    const listed = await w.entries()
    expect(listed).toEqual([
      {
        id: expect.any(String),
        name: 'Grace Hopper',
        email: 'grace@navy.example.mil',
        created_at: '2026-11-22T12:01:00.000Z',
      },
      { id: expect.any(String), name: 'Ada Lovelace', email: 'ada@campus.example.edu', created_at: NOW.toISOString() },
    ])
    expect(listed[0].id).not.toBe(listed[1].id)
    for (const who of ['olive', 'admin']) expect(await readJson(await w.as(who)(URL_OF()))).toEqual(listed)
  })

  it('is a 401 without a token, a 403 for a member or a stranger, a 404 for a club that does not exist', async () => {
    const w = await world()
    await w.interest(ADA)
    const anonymous = await w.as('anonymous')(URL_OF())
    expect(anonymous.status).toBe(401)
    expect(await readJson(anonymous)).toEqual({ detail: 'Authentication credentials were not provided.' })
    for (const who of ['mia', 'zed']) {
      const res = await w.as(who)(URL_OF())
      expect([res.status, await readJson(res)]).toEqual([403, NO_PERMISSION])
    }
    const missing = await w.as('admin')(URL_OF('no-such-club'))
    expect([missing.status, await readJson(missing)]).toEqual([404, { detail: 'Not found.' }])
  })

  it('gives the same entries as a CSV file with ?format=csv, formulas defused', async () => {
    const time = clock()
    const w = await world({ now: time.now })
    await w.interest(ADA)
    time.add(1000)
    await w.interest({ name: '=HYPERLINK("http://evil.example")', email: 'eve@example.org', consent: 'true' })
    const res = await w.as('olive')(`${URL_OF()}?format=csv`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${CODE}-interested.csv"`)
    const rows = parse(await res.text()) as string[][]
    const ids = (await w.entries()).map((entry) => entry.id)
    expect(rows).toEqual([
      ['id', 'name', 'email', 'created_at'],
      [ids[0]!, `'=HYPERLINK("http://evil.example")`, 'eve@example.org', '2026-11-22T12:00:01.000Z'],
      [ids[1]!, 'Ada Lovelace', 'ada@campus.example.edu', NOW.toISOString()],
    ])
    expect((await w.as('mia')(`${URL_OF()}?format=csv`)).status).toBe(403)
  })
})

describe('DELETE /api/clubs/{code}/interested/{id}/', () => {
  it('deletes one entry (204), then it is a 404; members, strangers and the anonymous are refused and nothing goes', async () => {
    const w = await world()
    await w.interest(ADA)
    await w.interest({ name: 'Grace', email: 'grace@example.org', consent: 'true' })
    const [first, second] = await w.entries()
    for (const [who, status] of [
      ['anonymous', 401],
      ['mia', 403],
      ['zed', 403],
    ] as const)
      expect((await w.as(who)(`${URL_OF()}${first!.id}/`, { method: 'DELETE' })).status).toBe(status)
    expect(await w.entries()).toHaveLength(2)

    const res = await w.as('olive')(`${URL_OF()}${first!.id}/`, { method: 'DELETE' })
    expect(res.status).toBe(204)
    expect(await res.text()).toBe('')
    expect(await w.entries()).toEqual([second!])
    const again = await w.as('olive')(`${URL_OF()}${first!.id}/`, { method: 'DELETE' })
    expect([again.status, await readJson(again)]).toEqual([404, { detail: 'Not found.' }])
  })

  it("is a 404 for another club's entry, and for an id that names none", async () => {
    const w = await world()
    await w.interest(ADA, 'robotics-collective')
    const [theirs] = await w.entries('robotics-collective')
    expect((await w.as('olive')(`${URL_OF()}${theirs!.id}/`, { method: 'DELETE' })).status).toBe(404)
    expect((await w.as('admin')(`${URL_OF()}${theirs!.id}/`, { method: 'DELETE' })).status).toBe(404)
    expect((await w.as('admin')(`${URL_OF()}not-an-id/`, { method: 'DELETE' })).status).toBe(404)
    expect(await w.entries('robotics-collective')).toEqual([theirs!])
  })
})

describe('making an entry', () => {
  it('keeps one entry per address and club: the same address again updates its name and time', async () => {
    const time = clock()
    const w = await world({ now: time.now })
    await w.interest(ADA)
    const [before] = await w.entries()
    time.add(DAY_MS)
    await w.interest({ name: 'Ada King', email: 'ADA@campus.example.edu', consent: 'true' })
    expect(await w.entries()).toEqual([
      { id: before!.id, name: 'Ada King', email: 'ADA@campus.example.edu', created_at: '2026-11-23T12:00:00.000Z' },
    ])
    // Another club keeps its own entry for the same address.
    await w.interest(ADA, 'robotics-collective')
    expect(await w.entries('robotics-collective')).toHaveLength(1)
    expect(await w.entries()).toHaveLength(1)
  })

  it('refuses a form without consent, a bad address or name, and keeps nothing', async () => {
    const time = clock()
    const w = await world({ now: time.now })
    const refused: Record<string, string>[] = [
      { ...ADA, consent: '' },
      { name: ADA.name, email: ADA.email },
      { ...ADA, email: 'ada' },
      { ...ADA, email: 'ada@campus' },
      { ...ADA, email: 'ada@@campus.example.edu' },
      { ...ADA, email: 'ada lovelace@campus.example.edu' },
      { ...ADA, email: 'ada\u0007@campus.example.edu' },
      { ...ADA, email: `${'a'.repeat(250)}@x.io` },
      { ...ADA, name: '   ' },
      { ...ADA, name: 'x'.repeat(101) },
      { ...ADA, name: 'Ada\nLovelace' },
    ]
    // Each a minute apart: ten tries a minute from one address.
    for (const fields of refused) {
      expect((await w.interest(fields)).status).toBe(400)
      time.add(60_000)
    }
    expect(await w.entries()).toEqual([])
    // The longest name and address taken.
    const longest = { name: 'x'.repeat(100), email: `${'a'.repeat(243)}@example.io`, consent: 'true' }
    expect(longest.email).toHaveLength(254)
    expect((await w.interest(longest)).status).toBe(303)
    expect((await w.entries()).map((entry) => [entry.name, entry.email])).toEqual([[longest.name, longest.email]])
  })

  it('refuses a club that does not accept members, one the public cannot see, and one that does not exist', async () => {
    const w = await world()
    expect((await w.admin.patch(`/api/clubs/${CODE}/`, { accepting_members: false })).status).toBe(200)
    const closed = await w.interest(ADA)
    expect(closed.status).toBe(400)
    expect(await closed.text()).toContain('This club is not taking new members')
    expect(await w.entries()).toEqual([])

    const pending = await readJson(
      await w.req('/api/clubs/', {
        method: 'POST',
        token: w.tokens.zed,
        json: { name: 'Pending Club', accepting_members: true },
      }),
    )
    for (const code of [pending.code, 'no-such-club']) expect((await w.interest(ADA, code)).status).toBe(404)
    expect(pending.accepting_members).toBe(true)
    expect(await w.entries(pending.code)).toEqual([])
  })
})

describe('entries a year old', () => {
  it('are no longer listed, and the sweep at the start removes them all in one write', async () => {
    const time = clock()
    const dir = ON_POSTGRES ? null : tempDir()
    const databaseUrl = ON_POSTGRES ? await testDatabase() : undefined
    const dataFile = dir ? join(dir, 'db.json') : undefined
    const open = (now: () => Date) => world({ dataFile, databaseUrl, now })
    const first = await open(time.now)
    await first.interest(ADA)
    await first.interest(ADA, 'robotics-collective')
    time.add(200 * DAY_MS)
    await first.interest({ name: 'Grace', email: 'grace@example.org', consent: 'true' })
    const year = 365 * DAY_MS

    // A year to the minute after the first two, they are listed still; a minute more, and not any more, even before a sweep.
    time.set(new Date(NOW.getTime() + year))
    expect(await first.entries('robotics-collective')).toHaveLength(1)
    time.add(60_000)
    expect((await first.entries()).map((entry) => entry.name)).toEqual(['Grace'])
    expect(await first.entries('robotics-collective')).toEqual([])
    if (databaseUrl) await first.store.close()

    // A start then sweeps them away (the users it made are there already: a restart, not a new world).
    const late = await makeApp({ dataFile, databaseUrl, now: time.now })
    if (databaseUrl) await late.store.close()
    if (dataFile) {
      await makeApp({ dataFile, now: time.now })
      const stored = directoryOnDisk(dataFile)
      expect(stored.interests.map((entry: Json) => entry.name)).toEqual(['Grace'])
    }
    // Seen at the time they were made, they are gone: removed, not hidden.
    const early = await makeApp({ dataFile, databaseUrl, now: () => NOW })
    const seen = async (code: string) =>
      (await readJson(await early.req(URL_OF(code), { token: ADMIN_TOKEN }))).map((entry: Json) => entry.name)
    expect(await seen(CODE)).toEqual(['Grace'])
    expect(await seen('robotics-collective')).toEqual([])
    if (databaseUrl) await early.store.close()
  })
})

describe('the entries of a club deleted from the directory', () => {
  it('are removed by the next sweep', async () => {
    const dataFile = join(tempDir(), 'db.json')
    const w = await world({ dataFile })
    await w.interest(ADA, 'robotics-collective')
    await w.interest(ADA)
    expect((await w.admin.delete('/api/clubs/robotics-collective/')).status).toBe(204)
    expect((await w.as('admin')(URL_OF('robotics-collective'))).status).toBe(404)
    // A restart sweeps; a second one lets the first finish writing.
    await makeApp({ dataFile })
    await makeApp({ dataFile })
    const stored = directoryOnDisk(dataFile)
    expect(stored.interests.map((entry: Json) => entry.club)).toEqual([CODE])
  })
})

describe('entries in the data file', () => {
  it('hold what each write leaves: made, made again under a new name, deleted; a delete the disk refused leaves the entry there, the one that lands removes it', async () => {
    const dataFile = join(tempDir(), 'db.json')
    const w = await world({ dataFile })
    const onDisk = () => (directoryOnDisk(dataFile).interests as Json[]).map((entry) => [entry.club, entry.name]).sort()
    await w.interest(ADA)
    await w.interest({ ...ADA, name: 'Ada King' })
    await w.interest(ADA, 'robotics-collective')
    const both = [
      [CODE, 'Ada King'],
      ['robotics-collective', 'Ada Lovelace'],
    ]
    expect(onDisk()).toEqual(both)
    const [entry] = await w.entries()
    const blocked = blockWrites(dataFile)
    expect((await w.admin.delete(`${URL_OF()}${entry!.id}/`)).status).toBe(503)
    blocked.unblock()
    expect(await w.entries()).toHaveLength(1)
    expect(onDisk()).toEqual(both)
    expect((await w.admin.delete(`${URL_OF()}${entry!.id}/`)).status).toBe(204)
    expect(onDisk()).toEqual([['robotics-collective', 'Ada Lovelace']])
  })
})

describe('on PostgreSQL, several instances', () => {
  it.if(ON_POSTGRES)(
    'share the entries: one made on one instance is deleted on another, and the first finds it gone',
    async () => {
      const databaseUrl = await testDatabase()
      const a = await world({ databaseUrl })
      const b = await makeApp({ databaseUrl })
      try {
        expect((await a.interest(ADA)).status).toBe(303)
        const [made] = await a.entries()
        // A write takes its turn caught up with the other instances: b finds the entry a made.
        const gone = await b.req(`${URL_OF()}${made!.id}/`, { method: 'DELETE', token: ADMIN_TOKEN })
        expect(gone.status).toBe(204)
        // And a, writing next, finds it gone.
        expect((await a.interest({ name: 'Grace', email: 'grace@example.org', consent: 'true' })).status).toBe(303)
        expect((await a.entries()).map((entry) => entry.name)).toEqual(['Grace'])
      } finally {
        await a.store.close()
        await b.store.close()
      }
    },
  )
})
