import { afterAll, describe, expect, it } from 'bun:test'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN_TOKEN, makeApp, NOW, ON_POSTGRES, readJson, tempDir, testDatabase } from '../harness/app'
import { until } from '../harness/webhook-receiver'
import { blockWrites } from '../harness/write-fault'
import { directoryOnDisk } from '../harness/on-disk'
import { users } from '../harness/users'

// Re-registration rounds (docs/reference.md §23): the office opens a round with a deadline, owners and
// officers confirm their club (its last_confirmed_on becomes the campus day), and the close makes
// every active club not confirmed inactive (history lapsed, a removal in the change log), in one
// write; an admin makes a lapsed club active again.

type Json = Record<string, any>
const ROUNDS = '/api/registration-rounds/'
const CURRENT = `${ROUNDS}current/`
const CHESS = 'penn-chess-society'
const ROBOTS = 'robotics-collective'
const DANCE = 'ballroom-dance-team'
/** NOW is 2026-11-22T12:00Z: already the 23rd in Auckland, still the 22nd in Honolulu. */
const TODAY = '2026-11-22'

/** The seed's directory, with `officer` an officer of the chess society and `owner` the owner of robotics; `user` runs nothing. */
async function world(options: { dataFile?: string; timezone?: string } = {}) {
  const app = await makeApp({ dataFile: options.dataFile, config: { timezone: options.timezone } })
  const tokens: Record<string, string | null> = {
    admin: ADMIN_TOKEN,
    anonymous: null,
    ...(await users(app, 'officer', 'owner', 'user')),
  }
  expect((await app.admin.post(`/api/clubs/${CHESS}/members/`, { username: 'officer', role: 'officer' })).status).toBe(
    201,
  )
  expect((await app.admin.post(`/api/clubs/${ROBOTS}/members/`, { username: 'owner', role: 'owner' })).status).toBe(201)
  const as =
    (who: string) =>
    (path: string, init: { method?: string; json?: unknown } = {}) =>
      app.req(path, { ...init, token: tokens[who] ?? null })
  const post = (who: string, path: string, json?: unknown) => as(who)(path, { method: 'POST', json })
  const confirm = (who: string, code: string) => post(who, `/api/clubs/${code}/registration/`)
  /** The codes of the active clubs as the admin lists them. */
  const active = async () =>
    ((await readJson(await app.admin.get('/api/clubs/?active=true&fields=code'))) as Json[]).map((c) => c.code)
  const lastSeq = async () => (await readJson(await app.req('/api/changes/?since=0&limit=1'))).last_seq as number
  return { app, as, post, confirm, active, lastSeq }
}
type World = Awaited<ReturnType<typeof world>>

/** Opens a round with the admin and confirms every active club but `left` (the chess society by its officer). */
async function confirmAllBut(w: World, left: readonly string[]) {
  const opened = await w.post('admin', ROUNDS, { deadline: '2026-12-15', message: 'Check your officers.' })
  expect(opened.status).toBe(201)
  expect((await w.confirm('officer', CHESS)).status).toBe(200)
  for (const code of await w.active())
    if (!left.includes(code) && code !== CHESS)
      expect([code, (await w.confirm('admin', code)).status]).toEqual([code, 200])
}

/** What a refused request must leave as it was: the round, its clubs, every club, the change log. */
async function state(w: World) {
  const get = async (path: string) => {
    const res = await w.app.admin.get(path)
    return [res.status, await res.text()]
  }
  return {
    current: await get(CURRENT),
    clubs: await get(`${CURRENT}clubs/`),
    directory: await get('/api/clubs/?fields=code,active,last_confirmed_on'),
    changes: await w.lastSeq(),
  }
}

describe('a re-registration round', () => {
  it('goes from open to close: confirmed clubs stay, the lapsed one leaves the public list as a removal in /api/changes/', async () => {
    const w = await world()
    expect((await w.app.admin.get(CURRENT)).status).toBe(404)
    const opened = await w.post('admin', ROUNDS, { deadline: '2026-12-15', message: 'Check your officers.' })
    expect(opened.status).toBe(201)
    expect(opened.headers.get('location')).toBe(`http://localhost${CURRENT}`)
    expect(await readJson(opened)).toEqual({
      id: 1,
      opened_at: NOW.toISOString(),
      opened_by: 'admin',
      deadline: '2026-12-15',
      message: 'Check your officers.',
      closed_at: null,
      closed_by: null,
      lapsed: [],
    })
    const activeCount = (await w.active()).length
    expect(await readJson(await w.app.admin.get(CURRENT))).toEqual({
      id: 1,
      opened_at: NOW.toISOString(),
      deadline: '2026-12-15',
      message: 'Check your officers.',
      clubs: activeCount,
      confirmed: 0,
    })

    // Before: never confirmed, and the detail says so to everyone.
    expect((await readJson(await w.app.req(`/api/clubs/${CHESS}/`))).last_confirmed_on).toBeNull()
    const confirmed = await w.confirm('officer', CHESS)
    expect(confirmed.status).toBe(200)
    const club = await readJson(confirmed)
    expect([club.code, club.last_confirmed_on]).toEqual([CHESS, TODAY])
    expect((await readJson(await w.app.req(`/api/clubs/${CHESS}/`))).last_confirmed_on).toBe(TODAY)

    const listed = (await readJson(await w.app.admin.get(`${CURRENT}clubs/`))) as Json[]
    expect(listed.length).toBe(activeCount)
    expect(Object.keys(listed[0]!)).toEqual(['code', 'name', 'confirmed_at', 'confirmed_by'])
    expect(listed.find((c) => c.code === CHESS)).toEqual({
      code: CHESS,
      name: 'Penn Chess Society',
      confirmed_at: NOW.toISOString(),
      confirmed_by: 'officer',
    })
    expect(listed.find((c) => c.code === ROBOTS)).toMatchObject({ confirmed_at: null, confirmed_by: null })
    const names = listed.map((c) => c.name)
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)))

    const csv = await w.app.admin.get(`${CURRENT}clubs/?format=csv`)
    expect(csv.status).toBe(200)
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(csv.headers.get('content-disposition')).toContain('re-registration.csv')
    const lines = (await csv.text()).trim().split(/\r?\n/)
    expect(lines[0]).toBe('code,name,confirmed_at,confirmed_by')
    expect(lines).toContain(`${CHESS},Penn Chess Society,${NOW.toISOString()},officer`)
    expect(lines).toContain(`${ROBOTS},Robotics Collective,,`)
    expect(lines.length).toBe(activeCount + 1)

    // Everyone else confirms; robotics does not.
    for (const code of await w.active())
      if (code !== ROBOTS && code !== CHESS) expect((await w.confirm('admin', code)).status).toBe(200)
    expect((await readJson(await w.app.admin.get(CURRENT))).confirmed).toBe(activeCount - 1)

    const seqBefore = await w.lastSeq()
    const closed = await w.post('admin', `${CURRENT}close/`)
    expect(closed.status).toBe(200)
    expect(await readJson(closed)).toEqual({ lapsed: [ROBOTS] })

    // Robotics is inactive, gone for the public, and the change log names it removed.
    expect((await w.app.req(`/api/clubs/${ROBOTS}/`)).status).toBe(404)
    const publicCodes = ((await readJson(await w.app.req('/api/clubs/?fields=code'))) as Json[]).map((c) => c.code)
    expect(publicCodes).not.toContain(ROBOTS)
    expect(publicCodes).toContain(CHESS)
    const { results } = await readJson(await w.app.req(`/api/changes/?since=${seqBefore}`))
    expect(results.map((e: Json) => [e.type, e.code, e.club])).toEqual([['club.removed', ROBOTS, null]])
    const robots = await readJson(await w.app.admin.get(`/api/clubs/${ROBOTS}/`))
    expect([robots.active, robots.last_confirmed_on]).toEqual([false, null])
    const [lapse] = await readJson(await w.app.admin.get(`/api/clubs/${ROBOTS}/history/`))
    expect(lapse).toEqual({
      event: 'lapsed',
      at: NOW.toISOString(),
      by: 'admin',
      comment: 'Not re-registered by 2026-12-15.',
      fields: [],
    })
    // Its owner still sees it, and sees why.
    expect((await readJson(await w.as('owner')(`/api/clubs/${ROBOTS}/history/`)))[0].event).toBe('lapsed')

    // The round is over: nothing current, and a new one may open.
    expect((await w.app.admin.get(CURRENT)).status).toBe(404)
    expect((await w.post('admin', `${CURRENT}close/`)).status).toBe(404)
    expect((await w.post('admin', ROUNDS, { deadline: TODAY })).status).toBe(201)
  })

  it('lets an admin make a lapsed club active again, recorded in its history; its owner cannot', async () => {
    const w = await world()
    await confirmAllBut(w, [ROBOTS])
    expect((await w.post('admin', `${CURRENT}close/`)).status).toBe(200)
    const seq = await w.lastSeq()
    const byOwner = await w.as('owner')(`/api/clubs/${ROBOTS}/`, { method: 'PATCH', json: { active: true } })
    expect(byOwner.status).toBe(403)
    expect((await readJson(byOwner)).detail).toContain('activities office')
    // The owner's other changes, and sending `active: false` back unchanged, still work.
    const edit = await w.as('owner')(`/api/clubs/${ROBOTS}/`, {
      method: 'PATCH',
      json: { active: false, accepting_members: true },
    })
    expect(edit.status).toBe(200)
    expect(await w.lastSeq()).toBe(seq)

    const back = await w.app.admin.patch(`/api/clubs/${ROBOTS}/`, { active: true })
    expect(back.status).toBe(200)
    expect((await readJson(back)).active).toBe(true)
    expect((await w.app.req(`/api/clubs/${ROBOTS}/`)).status).toBe(200)
    const { results } = await readJson(await w.app.req(`/api/changes/?since=${seq}`))
    expect(results.map((e: Json) => [e.type, e.code])).toEqual([['club.added', ROBOTS]])
    const history = (await readJson(await w.app.admin.get(`/api/clubs/${ROBOTS}/history/`))) as Json[]
    expect(history.slice(0, 2).map((e) => [e.event, e.by])).toEqual([
      ['reactivated', 'admin'],
      ['lapsed', 'admin'],
    ])
  })

  it('confirms "today" as the campus day of CLUBS_TIMEZONE', async () => {
    for (const [timezone, day] of [
      ['Pacific/Auckland', '2026-11-23'],
      ['Pacific/Honolulu', '2026-11-22'],
    ] as const) {
      const w = await world({ timezone })
      expect((await w.post('admin', ROUNDS, { deadline: day })).status).toBe(201)
      expect((await readJson(await w.confirm('officer', CHESS))).last_confirmed_on).toBe(day)
    }
    // The 22nd is already past in Auckland.
    const w = await world({ timezone: 'Pacific/Auckland' })
    const past = await w.post('admin', ROUNDS, { deadline: TODAY })
    expect(past.status).toBe(400)
    expect(Object.keys(await readJson(past))).toEqual(['deadline'])
  })
})

describe('bad input and faults', () => {
  it('refuses dates that are not dates, past deadlines, other fields: a 400 naming the field, nothing opened', async () => {
    const w = await world()
    const before = await state(w)
    for (const body of [
      {},
      { deadline: '2026-02-30' },
      { deadline: '15/12/2026' },
      { deadline: 'tomorrow' },
      { deadline: 20261215 },
      { deadline: '2026-11-21' },
      { deadline: '2026-12-15', message: 'x'.repeat(1001) },
      { deadline: '2026-12-15', message: 7 },
    ]) {
      const res = await w.post('admin', ROUNDS, body)
      expect([body, res.status]).toEqual([body, 400])
      const errors = await readJson(res)
      expect(Object.keys(errors)).toEqual(['message' in body ? 'message' : 'deadline'])
      expect(typeof errors[Object.keys(errors)[0]!][0]).toBe('string')
    }
    const other = await w.post('admin', ROUNDS, { deadline: '2026-12-15', lapse_at: 'noon' })
    expect(other.status).toBe(400)
    const notObject = await w.post('admin', ROUNDS, ['2026-12-15'])
    expect(notObject.status).toBe(400)
    expect(Object.keys(await readJson(notObject))).toEqual(['non_field_errors'])
    expect(await state(w)).toEqual(before)
  })

  it('answers 409 to a second open round, 404 to a close or a progress with none, 409 to a confirm with none', async () => {
    const w = await world()
    for (const path of [CURRENT, `${CURRENT}clubs/`, `${CURRENT}clubs/?format=csv`]) {
      const res = await w.app.admin.get(path)
      expect([path, res.status, (await readJson(res)).detail]).toEqual([path, 404, 'No re-registration round is open.'])
    }
    expect((await w.post('admin', `${CURRENT}close/`)).status).toBe(404)
    const none = await w.confirm('officer', CHESS)
    expect(none.status).toBe(409)
    expect((await readJson(none)).detail).toContain('No re-registration round is open.')
    expect((await readJson(await w.app.req(`/api/clubs/${CHESS}/`))).last_confirmed_on).toBeNull()

    expect((await w.post('admin', ROUNDS, { deadline: '2026-12-15' })).status).toBe(201)
    const before = await state(w)
    const second = await w.post('admin', ROUNDS, { deadline: '2027-01-15' })
    expect(second.status).toBe(409)
    expect((await readJson(second)).detail).toContain('already open')
    expect(await state(w)).toEqual(before)
  })

  it('keeps rounds to admins, and confirmations to the club’s owners, officers and admins', async () => {
    const w = await world()
    expect((await w.post('admin', ROUNDS, { deadline: '2026-12-15' })).status).toBe(201)
    const before = await state(w)
    for (const [who, status] of [
      ['anonymous', 401],
      ['user', 403],
      ['officer', 403],
    ] as const) {
      expect([who, (await w.post(who, ROUNDS, { deadline: '2026-12-20' })).status]).toEqual([who, status])
      expect([who, (await w.as(who)(CURRENT)).status]).toEqual([who, status])
      expect([who, (await w.as(who)(`${CURRENT}clubs/`)).status]).toEqual([who, status])
      expect([who, (await w.post(who, `${CURRENT}close/`)).status]).toEqual([who, status])
    }
    expect((await w.confirm('anonymous', CHESS)).status).toBe(401)
    const stranger = await w.confirm('user', CHESS)
    expect(stranger.status).toBe(403)
    expect((await readJson(stranger)).detail).toContain('owners and officers')
    // An officer of another club is a stranger here too; a club no one may see is a 404.
    expect((await w.confirm('officer', ROBOTS)).status).toBe(403)
    expect((await w.confirm('officer', 'no-such-club')).status).toBe(404)
    expect((await w.confirm('user', 'poetry-slam-collective')).status).toBe(404)
    expect(await state(w)).toEqual(before)
  })

  it('reads a data file from before re-registration: clubs never confirmed, no round', async () => {
    const dir = tempDir('rounds-old-file')
    const dataFile = join(dir, 'db.json')
    await makeApp({ dataFile })
    const old = directoryOnDisk(dataFile)
    for (const club of old.clubs) delete club.last_confirmed_on
    delete old.registration_rounds
    delete old.registration_confirmations
    await Bun.write(dataFile, JSON.stringify(old))
    const app = await makeApp({ dataFile })
    expect((await readJson(await app.req(`/api/clubs/${CHESS}/`))).last_confirmed_on).toBeNull()
    expect((await app.admin.get(CURRENT)).status).toBe(404)
    rmSync(dir, { recursive: true, force: true })
  })
})

describe.skipIf(ON_POSTGRES)('a close on the data file', () => {
  it('is one write: a save that fails leaves every club active and the round open, in memory and on disk; one that lands, all lapsed', async () => {
    const dir = tempDir('rounds-close')
    const dataFile = join(dir, 'db.json')
    const w = await world({ dataFile })
    const toConfirm = (await w.active()).length - 2
    await confirmAllBut(w, [DANCE, ROBOTS])
    const before = await state(w)
    const fileBefore = readFileSync(dataFile, 'utf8')

    const blocked = blockWrites(join(dir, 'db.json'))
    const failed = await w.post('admin', `${CURRENT}close/`)
    expect(failed.status).toBe(503)
    expect(await state(w)).toEqual(before)
    expect(readFileSync(dataFile, 'utf8')).toBe(fileBefore)
    blocked.unblock()

    const closed = await w.post('admin', `${CURRENT}close/`)
    expect(closed.status).toBe(200)
    expect(await readJson(closed)).toEqual({ lapsed: [DANCE, ROBOTS] })
    // On disk while the service runs (the journal), not only once a restart wrote the snapshot whole.
    const file = directoryOnDisk(dataFile)
    expect(file.registration_rounds).toEqual([
      expect.objectContaining({ id: 1, closed_at: NOW.toISOString(), closed_by: 'admin', lapsed: [DANCE, ROBOTS] }),
    ])
    expect(file.registration_confirmations.length).toBe(toConfirm)
    // The service restarted reads both lapsed, the round closed, each club's lapse in its history.
    const restarted = await makeApp({ dataFile })
    for (const code of [DANCE, ROBOTS]) {
      expect((await readJson(await restarted.admin.get(`/api/clubs/${code}/`))).active).toBe(false)
      expect((await readJson(await restarted.admin.get(`/api/clubs/${code}/history/`)))[0].event).toBe('lapsed')
    }
    expect((await restarted.admin.get(CURRENT)).status).toBe(404)
    rmSync(dir, { recursive: true, force: true })
  })
})

describe('two instances on one database (CLUBS_TEST_STORE=postgres)', () => {
  const instances: Awaited<ReturnType<typeof makeApp>>[] = []
  afterAll(async () => {
    for (const app of instances) await app.store.close()
  })

  it.if(ON_POSTGRES)('share the round: opened on one, confirmed on the other, closed on the first', async () => {
    const databaseUrl = await testDatabase()
    const a = await makeApp({ databaseUrl })
    const b = await makeApp({ databaseUrl })
    instances.push(a, b)
    expect((await a.admin.post(ROUNDS, { deadline: '2026-12-15' })).status).toBe(201)
    // A write on the other instance first catches up: the round is open there, a second one refused.
    expect((await b.admin.post(ROUNDS, { deadline: '2026-12-20' })).status).toBe(409)
    expect((await b.admin.post(`/api/clubs/${CHESS}/registration/`, undefined)).status).toBe(200)
    const closed = await a.admin.post(`${CURRENT}close/`, undefined)
    expect(closed.status).toBe(200)
    const { lapsed } = await readJson(closed)
    expect(lapsed).toContain(ROBOTS)
    expect(lapsed).not.toContain(CHESS)
    await until(async () => (await b.admin.get(CURRENT)).status === 404, 'the close on the other instance')
    await until(async () => (await b.req(`/api/clubs/${ROBOTS}/`)).status === 404, 'the lapse on the other instance')
    expect((await readJson(await b.req(`/api/clubs/${CHESS}/`))).last_confirmed_on).toBe(TODAY)
  })
})
