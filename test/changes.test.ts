import { describe, expect, it } from 'bun:test'
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN_TOKEN, makeApp, readJson, tempDir } from '../harness/app'
import { blockWrites } from '../harness/write-fault'
import { users } from '../harness/users'

// docs/reference.md §18: every change to what the public sees is an event with the next number; a mirror
// that lists and then follows the log holds exactly what the public sees.

type App = Awaited<ReturnType<typeof makeApp>>
type Json = Record<string, any>

async function changes(app: App, since: number, limit = 1000): Promise<{ results: Json[]; last_seq: number }> {
  const res = await app.req(`/api/changes/?since=${since}&limit=${limit}`)
  expect(res.status).toBe(200)
  return readJson(res)
}

/** What the public sees: every listed club's anonymous detail, by code, and the list's X-Changes-Seq. */
async function publicDirectory(app: App) {
  const res = await app.req('/api/clubs/')
  const seq = Number(res.headers.get('x-changes-seq'))
  const clubs: Record<string, Json> = {}
  for (const { code } of (await readJson(res)) as Json[])
    clubs[code] = await readJson(await app.req(`/api/clubs/${code}/`))
  return { clubs, seq }
}

/** A copy of the directory kept by listing once and then applying events. */
class Mirror {
  constructor(
    readonly clubs: Record<string, Json>,
    public seq: number,
  ) {}

  static async of(app: App) {
    const { clubs, seq } = await publicDirectory(app)
    return new Mirror(clubs, seq)
  }

  /** Applies what happened since; returns the types seen. */
  async follow(app: App): Promise<string[]> {
    const { results } = await changes(app, this.seq)
    for (const event of results) {
      expect(event.seq).toBeGreaterThan(this.seq)
      this.seq = event.seq
      if (event.type === 'club.removed') delete this.clubs[event.code]
      else this.clubs[event.code] = event.club
    }
    return results.map((event) => `${event.type} ${event.code}`)
  }
}

describe('the change log through the API', () => {
  it('gives each write the events a mirror needs, and the mirror equals what the public sees after each', async () => {
    let tick = Date.parse('2026-11-26T12:00:00Z')
    const app = await makeApp({ now: () => new Date((tick += 1000)) })
    const mirror = await Mirror.of(app)
    const { owner, student } = await users(app, 'owner', 'student')
    const as = (who: string, path: string, method: string, json?: unknown) =>
      app.req(path, { method, token: who, json })
    const steps: [string, () => Promise<Response>, string[]][] = [
      ['a user and a token: nothing public', () => app.admin.post('/api/users/', { username: 'quiet' }), []],
      [
        'a new club awaiting approval: nothing',
        () => as(owner, '/api/clubs/', 'POST', { name: 'Kite Makers', subtitle: 'Paper and string' }),
        [],
      ],
      [
        'its approval: added',
        () => app.admin.patch('/api/clubs/kite-makers/', { approved: true }),
        ['club.added kite-makers'],
      ],
      [
        'a change of a field that is not reviewed: changed',
        () => as(owner, '/api/clubs/kite-makers/', 'PATCH', { accepting_members: true }),
        ['club.changed kite-makers'],
      ],
      [
        'a favorite moves the count: changed',
        () => as(student, '/api/favorites/', 'POST', { club: 'kite-makers' }),
        ['club.changed kite-makers'],
      ],
      [
        "an owner's change of a reviewed field awaits review: nothing",
        () => as(owner, '/api/clubs/kite-makers/', 'PATCH', { subtitle: 'Paper, string and wind' }),
        [],
      ],
      [
        'its approval: changed',
        () => app.admin.patch('/api/clubs/kite-makers/', { approved: true }),
        ['club.changed kite-makers'],
      ],
      [
        "an admin's change of a reviewed field: changed",
        () => app.admin.patch('/api/clubs/penn-chess-society/', { subtitle: 'Checkmate, politely' }),
        ['club.changed penn-chess-society'],
      ],
      [
        'made inactive: removed',
        () => app.admin.patch('/api/clubs/kite-makers/', { active: false }),
        ['club.removed kite-makers'],
      ],
      [
        'active again: added',
        () => app.admin.patch('/api/clubs/kite-makers/', { active: true }),
        ['club.added kite-makers'],
      ],
      [
        'revoked: removed',
        () => app.admin.patch('/api/clubs/kite-makers/', { approved: false }),
        ['club.removed kite-makers'],
      ],
      [
        'approved again: added',
        () => app.admin.patch('/api/clubs/kite-makers/', { approved: true }),
        ['club.added kite-makers'],
      ],
      ['deleted: removed', () => app.admin.delete('/api/clubs/mock-trial/'), ['club.removed mock-trial']],
    ]
    for (const [what, write, expected] of steps) {
      const res = await write()
      expect({ what, ok: res.ok }).toEqual({ what, ok: true })
      expect({ what, events: await mirror.follow(app) }).toEqual({ what, events: expected })
      const now = await publicDirectory(app)
      expect({ what, clubs: mirror.clubs }).toEqual({ what, clubs: now.clubs })
      expect({ what, seq: now.seq }).toEqual({ what, seq: mirror.seq })
    }
  })

  it('tells of a tag renamed on every public club that carries it, and of nothing else', async () => {
    const app = await makeApp()
    const mirror = await Mirror.of(app)
    const tags = (await readJson(await app.req('/api/tags/'))) as Json[]
    const tag = tags.find((t) => t.clubs > 1)!
    const carriers = Object.values(mirror.clubs)
      .filter((club) => club.tags.some((t: Json) => t.id === tag.id))
      .map((club) => `club.changed ${club.code}`)
    expect((await app.admin.patch(`/api/tags/${tag.id}/`, { name: `${tag.name} Renamed` })).status).toBe(200)
    expect((await mirror.follow(app)).sort()).toEqual(carriers.sort())
    expect(mirror.clubs).toEqual((await publicDirectory(app)).clubs)
  })

  it('numbers events one after another from 1, stamps them, and carries the anonymous detail', async () => {
    const app = await makeApp()
    expect(await changes(app, 0)).toEqual({ results: [], last_seq: 0 })
    await app.admin.patch('/api/clubs/penn-chess-society/', { subtitle: 'One' })
    await app.admin.patch('/api/clubs/penn-chess-society/', { subtitle: 'Two' })
    const { results, last_seq } = await changes(app, 0)
    expect(results.map((e) => [e.seq, e.type, e.code, e.club.subtitle])).toEqual([
      [1, 'club.changed', 'penn-chess-society', 'One'],
      [2, 'club.changed', 'penn-chess-society', 'Two'],
    ])
    expect(last_seq).toBe(2)
    expect(Object.keys(results[0]!)).toEqual(['seq', 'type', 'code', 'at', 'club'])
    expect(new Date(results[0]!.at).toISOString()).toBe(results[0]!.at)
    expect(results[1]!.club).toEqual(await readJson(await app.req('/api/clubs/penn-chess-society/')))
  })

  it('puts X-Changes-Seq on every list answer, cached ones and 304s too, exposed to browsers', async () => {
    const app = await makeApp()
    const first = await app.req('/api/clubs/?page=1')
    expect(first.headers.get('x-changes-seq')).toBe('0')
    expect(first.headers.get('access-control-expose-headers')).toContain('X-Changes-Seq')
    await app.admin.patch('/api/clubs/penn-chess-society/', { subtitle: 'Moved' })
    const again = await app.req('/api/clubs/?page=1')
    expect(again.headers.get('x-changes-seq')).toBe('1')
    const cached = await app.req('/api/clubs/?page=1', { headers: { 'if-none-match': again.headers.get('etag')! } })
    expect([cached.status, cached.headers.get('x-changes-seq')]).toEqual([304, '1'])
  })

  it('pages with since and limit', async () => {
    const app = await makeApp()
    for (const subtitle of ['a', 'b', 'c', 'd', 'e'])
      await app.admin.patch('/api/clubs/penn-chess-society/', { subtitle })
    expect((await changes(app, 0, 2)).results.map((e) => e.seq)).toEqual([1, 2])
    expect((await changes(app, 2, 2)).results.map((e) => e.seq)).toEqual([3, 4])
    expect(await changes(app, 5, 2)).toEqual({ results: [], last_seq: 5 })
    const byDefault = (await readJson(await app.req('/api/changes/'))) as Json
    expect(byDefault.results.length).toBe(5)
  })

  it.each([
    ['since=-1', 'since'],
    ['since=1.5', 'since'],
    ['since=abc', 'since'],
    ['since=', 'since'],
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=ten', 'limit'],
  ])('refuses ?%s with a 400 naming the parameter', async (query, name) => {
    const app = await makeApp()
    const res = await app.req(`/api/changes/?${query}`)
    expect(res.status).toBe(400)
    expect((await readJson(res)).detail).toStartWith(`${name} must be`)
  })

  it('answers 410 with the oldest number kept for a since older than what is kept, or past the newest', async () => {
    const app = await makeApp({ keepChanges: 3 })
    for (let i = 0; i < 8; i++) await app.admin.patch('/api/clubs/penn-chess-society/', { subtitle: `s${i}` })
    const { results } = await changes(app, 5)
    expect(results.map((e) => e.seq)).toEqual([6, 7, 8])
    const gone = await app.req('/api/changes/?since=0')
    expect(gone.status).toBe(410)
    const body = await readJson(gone)
    expect(Object.keys(body)).toEqual(['detail', 'oldest_seq'])
    expect(body.oldest_seq).toBeGreaterThan(1)
    expect((await app.req(`/api/changes/?since=${body.oldest_seq - 1}`)).status).toBe(200)
    expect((await app.req('/api/changes/?since=9')).status).toBe(410)
  })
})

describe('the change log on disk', () => {
  const club = (app: App) => app.admin.patch('/api/clubs/penn-chess-society/', { subtitle: `at ${Math.random()}` })

  it('keeps its events and numbers across a restart', async () => {
    const file = join(tempDir('clubs-changes-'), 'db.json')
    const before = await makeApp({ dataFile: file })
    for (let i = 0; i < 3; i++) await club(before)
    const kept = await changes(before, 0)
    const after = await makeApp({ dataFile: file })
    expect(await changes(after, 0)).toEqual(kept)
    await club(after)
    expect((await changes(after, 3)).results.map((e) => e.seq)).toEqual([4])
  })

  it('takes back the events of a write that could not be saved, and never uses their numbers', async () => {
    const file = join(tempDir('clubs-changes-'), 'db.json')
    const app = await makeApp({ dataFile: file })
    await club(app)
    const blocked = blockWrites(file)
    expect((await club(app)).status).toBe(503)
    expect(await changes(app, 0)).toMatchObject({ last_seq: 1 })
    blocked.unblock()
    expect(readFileSync(`${file}.journal`, 'utf8')).not.toContain('"seq":2,')
    await club(app)
    expect((await changes(app, 0)).results.map((e) => e.seq)).toEqual([1, 3])
    const restarted = await makeApp({ dataFile: file })
    expect((await changes(restarted, 0)).results.map((e) => e.seq)).toEqual([1, 3])
  })

  it('drops a line torn by a crash and starts', async () => {
    const file = join(tempDir('clubs-changes-'), 'db.json')
    const app = await makeApp({ dataFile: file })
    await club(app)
    appendFileSync(`${file}.changes`, '{"seq":2,"type":"club.chan')
    const restarted = await makeApp({ dataFile: file })
    expect((await changes(restarted, 0)).results.map((e) => e.seq)).toEqual([1])
    await club(restarted)
    expect((await changes(restarted, 1)).results.map((e) => e.seq)).toEqual([2])
  })

  it('when the log went further than the data file (a write that never landed, a restored backup): followers up to the data file go on, one that saw further lists again, and no number is used twice', async () => {
    const file = join(tempDir('clubs-changes-'), 'db.json')
    const app = await makeApp({ dataFile: file })
    for (let i = 0; i < 3; i++) await club(app)
    // Stopped cleanly: the snapshot holds every write, and the log file every event.
    await app.store.close()
    const snapshot = JSON.parse(readFileSync(file, 'utf8'))
    writeFileSync(file, JSON.stringify({ ...snapshot, changes_seq: 1 }))
    const restored = await makeApp({ dataFile: file })
    expect((await changes(restored, 0)).results.map((e) => e.seq)).toEqual([1])
    expect((await changes(restored, 1)).results).toEqual([])
    expect((await restored.req('/api/changes/?since=2')).status).toBe(410)
    expect((await restored.req('/api/changes/?since=3')).status).toBe(410)
    // The numbers the dropped lines used are not given again, even after another start.
    const again = await makeApp({ dataFile: file })
    expect((await again.req('/api/changes/?since=3')).status).toBe(410)
    await club(again)
    expect((await changes(again, 1)).results.map((e) => e.seq)).toEqual([4])
    const listed = await again.req('/api/clubs/')
    expect(Number(listed.headers.get('x-changes-seq'))).toBe(4)
  })

  it('refuses to start on a log that was changed by hand, naming it', async () => {
    const file = join(tempDir('clubs-changes-'), 'db.json')
    const app = await makeApp({ dataFile: file })
    await club(app)
    await club(app)
    await app.store.close()
    const lines = readFileSync(`${file}.changes`, 'utf8').split('\n')
    writeFileSync(`${file}.changes`, [lines[0], 'not json', lines[2], ''].join('\n'))
    await expect(makeApp({ dataFile: file })).rejects.toThrow(`${file}.changes: line 2 is not JSON`)
  })

  it('compacts the file at twice what it keeps, keeping at least that many', async () => {
    const file = join(tempDir('clubs-changes-'), 'db.json')
    const app = await makeApp({ dataFile: file, keepChanges: 4 })
    for (let i = 0; i < 9; i++) await club(app)
    await app.store.close()
    const lines = readFileSync(`${file}.changes`, 'utf8').trim().split('\n')
    expect(lines.length - 1).toBeLessThanOrEqual(8)
    expect(lines.length - 1).toBeGreaterThanOrEqual(4)
    expect(JSON.parse(lines[0]!).trimmed_up_to).toBe(JSON.parse(lines[1]!).seq - 1)
    const restarted = await makeApp({ dataFile: file, keepChanges: 4 })
    expect((await changes(restarted, 5)).results.map((e) => e.seq)).toEqual([6, 7, 8, 9])
  })
})

it('needs no token, and a wrong one is still a 401', async () => {
  const app = await makeApp()
  expect((await app.req('/api/changes/', { token: 'wrong' })).status).toBe(401)
  expect((await app.req('/api/changes/', { token: ADMIN_TOKEN })).status).toBe(200)
})
