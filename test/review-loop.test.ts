import { describe, expect, it } from 'bun:test'
import sharp from 'sharp'
import { join } from 'node:path'
import { ADMIN_TOKEN, makeApp, NOW, readJson, tempDir } from '../harness/app'
import { blockWrites } from '../harness/write-fault'
import { users } from '../harness/users'

// The review loop (docs/reference.md §22): a club's owners and officers read the latest decision on it in
// `last_decision`; a rejected club goes back into the queue when one of them changes a reviewed
// field, or asks with POST /api/clubs/{code}/resubmit/ (409 for a club that is not rejected).

type Json = Record<string, any>
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000)
const iso = (minutes: number) => at(minutes).toISOString()

/** "Lantern Society", new and pending, owned by `owner` with `officer`; `user` only reads. The clock moves on with `tick`. */
async function world(dataFile?: string) {
  let now = NOW
  const app = await makeApp({ dataFile, now: () => now })
  const tokens: Record<string, string | null> = {
    admin: ADMIN_TOKEN,
    anonymous: null,
    ...(await users(app, 'owner', 'officer', 'user')),
  }
  const as =
    (who: string) =>
    (path: string, init: { method?: string; json?: unknown; body?: BodyInit } = {}) =>
      app.req(path, { ...init, token: tokens[who] ?? null })
  const created = await as('owner')('/api/clubs/', {
    method: 'POST',
    json: { name: 'Lantern Society', subtitle: 'Paper lanterns', description: 'We fold.' },
  })
  expect(created.status).toBe(201)
  const url = '/api/clubs/lantern-society/'
  const officer = await as('owner')(`${url}members/`, {
    method: 'POST',
    json: { username: 'officer', role: 'officer' },
  })
  expect(officer.status).toBe(201)
  const json = async (who: string, path = url, status = 200) => {
    const res = await as(who)(path)
    expect(res.status).toBe(status)
    return readJson(res)
  }
  const patch = async (who: string, body: Json, status = 200) => {
    const res = await as(who)(url, { method: 'PATCH', json: body })
    expect([res.status, res.status === status || (await readJson(res))]).toEqual([status, true])
    return readJson(res)
  }
  const resubmit = (who: string, code = 'lantern-society') =>
    as(who)(`/api/clubs/${code}/resubmit/`, { method: 'POST' })
  const history = async () => (await json('admin', `${url}history/`)) as Json[]
  /** Whether the admins' queue (not approved, no decision since it was sent) holds the club. */
  const queued = async () =>
    ((await json('admin', '/api/clubs/?approved=false&fields=code,approved_on')) as Json[]).some(
      (club) => club.code === 'lantern-society' && club.approved_on === null,
    )
  const tick = (minutes: number) => (now = at(minutes))
  return { app, as, url, json, patch, resubmit, history, queued, tick }
}
type World = Awaited<ReturnType<typeof world>>

/** Rejects the club at minute 10 with a comment. */
async function rejected(w: World) {
  w.tick(10)
  await w.patch('admin', { approved: false, approved_comment: 'Tell us what you do.' })
  expect(await w.queued()).toBe(false)
  w.tick(20)
}

const REJECTION = { action: 'rejected', comment: 'Tell us what you do.', by: 'admin', at: iso(10) }

describe('last_decision on a club', () => {
  it('is null for a club not yet decided on, to its owners, officers and admins', async () => {
    const w = await world()
    for (const who of ['owner', 'officer', 'admin']) expect((await w.json(who)).last_decision).toBeNull()
  })

  it('says the rejection, its comment, who and when to owners, officers and admins, and stays through a resubmission', async () => {
    const w = await world()
    await rejected(w)
    for (const who of ['owner', 'officer', 'admin']) expect((await w.json(who)).last_decision).toEqual(REJECTION)
    await w.patch('owner', { subtitle: 'Paper lanterns, floated on the river' })
    expect((await w.json('owner')).last_decision).toEqual(REJECTION)
  })

  it('is left out for everyone else, and out of every list item', async () => {
    const w = await world()
    w.tick(5)
    await w.patch('admin', { approved: true, approved_comment: 'Welcome!' })
    for (const who of ['anonymous', 'user']) expect('last_decision' in (await w.json(who))).toBe(false)
    expect((await w.json('owner')).last_decision).toEqual({
      action: 'approved',
      comment: 'Welcome!',
      by: 'admin',
      at: iso(5),
    })
    const list = (await w.json('owner', '/api/clubs/?code=lantern-society')) as Json[]
    expect(list.map((club) => 'last_decision' in club)).toEqual([false])
  })

  it('names a revocation, which a change or a resubmission does not undo', async () => {
    const w = await world()
    w.tick(5)
    await w.patch('admin', { approved: true })
    w.tick(6)
    await w.patch('admin', { approved: false, approved_comment: 'Not registered.' })
    const revoked = { action: 'revoked', comment: 'Not registered.', by: 'admin', at: iso(6) }
    expect((await w.json('officer')).last_decision).toEqual(revoked)
    const refused = await w.resubmit('owner')
    expect([refused.status, await readJson(refused)]).toEqual([
      409,
      { detail: 'The approval of “Lantern Society” was revoked: only the activities office brings it back.' },
    ])
    await w.patch('owner', { subtitle: 'Please' })
    expect(await w.queued()).toBe(false)
    expect((await w.history())[0]!.event).toBe('revoked')
    expect((await w.as('anonymous')(w.url)).status).toBe(404)
  })

  it('is sent back in a GET-edit-PUT and ignored', async () => {
    const w = await world()
    await rejected(w)
    const shown = await w.json('owner')
    const res = await w.as('owner')(w.url, { method: 'PUT', json: { ...shown, last_decision: null } })
    expect(res.status).toBe(200)
    expect((await readJson(res)).last_decision).toEqual(REJECTION)
  })
})

describe('a rejected club changed by its owners or officers', () => {
  it('is in the queue again after a change to a reviewed field, with history resubmitted naming the fields', async () => {
    const w = await world()
    await rejected(w)
    const club = await w.patch('officer', { description: 'We fold and float lanterns.', size: 2 })
    expect([club.approved, club.approved_on, club.approved_by, club.approved_comment]).toEqual([false, null, null, ''])
    expect(await w.queued()).toBe(true)
    expect((await w.history()).slice(0, 2)).toEqual([
      { event: 'resubmitted', at: iso(20), by: 'officer', comment: '', fields: ['description'] },
      { event: 'rejected', at: iso(10), by: 'admin', comment: 'Tell us what you do.', fields: [] },
    ])
    // Still not public until an admin approves it; then it is.
    expect((await w.as('anonymous')(w.url)).status).toBe(404)
    await w.patch('admin', { approved: true })
    expect((await w.json('anonymous')).description).toBe('We fold and float lanterns.')
  })

  it('is in the queue again after a new logo (image_url is reviewed)', async () => {
    const w = await world()
    await rejected(w)
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#336699' } })
      .png()
      .toBuffer()
    const res = await w.as('owner')(`${w.url}logo/`, { method: 'PUT', body: new Uint8Array(png) })
    expect(res.status).toBe(200)
    expect(await w.queued()).toBe(true)
    expect((await w.history())[0]).toMatchObject({ event: 'resubmitted', by: 'owner', fields: ['image_url'] })
  })

  it('stays rejected after a change outside the reviewed fields, or an admin’s change', async () => {
    const w = await world()
    await rejected(w)
    const events = (await w.history()).length
    await w.patch('owner', { accepting_members: true, size: 3 })
    await w.patch('admin', { subtitle: 'Edited by the office' })
    expect(await w.queued()).toBe(false)
    expect((await w.json('owner')).approved_on).toBe(iso(10))
    expect((await w.history()).length).toBe(events)
  })

  it('is a rejected change to an approved club: a change sends it again, and the public keeps the approved version', async () => {
    const w = await world()
    await w.patch('admin', { approved: true, approved_comment: 'Welcome!' })
    await w.patch('owner', { subtitle: 'Fireworks' })
    await rejected(w)
    await w.patch('owner', { subtitle: 'Small fireworks' })
    expect(await w.queued()).toBe(true)
    expect((await w.history())[0]).toEqual({
      event: 'resubmitted',
      at: iso(20),
      by: 'owner',
      comment: '',
      fields: ['subtitle'],
    })
    const shown = await w.json('anonymous')
    expect([shown.approved, shown.subtitle]).toEqual([true, 'Paper lanterns'])
    expect((await w.json('owner')).approved_version.subtitle).toBe('Paper lanterns')
  })
})

describe('POST /api/clubs/{code}/resubmit/', () => {
  it('sends a rejected club back for review as it stands: 200, the club pending, history resubmitted', async () => {
    const w = await world()
    await rejected(w)
    const before = await w.json('owner')
    const res = await w.resubmit('officer')
    expect(res.status).toBe(200)
    const club = await readJson(res)
    expect(club).toEqual({
      ...before,
      approved_by: null,
      approved_on: null,
      approved_comment: '',
      updated_at: iso(20),
    })
    expect(await w.json('officer')).toEqual(club)
    expect(await w.queued()).toBe(true)
    expect((await w.history())[0]).toEqual({
      event: 'resubmitted',
      at: iso(20),
      by: 'officer',
      comment: '',
      fields: [],
    })
  })

  it('sends a rejected change to an approved club back, the approved version staying public', async () => {
    const w = await world()
    await w.patch('admin', { approved: true })
    await w.patch('owner', { name: 'Lantern & Kite Society' })
    await rejected(w)
    expect((await w.resubmit('owner')).status).toBe(200)
    expect(await w.queued()).toBe(true)
    expect((await w.json('user')).name).toBe('Lantern Society')
    await w.patch('admin', { approved: true })
    expect((await w.json('user')).name).toBe('Lantern & Kite Society')
  })

  it('answers 409 for a club that is not rejected, changing nothing', async () => {
    const w = await world()
    const pending = await w.resubmit('owner')
    expect([pending.status, await readJson(pending)]).toEqual([
      409,
      { detail: '“Lantern Society” already awaits review.' },
    ])
    await rejected(w)
    expect((await w.resubmit('owner')).status).toBe(200)
    expect((await w.resubmit('owner')).status).toBe(409)
    await w.patch('admin', { approved: true })
    const before = [await w.json('owner'), await w.history()]
    const approved = await w.resubmit('owner')
    expect([approved.status, await readJson(approved)]).toEqual([
      409,
      { detail: '“Lantern Society” is approved: only a rejected club is sent for review again.' },
    ])
    expect([await w.json('owner'), await w.history()]).toEqual(before)
  })

  it('is for owners and officers: 401 anonymous, 404 to whoever may not see the club, 403 to others', async () => {
    const w = await world()
    await rejected(w)
    const anonymous = await w.resubmit('anonymous')
    expect([anonymous.status, anonymous.headers.get('www-authenticate')?.startsWith('Bearer')]).toEqual([401, true])
    expect((await w.resubmit('user')).status).toBe(404)
    expect((await w.resubmit('owner', 'no-such-club')).status).toBe(404)
    const admin = await w.resubmit('admin')
    expect([admin.status, await readJson(admin)]).toEqual([
      403,
      { detail: 'Only the club’s owners and officers send it for review again.' },
    ])
    expect(await w.queued()).toBe(false)
    // A club the user may see (approved, with a change rejected): 403.
    await w.patch('admin', { approved: true })
    await w.patch('owner', { subtitle: 'Fireworks' })
    await rejected(w)
    expect((await w.resubmit('user')).status).toBe(403)
    expect(await w.queued()).toBe(false)
    expect((await w.as('owner')('/api/clubs/lantern-society/resubmit/')).status).toBe(405)
  })
})

describe('a resubmission that cannot be saved (503)', () => {
  it('leaves the club rejected, out of the queue, its history as it was', async () => {
    const dataFile = join(tempDir('clubs-review-loop-'), 'db.json')
    const w = await world(dataFile)
    await rejected(w)
    const state = async () => [await w.json('owner'), await w.history(), await w.queued()]
    const before = await state()
    const blocked = blockWrites(dataFile)
    expect((await w.resubmit('owner')).status).toBe(503)
    expect((await w.as('owner')(w.url, { method: 'PATCH', json: { subtitle: 'Wool' } })).status).toBe(503)
    expect(await state()).toEqual(before)
    blocked.unblock()
    expect((await w.resubmit('owner')).status).toBe(200)
    expect(await w.queued()).toBe(true)
  })
})
