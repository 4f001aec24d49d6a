import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { campusSettings, startProvider, type TestProvider } from '../harness/oidc-provider'
import { makeApp, readJson, tempDir } from '../harness/app'
import { CampusSignIn } from '../src/edge/oidc'
import { users } from '../harness/users'

// Disabling and promoting users (docs/reference.md §13): PATCH /api/users/{username}/ by admins. A
// disabled user is refused on every request whatever the credential (service token, campus JWT,
// site session) with 403 "This account is disabled."; their clubs, memberships and favorites
// stay, and enabling lets them back. The bootstrap admin is never disabled or demoted.

const DISABLED = { detail: 'This account is disabled.' }
const FORM = 'application/x-www-form-urlencoded'

let provider: TestProvider
beforeAll(async () => {
  provider = await startProvider({ alice: { claims: { preferred_username: 'alice', groups: ['students'] } } })
})
afterAll(async () => {
  await provider.stop()
})

/** An app with campus sign-in where bob owns an approved club he favors, and carol holds a token. */
async function withBob(dataFile?: string) {
  const campus = new CampusSignIn(campusSettings(provider.issuer))
  await campus.keys.load()
  const app = await makeApp({ dataFile, campus })
  const tokens = await users(app, 'bob', 'carol')
  expect(
    (await app.req('/api/clubs/', { method: 'POST', token: tokens.bob, json: { name: 'Bob Circle' } })).status,
  ).toBe(201)
  expect((await app.admin.patch('/api/clubs/bob-circle/', { approved: true })).status).toBe(200)
  expect(
    (await app.req('/api/favorites/', { method: 'POST', token: tokens.bob, json: { club: 'bob-circle' } })).status,
  ).toBe(201)
  const patchUser = (username: string, body: unknown, token?: string) =>
    token === undefined
      ? app.admin.patch(`/api/users/${username}/`, body)
      : app.req(`/api/users/${username}/`, { method: 'PATCH', token, json: body })
  return { ...app, tokens, patchUser }
}

describe('PATCH /api/users/{username}/', () => {
  it('disables a user: every request with their token is a 403, reads and writes alike; enabling lets them back', async () => {
    const { req, admin, tokens, patchUser } = await withBob()
    const res = await patchUser('bob', { is_active: false })
    expect([res.status, await readJson(res)]).toEqual([200, { username: 'bob', is_admin: false, is_active: false }])

    for (const [path, method, json] of [
      ['/api/users/me/', 'GET', undefined],
      ['/api/clubs/', 'GET', undefined],
      ['/api/favorites/', 'GET', undefined],
      ['/api/clubs/bob-circle/', 'PATCH', { subtitle: 'still mine?' }],
      ['/api/clubs/', 'POST', { name: 'Another Circle' }],
    ] as const) {
      const refused = await req(path, { method, token: tokens.bob, json })
      expect([path, method, refused.status, await readJson(refused)]).toEqual([path, method, 403, DISABLED])
    }
    // Nothing of theirs is gone, and nothing they tried was done.
    const club = await readJson(await admin.get('/api/clubs/bob-circle/'))
    expect([club.subtitle, club.favorite_count]).toEqual(['', 1])
    expect((await admin.get('/api/clubs/another-circle/')).status).toBe(404)

    expect(await readJson(await patchUser('bob', { is_active: true }))).toEqual({
      username: 'bob',
      is_admin: false,
      is_active: true,
    })
    expect(await readJson(await req('/api/users/me/', { token: tokens.bob }))).toEqual({
      username: 'bob',
      is_admin: false,
    })
    expect((await readJson(await req('/api/favorites/', { token: tokens.bob }))).map((f: any) => f.club.code)).toEqual([
      'bob-circle',
    ])
  })

  it('shows is_active in the users list', async () => {
    const { admin, patchUser } = await withBob()
    await patchUser('carol', { is_active: false })
    expect(await readJson(await admin.get('/api/users/'))).toEqual([
      { username: 'admin', is_admin: true, is_active: true },
      { username: 'bob', is_admin: false, is_active: true },
      { username: 'carol', is_admin: false, is_active: false },
    ])
  })

  it('makes and unmakes an admin at once', async () => {
    const { req, tokens, patchUser } = await withBob()
    expect((await req('/api/users/', { token: tokens.carol })).status).toBe(403)
    expect(await readJson(await patchUser('carol', { is_admin: true }))).toEqual({
      username: 'carol',
      is_admin: true,
      is_active: true,
    })
    expect((await req('/api/users/', { token: tokens.carol })).status).toBe(200)
    // An admin made here disables others too.
    expect((await patchUser('bob', { is_active: false }, tokens.carol)).status).toBe(200)
    await patchUser('carol', { is_admin: false })
    expect((await req('/api/users/', { token: tokens.carol })).status).toBe(403)
  })

  it('never disables nor demotes the bootstrap admin (400, naming the field)', async () => {
    const { admin, patchUser } = await withBob()
    for (const [body, field] of [
      [{ is_active: false }, 'is_active'],
      [{ is_admin: false }, 'is_admin'],
    ] as const) {
      const res = await patchUser('admin', body)
      expect(res.status).toBe(400)
      expect(Object.keys(await readJson(res))).toEqual([field])
    }
    expect((await admin.get('/api/users/me/')).status).toBe(200)
    expect(await readJson(await patchUser('admin', { is_active: true }))).toEqual({
      username: 'admin',
      is_admin: true,
      is_active: true,
    })
  })

  it('is a 403 to other users (themselves included), a 401 anonymous, a 404 for nobody, a 400 for a bad body', async () => {
    const { req, tokens, patchUser } = await withBob()
    expect((await patchUser('carol', { is_admin: true }, tokens.bob)).status).toBe(403)
    expect((await patchUser('bob', { is_admin: true }, tokens.bob)).status).toBe(403)
    expect((await req('/api/users/bob/', { method: 'PATCH', json: { is_active: false } })).status).toBe(401)
    expect((await patchUser('nobody', { is_active: false })).status).toBe(404)
    for (const [body, key] of [
      [{ is_active: 'no' }, 'is_active'],
      [{ is_admin: 1 }, 'is_admin'],
      [{ username: 'eve' }, 'username'],
      [[], 'non_field_errors'],
    ] as const) {
      const res = await patchUser('bob', body)
      expect([JSON.stringify(body), res.status, Object.keys(await readJson(res))]).toEqual([
        JSON.stringify(body),
        400,
        [key],
      ])
    }
    expect(await readJson(await req('/api/users/me/', { token: tokens.bob }))).toEqual({
      username: 'bob',
      is_admin: false,
    })
  })

  it('keeps a user disabled across a restart on the same data file', async () => {
    const dir = tempDir('clubs-disabled-')
    const file = join(dir, 'db.json')
    const first = await withBob(file)
    await first.patchUser('bob', { is_active: false })
    await first.store.close()
    const again = await makeApp({ dataFile: file })
    const res = await again.req('/api/users/me/', { token: first.tokens.bob })
    expect([res.status, await readJson(res)]).toEqual([403, DISABLED])
  })
})

describe('a disabled user, whatever the credential', () => {
  it('refuses a campus user’s JWTs, new ones too, and lets them back when enabled', async () => {
    const { req, patchUser } = await withBob()
    const jwt = await provider.token('alice')
    expect((await req('/api/users/me/', { token: jwt })).status).toBe(200)
    expect((await patchUser('alice', { is_active: false })).status).toBe(200)
    for (const token of [jwt, await provider.token('alice')]) {
      const res = await req('/api/favorites/', { token })
      expect([res.status, await readJson(res)]).toEqual([403, DISABLED])
    }
    await patchUser('alice', { is_active: true })
    expect((await req('/api/users/me/', { token: jwt })).status).toBe(200)
  })

  it('refuses a site session on every page and a new site sign-in with their token', async () => {
    const { req, tokens, patchUser } = await withBob()
    const signIn = (token: string) =>
      req('/sign-in', {
        method: 'POST',
        headers: { 'content-type': FORM, origin: 'http://localhost' },
        body: new URLSearchParams({ token, next: '/' }),
      })
    const signedIn = await signIn(tokens.bob)
    expect(signedIn.status).toBe(303)
    const cookie = signedIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('clubs_session='))!
      .split(';')[0]
    const page = (path: string) => req(path, { headers: { accept: 'text/html', cookie } })
    expect((await page('/clubs/bob-circle')).status).toBe(200)

    await patchUser('bob', { is_active: false })
    for (const path of ['/', '/clubs/bob-circle']) {
      const res = await page(path)
      expect([path, res.status]).toEqual([path, 403])
      expect(await res.text()).toContain('This account is disabled.')
    }
    const again = await signIn(tokens.bob)
    expect(again.status).toBe(403)
    expect(again.headers.getSetCookie().some((c) => c.startsWith('clubs_session='))).toBe(false)

    await patchUser('bob', { is_active: true })
    expect((await page('/clubs/bob-circle')).status).toBe(200)
  })

  it('lets them sign out: their 403 page offers Sign out, which ends the session for good', async () => {
    const { req, tokens, patchUser } = await withBob()
    const signedIn = await req('/sign-in', {
      method: 'POST',
      headers: { 'content-type': FORM, origin: 'http://localhost' },
      body: new URLSearchParams({ token: tokens.bob, next: '/' }),
    })
    const cookie = signedIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('clubs_session='))!
      .split(';')[0]!
    const page = () => req('/clubs/bob-circle', { headers: { accept: 'text/html', cookie } })
    await patchUser('bob', { is_active: false })

    const refused = await page()
    const html = await refused.text()
    expect([refused.status, refused.headers.get('cache-control')]).toEqual([403, 'no-store'])
    expect(html).toContain('This account is disabled.')
    // Sign out, and nothing else a signed-in person has: no My clubs.
    expect(html).toContain('Sign out <span class="who">(bob)</span>')
    expect(html).not.toContain('href="/my-clubs"')
    const csrf = /<form method="post" action="\/sign-out"[^]*?name="csrf" value="([^"]+)"/.exec(html)![1]!
    const signOut = (body: Record<string, string>) =>
      req('/sign-out', {
        method: 'POST',
        headers: { 'content-type': FORM, origin: 'http://localhost', cookie },
        body: new URLSearchParams(body),
      })
    // The form's token is still checked for them.
    expect((await signOut({})).status).toBe(403)
    const out = await signOut({ csrf })
    expect([out.status, out.headers.get('location')]).toEqual([303, '/'])
    expect(out.headers.getSetCookie()).toContainEqual(expect.stringMatching(/^clubs_session=; .*Max-Age=0/))

    // Enabled again, the session they ended stays ended: the page is the public one.
    await patchUser('bob', { is_active: true })
    const after = await page()
    expect(after.status).toBe(200)
    expect(await after.text()).not.toContain('Sign out')
  })
})
