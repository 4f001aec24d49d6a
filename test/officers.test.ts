import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { ADMIN_TOKEN, makeApp, NOW, readJson, tempDir } from '../harness/app'
import {
  campusSettings,
  SITE_CLIENT,
  SITE_CLIENT_SECRET,
  startProvider,
  type TestProvider,
} from '../harness/oidc-provider'
import { CampusSignIn } from '../src/edge/oidc'
import { directoryOnDisk } from '../harness/on-disk'
import { users } from '../harness/users'

// Officers people can contact and subscribers for officers (docs/reference.md §21): a membership's title and
// `public`, PATCH of one member, the public list of officers, and the subscribers an officer sees
// (JSON and CSV) with the e-mail address campus sign-in gave.

type Json = Record<string, any>
const CODE = 'contact-club'
const CLUB_URL = `/api/clubs/${CODE}/`
const MEMBERS_URL = `${CLUB_URL}members/`
const OFFICERS_URL = `${CLUB_URL}officers/`
const SUBSCRIBERS_URL = `${CLUB_URL}subscribers/`
const NO_PERMISSION = { detail: 'You do not have permission to perform this action.' }
const PEOPLE = ['owner', 'zed', 'officer', 'member', 'other'] as const

const seat = (username: string, role: string, title = '', shown = false) => ({ username, role, title, public: shown })

/**
 * An app where `owner` runs "Contact Club" (approved unless `pending`) with `officer` and `member`;
 * `zed` and `other` are users with no part in it.
 */
async function world({ pending = false, dataFile }: { pending?: boolean; dataFile?: string } = {}) {
  const app = await makeApp({ dataFile })
  const tokens: Record<string, string | null> = {
    anonymous: null,
    admin: ADMIN_TOKEN,
    ...(await users(app, ...PEOPLE)),
  }
  const as =
    (who: string) =>
    (path: string, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}) =>
      app.req(path, { ...init, token: tokens[who] ?? null })
  expect((await as('owner')('/api/clubs/', { method: 'POST', json: { name: 'Contact Club' } })).status).toBe(201)
  for (const [username, role] of [
    ['officer', 'officer'],
    ['member', 'member'],
  ])
    expect((await as('owner')(MEMBERS_URL, { method: 'POST', json: { username, role } })).status).toBe(201)
  if (!pending) expect((await app.admin.patch(CLUB_URL, { approved: true })).status).toBe(200)
  const patch = (who: string, username: string, json: unknown) =>
    as(who)(`${MEMBERS_URL}${username}/`, { method: 'PATCH', json })
  const roster = async () => readJson(await app.admin.get(MEMBERS_URL))
  return { ...app, tokens, as, patch, roster }
}

describe('a member’s title and listing', () => {
  it('are taken by POST, "" and false when not sent, and shown in the members list', async () => {
    const w = await world()
    const added = await w.as('owner')(MEMBERS_URL, {
      method: 'POST',
      json: { username: 'zed', role: 'officer', title: '  Treasurer ', public: true },
    })
    expect(added.status).toBe(201)
    expect(await readJson(added)).toEqual(seat('zed', 'officer', 'Treasurer', true))
    expect(await w.roster()).toEqual([
      seat('owner', 'owner'),
      seat('officer', 'officer'),
      seat('zed', 'officer', 'Treasurer', true),
      seat('member', 'member'),
    ])
    // A role changed by POST keeps the title and listing it had.
    const promoted = await w.as('owner')(MEMBERS_URL, { method: 'POST', json: { username: 'zed', role: 'owner' } })
    expect(promoted.status).toBe(200)
    expect(await readJson(promoted)).toEqual(seat('zed', 'owner', 'Treasurer', true))
  })

  it('lets a member set their own title and listing with PATCH, changing only what is sent', async () => {
    const w = await world()
    const res = await w.patch('member', 'member', { title: 'Scribe' })
    expect(res.status).toBe(200)
    expect(await readJson(res)).toEqual(seat('member', 'member', 'Scribe'))
    const listed = await w.patch('member', 'member', { public: true })
    expect(await readJson(listed)).toEqual(seat('member', 'member', 'Scribe', true))
    expect((await w.roster())[2]).toEqual(seat('member', 'member', 'Scribe', true))
  })

  it('lets owners and admins change anyone’s role, title and listing', async () => {
    const w = await world()
    const byOwner = await w.patch('owner', 'member', { role: 'officer', title: 'Secretary', public: true })
    expect(byOwner.status).toBe(200)
    expect(await readJson(byOwner)).toEqual(seat('member', 'officer', 'Secretary', true))
    const byAdmin = await w.patch('admin', 'officer', { title: 'Captain' })
    expect(await readJson(byAdmin)).toEqual(seat('officer', 'officer', 'Captain'))
    // The promotion is real: the new officer now runs the club.
    expect((await w.as('member')(MEMBERS_URL)).status).toBe(200)
  })

  const refusals = [
    { rule: 'a member editing another’s title', who: 'member', target: 'officer', json: { title: 'Boss' } },
    { rule: 'a member changing their own role', who: 'member', target: 'member', json: { role: 'officer' } },
    { rule: 'an officer editing a member’s title', who: 'officer', target: 'member', json: { title: 'Boss' } },
    { rule: 'an officer listing another', who: 'officer', target: 'owner', json: { public: true } },
    { rule: 'an officer changing their own role', who: 'officer', target: 'officer', json: { role: 'owner' } },
    { rule: 'a user outside the club', who: 'other', target: 'member', json: { title: 'Boss' } },
  ]
  for (const { rule, who, target, json } of refusals) {
    it(`refuses ${rule} with 403, and changes nothing`, async () => {
      const w = await world()
      const before = await w.roster()
      const res = await w.patch(who, target, json)
      expect(res.status).toBe(403)
      expect(await readJson(res)).toEqual(NO_PERMISSION)
      expect(await w.roster()).toEqual(before)
    })
  }

  it('refuses an officer who changes an existing member’s title through POST (403), yet lets them add one with a title', async () => {
    const w = await world()
    const post = (json: unknown) => w.as('officer')(MEMBERS_URL, { method: 'POST', json })
    expect((await post({ username: 'member', title: 'Boss' })).status).toBe(403)
    expect((await w.roster())[2]).toEqual(seat('member', 'member'))
    const added = await post({ username: 'zed', title: 'Photographer', public: false })
    expect(added.status).toBe(201)
    expect(await readJson(added)).toEqual(seat('zed', 'member', 'Photographer'))
  })

  const invalid = [
    { rule: 'a 101-character title', json: { title: 'x'.repeat(101) }, field: 'title' },
    { rule: 'a title that is not a string', json: { title: 7 }, field: 'title' },
    { rule: 'public that is not a boolean', json: { public: 'yes' }, field: 'public' },
    { rule: 'public null', json: { public: null }, field: 'public' },
    { rule: 'an unknown role', json: { role: 'president' }, field: 'role' },
    { rule: 'an unknown field', json: { email: 'x@example.edu' }, field: 'email' },
  ]
  for (const { rule, json, field } of invalid) {
    it(`answers ${rule} with a 400 naming ${field}, by PATCH and by POST, and changes nothing`, async () => {
      const w = await world()
      const before = await w.roster()
      for (const res of [
        await w.patch('owner', 'member', { ...json, public: field === 'public' ? json.public : true }),
        await w.as('owner')(MEMBERS_URL, { method: 'POST', json: { username: 'member', ...json } }),
      ]) {
        expect(res.status).toBe(400)
        const body = await readJson(res)
        expect(Object.keys(body)).toEqual([field])
        expect(body[field]).toEqual([expect.any(String)])
      }
      expect(await w.roster()).toEqual(before)
    })
  }

  it('takes a title of exactly 100 characters', async () => {
    const w = await world()
    const res = await w.patch('owner', 'member', { title: 't'.repeat(100) })
    expect(res.status).toBe(200)
    expect((await readJson(res)).title).toHaveLength(100)
  })

  it('answers 404 for someone who is not a member, and for a club that does not exist', async () => {
    const w = await world()
    expect((await w.patch('owner', 'zed', { title: 'X' })).status).toBe(404)
    expect((await w.patch('admin', 'nobody', { title: 'X' })).status).toBe(404)
    expect((await w.as('admin')('/api/clubs/no-such-club/members/owner/', { method: 'PATCH', json: {} })).status).toBe(
      404,
    )
    const anonymous = await w.patch('anonymous', 'member', { title: 'X' })
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toStartWith('Bearer')
  })

  it('keeps the last owner: demoting them by PATCH is a 400, and nothing changes', async () => {
    const w = await world()
    const res = await w.patch('owner', 'owner', { role: 'officer', title: 'Former' })
    expect(res.status).toBe(400)
    expect(await readJson(res)).toEqual({ role: ['A club must keep at least one owner.'] })
    expect((await w.roster())[0]).toEqual(seat('owner', 'owner'))
    // With a second owner, one may step down.
    expect((await w.patch('owner', 'officer', { role: 'owner' })).status).toBe(200)
    expect((await w.patch('owner', 'owner', { role: 'officer' })).status).toBe(200)
  })
})

describe('GET /api/clubs/{code}/officers/', () => {
  async function listed() {
    const w = await world()
    await w.patch('owner', 'owner', { title: 'President', public: true })
    await w.as('owner')(MEMBERS_URL, {
      method: 'POST',
      json: { username: 'zed', role: 'owner', title: 'Co-founder', public: true },
    })
    await w.patch('officer', 'officer', { title: 'Treasurer', public: true })
    // A plain member who asks to be listed is not: only owners and officers are contacts.
    await w.patch('member', 'member', { title: 'Fan', public: true })
    await w.as('owner')(MEMBERS_URL, {
      method: 'POST',
      json: { username: 'other', role: 'officer', title: 'Quiet', public: false },
    })
    return w
  }
  const OFFICERS = [
    { username: 'owner', title: 'President', role: 'owner' },
    { username: 'zed', title: 'Co-founder', role: 'owner' },
    { username: 'officer', title: 'Treasurer', role: 'officer' },
  ]

  it('lists the public owners and officers, owners first, then by username; never the others', async () => {
    const w = await listed()
    for (const who of ['anonymous', 'other', 'member', 'officer', 'owner', 'admin']) {
      const res = await w.as(who)(OFFICERS_URL)
      expect(res.status).toBe(200)
      expect(await readJson(res)).toEqual(OFFICERS)
    }
  })

  it('follows changes: an officer who stops being public, or becomes a plain member, is no longer listed', async () => {
    const w = await listed()
    await w.patch('officer', 'officer', { public: false })
    await w.patch('owner', 'zed', { role: 'member' })
    expect(await readJson(await w.req(OFFICERS_URL))).toEqual([OFFICERS[0]])
  })

  it('answers with an ETag, and 304 to If-None-Match with it', async () => {
    const w = await listed()
    const res = await w.req(OFFICERS_URL)
    const etag = res.headers.get('etag')
    expect(etag).toBeTruthy()
    const again = await w.req(OFFICERS_URL, { headers: { 'if-none-match': etag! } })
    expect(again.status).toBe(304)
    await w.patch('owner', 'owner', { title: 'Chair' })
    expect((await w.req(OFFICERS_URL, { headers: { 'if-none-match': etag! } })).status).toBe(200)
  })

  it('is a 404 to those who may not see the club (pending), and for an unknown club', async () => {
    const w = await world({ pending: true })
    await w.patch('owner', 'owner', { title: 'President', public: true })
    for (const who of ['anonymous', 'other', 'member']) expect((await w.as(who)(OFFICERS_URL)).status).toBe(404)
    expect(await readJson(await w.as('officer')(OFFICERS_URL))).toEqual([OFFICERS[0]])
    expect((await w.req('/api/clubs/no-such-club/officers/')).status).toBe(404)
    expect((await w.req(OFFICERS_URL, { token: 'not-a-token' })).status).toBe(401)
  })
})

describe('GET /api/clubs/{code}/subscribers/', () => {
  it('lists the subscribers by username, with when each subscribed and no e-mail for token users', async () => {
    let now = new Date('2026-11-22T12:00:00.000Z')
    const app = await makeApp({ now: () => now })
    const tokens: Record<string, string> = await users(app, 'owner', 'bea', 'abe')
    await app.req('/api/clubs/', { method: 'POST', token: tokens.owner, json: { name: 'Contact Club' } })
    await app.admin.patch(CLUB_URL, { approved: true })
    const subscribe = (who: string) =>
      app.req('/api/subscriptions/', { method: 'POST', token: tokens[who], json: { club: CODE } })
    expect((await subscribe('bea')).status).toBe(201)
    now = new Date('2026-11-23T08:30:00.000Z')
    expect((await subscribe('abe')).status).toBe(201)
    const res = await app.req(SUBSCRIBERS_URL, { token: tokens.owner })
    expect(res.status).toBe(200)
    expect(await readJson(res)).toEqual([
      { username: 'abe', email: null, subscribed_at: '2026-11-23T08:30:00.000Z' },
      { username: 'bea', email: null, subscribed_at: '2026-11-22T12:00:00.000Z' },
    ])
    // Unsubscribing removes them.
    await app.req(`/api/subscriptions/${CODE}/`, { method: 'DELETE', token: tokens.abe })
    expect(
      (await readJson(await app.req(SUBSCRIBERS_URL, { token: tokens.owner }))).map((s: Json) => s.username),
    ).toEqual(['bea'])
  })

  it('answers 401 to anonymous callers, 403 to those who see the club but do not run it, 404 to those who may not see it', async () => {
    const approved = await world()
    expect((await approved.as('anonymous')(SUBSCRIBERS_URL)).status).toBe(401)
    for (const who of ['other', 'member']) {
      const res = await approved.as(who)(SUBSCRIBERS_URL)
      expect(res.status).toBe(403)
      expect(await readJson(res)).toEqual(NO_PERMISSION)
    }
    for (const who of ['officer', 'owner', 'admin']) expect((await approved.as(who)(SUBSCRIBERS_URL)).status).toBe(200)
    const pending = await world({ pending: true })
    for (const who of ['other', 'member']) expect((await pending.as(who)(SUBSCRIBERS_URL)).status).toBe(404)
    expect((await pending.as('officer')(SUBSCRIBERS_URL)).status).toBe(200)
    expect((await approved.as('admin')('/api/clubs/no-such-club/subscribers/')).status).toBe(404)
    expect((await approved.as('other')(`${SUBSCRIBERS_URL}?format=csv`)).status).toBe(403)
    expect((await approved.as('owner')(`${SUBSCRIBERS_URL}?format=xlsx`)).status).toBe(404)
  })

  it('keeps subscriptions, their times and titles across a restart', async () => {
    const dataFile = join(tempDir(), 'db.json')
    const w = await world({ dataFile })
    await w.patch('owner', 'officer', { title: 'Treasurer', public: true })
    await w.as('other')('/api/subscriptions/', { method: 'POST', json: { club: CODE } })
    const again = await makeApp({ dataFile })
    expect(await readJson(await again.admin.get(SUBSCRIBERS_URL))).toEqual([
      { username: 'other', email: null, subscribed_at: NOW.toISOString() },
    ])
    expect(await readJson(await again.req(OFFICERS_URL))).toEqual([
      { username: 'officer', title: 'Treasurer', role: 'officer' },
    ])
  })
})

describe('campus users’ e-mail addresses', () => {
  let provider: TestProvider
  beforeAll(async () => {
    provider = await startProvider({
      carla: { claims: { preferred_username: 'carla', email: 'carla@campus.example.edu' } },
      dave: { claims: { preferred_username: 'dave' } },
      mallory: { claims: { preferred_username: 'mallory', email: '=HYPERLINK("http://evil.example")@x.example' } },
      site: { claims: { preferred_username: 'sita', email: 'sita@campus.example.edu' } },
    })
  })
  afterAll(async () => {
    await provider.stop()
  })

  async function campusWorld() {
    const dir = tempDir('clubs-officers-campus-')
    const dataFile = join(dir, 'db.json')
    const campus = new CampusSignIn(
      campusSettings(provider.issuer, { clientId: SITE_CLIENT, clientSecret: SITE_CLIENT_SECRET }),
    )
    await campus.keys.load()
    const app = await makeApp({ dataFile, campus })
    const { owner } = await users(app, 'owner')
    await app.req('/api/clubs/', { method: 'POST', token: owner, json: { name: 'Contact Club' } })
    await app.admin.patch(CLUB_URL, { approved: true })
    const subscribe = (token: string) => app.req('/api/subscriptions/', { method: 'POST', token, json: { club: CODE } })
    const subscribers = async () => readJson(await app.req(SUBSCRIBERS_URL, { token: owner }))
    const saved = () => directoryOnDisk(dataFile)
    return { ...app, owner, subscribe, subscribers, saved }
  }

  it('shows the email claim of a campus user’s JWT, and null for a user of a service token', async () => {
    const w = await campusWorld()
    expect((await w.subscribe(await provider.token('carla'))).status).toBe(201)
    expect((await w.subscribe(await provider.token('dave'))).status).toBe(201)
    const { tom: token } = await users(w, 'tom')
    expect((await w.subscribe(token)).status).toBe(201)
    expect(await w.subscribers()).toEqual([
      { username: 'carla', email: 'carla@campus.example.edu', subscribed_at: NOW.toISOString() },
      { username: 'dave', email: null, subscribed_at: NOW.toISOString() },
      { username: 'tom', email: null, subscribed_at: NOW.toISOString() },
    ])
    expect(w.saved().users.find((u: Json) => u.username === 'carla').email).toBe('carla@campus.example.edu')
  })

  it('updates the address when the claim changes, and keeps it when a token carries none', async () => {
    const w = await campusWorld()
    expect((await w.subscribe(await provider.token('carla'))).status).toBe(201)
    const moved = await provider.sign({ preferred_username: 'carla', email: 'carla@alumni.example.edu' })
    expect((await w.req('/api/users/me/', { token: moved })).status).toBe(200)
    expect((await w.subscribers())[0].email).toBe('carla@alumni.example.edu')
    const without = await provider.sign({ preferred_username: 'carla' })
    expect((await w.req('/api/users/me/', { token: without })).status).toBe(200)
    const odd = await provider.sign({ preferred_username: 'carla', email: ['not', 'a', 'string'] })
    expect((await w.req('/api/users/me/', { token: odd })).status).toBe(200)
    expect((await w.subscribers())[0].email).toBe('carla@alumni.example.edu')
  })

  it('keeps the email claim of the site’s ID token when a person signs in there', async () => {
    const w = await campusWorld()
    const started = await w.req('/auth/sign-in?next=/', { headers: { accept: 'text/html' } })
    expect(started.status).toBe(303)
    const browser = started.headers
      .getSetCookie()
      .find((cookie) => cookie.startsWith('clubs_sign_in='))!
      .split(';')[0]!
      .slice('clubs_sign_in='.length)
    const back = await provider.logIn(started.headers.get('location')!, 'site')
    const done = await w.req(`${back.pathname}${back.search}`, {
      headers: { accept: 'text/html', cookie: `clubs_sign_in=${browser}` },
    })
    expect(done.status).toBe(303)
    expect(w.saved().users.find((u: Json) => u.username === 'sita').email).toBe('sita@campus.example.edu')
    // A later bearer token without the claim leaves the address the ID token gave.
    expect((await w.subscribe(await provider.sign({ preferred_username: 'sita' }))).status).toBe(201)
    expect(await w.subscribers()).toEqual([
      { username: 'sita', email: 'sita@campus.example.edu', subscribed_at: NOW.toISOString() },
    ])
  })

  it('answers ?format=csv with a CSV file: the header, a row each, formula-like cells defused', async () => {
    const w = await campusWorld()
    await w.subscribe(await provider.token('carla'))
    await w.subscribe(await provider.token('mallory'))
    await w.subscribe(await provider.token('dave'))
    const res = await w.req(`${SUBSCRIBERS_URL}?format=csv`, { token: w.owner })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${CODE}-subscribers.csv"`)
    const text = await res.text()
    expect(text.split('\r\n')[0]).toBe('username,email,subscribed_at')
    expect(parse(text)).toEqual([
      ['username', 'email', 'subscribed_at'],
      ['carla', 'carla@campus.example.edu', NOW.toISOString()],
      ['dave', '', NOW.toISOString()],
      ['mallory', `'=HYPERLINK("http://evil.example")@x.example`, NOW.toISOString()],
    ])
  })
})

describe('data files from before titles and subscription times', () => {
  const FIXTURES = join(import.meta.dir, 'fixtures')

  it('loads a version 1 file with titles "", public false and subscription times null', async () => {
    const tokens = JSON.parse(readFileSync(join(FIXTURES, 'data-v1.tokens.json'), 'utf8'))
    const dataFile = join(tempDir(), 'db.json')
    copyFileSync(join(FIXTURES, 'data-v1.json'), dataFile)
    const { req } = await makeApp({ dataFile, config: { adminToken: tokens.admin } })
    const alice = (path: string) => req(path, { token: tokens.alice })
    expect(await readJson(await alice('/api/clubs/go-club/members/'))).toEqual([
      seat('alice', 'owner'),
      seat('bob', 'officer'),
    ])
    expect(await readJson(await alice('/api/clubs/go-club/officers/'))).toEqual([])
    expect(await readJson(await alice('/api/clubs/go-club/subscribers/'))).toEqual([
      { username: 'alice', email: null, subscribed_at: null },
    ])
  })

  it('loads a file of the current format written before them, with nothing lost', async () => {
    const dataFile = join(tempDir(), 'db.json')
    const w = await world({ dataFile })
    await w.as('other')('/api/subscriptions/', { method: 'POST', json: { club: CODE } })
    await w.store.close()
    // As the previous release wrote it: no title, public, created_at or email anywhere.
    const saved = directoryOnDisk(dataFile)
    const strip = (records: Json[], fields: string[]) =>
      records.map((record) => Object.fromEntries(Object.entries(record).filter(([key]) => !fields.includes(key))))
    const older = {
      ...saved,
      memberships: strip(saved.memberships, ['title', 'public']),
      subscriptions: strip(saved.subscriptions, ['created_at']),
      favorites: strip(saved.favorites, ['created_at']),
      users: strip(saved.users, ['email']),
    }
    writeFileSync(dataFile, JSON.stringify(older))
    const again = await makeApp({ dataFile })
    expect(await readJson(await again.admin.get(MEMBERS_URL))).toEqual([
      seat('owner', 'owner'),
      seat('officer', 'officer'),
      seat('member', 'member'),
    ])
    expect(await readJson(await again.admin.get(SUBSCRIBERS_URL))).toEqual([
      { username: 'other', email: null, subscribed_at: null },
    ])
    // And the next write keeps every membership, now with its title and listing.
    expect((await again.admin.patch(`${MEMBERS_URL}member/`, { title: 'Scribe' })).status).toBe(200)
    const written = directoryOnDisk(dataFile)
    expect(written.memberships.filter((m: Json) => m.club === CODE)).toEqual([
      { club: CODE, username: 'owner', role: 'owner', title: '', public: false },
      { club: CODE, username: 'officer', role: 'officer', title: '', public: false },
      { club: CODE, username: 'member', role: 'member', title: 'Scribe', public: false },
    ])
  })
})
