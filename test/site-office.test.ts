import { describe, expect, it } from 'bun:test'
import { ADMIN_TOKEN, makeApp, readJson } from '../harness/app'
import { pageWeight, siteSession, textOf } from '../harness/site-session'
import { users } from '../harness/users'

// The office on the campus site (docs/reference.md §22): /admin/users finds users a page at a time, adds
// one (its token shown once), and each user's page disables and enables them, makes or unmakes an
// admin, issues a new token after a confirmation and ends their sessions — what /api/users/ does,
// checked through the API. To anyone but an admin the office is a 404.

/** The sample directory with the admin and "eve" (not an admin) signed in on the site. */
async function office() {
  const app = await makeApp()
  const { eve: eveToken } = await users(app, 'eve')
  const admin = await siteSession(app, ADMIN_TOKEN)
  const eve = await siteSession(app, eveToken)
  const usersApi = async () => (await readJson(await app.admin.get('/api/users/'))) as Record<string, unknown>[]
  const userApi = async (username: string) => (await usersApi()).find((user) => user.username === username)
  /** Adds a user through the API. */
  const issue = (username: string) => users(app, username)
  return { ...app, issue, eveToken, admin, eve, userApi }
}

/** The token the answer page shows in its read-only field. */
const tokenOn = (html: string) => /<input id="token" type="text" value="([^"]+)"/.exec(html)?.[1]

describe('the office’s users', () => {
  it('is linked for admins only, and is a 404 to everyone else, signed in or not', async () => {
    const { admin, eve, req } = await office()
    expect(await (await admin.get('/')).text()).toContain('<a href="/admin/users">Users</a>')
    expect(await (await eve.get('/')).text()).not.toContain('/admin/users')
    for (const path of ['/admin/users', '/admin/users/eve', '/admin/users/eve/token']) {
      expect((await eve.get(path)).status).toBe(404)
      expect((await req(path, { headers: { accept: 'text/html' } })).status).toBe(404)
    }
  })

  it('lists the users with their standing, finds them by username, and pages them', async () => {
    const { admin, issue } = await office()
    for (let i = 0; i < 55; i++) await issue(`student${String(i).padStart(2, '0')}`)
    const res = await admin.get('/admin/users')
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const first = await res.text()
    expect(textOf(first)).toContain('57 users')
    expect(first).toContain('<a href="/admin/users/admin">admin</a></td><td>Admin</td><td>Active</td>')
    expect(first).toContain('Page 1 of 2')
    expect(first).toContain('href="/admin/users?page=2"')
    const second = await (await admin.get('/admin/users?page=2')).text()
    expect([...second.matchAll(/<a href="\/admin\/users\/([^"]+)">/g)].map((m) => m[1])).toEqual([
      'student48',
      'student49',
      'student50',
      'student51',
      'student52',
      'student53',
      'student54',
    ])
    const found = await (await admin.get('/admin/users?search=EVE')).text()
    expect(textOf(found)).toContain('1 user found')
    expect([...found.matchAll(/<a href="\/admin\/users\/([^"]+)">/g)].map((m) => m[1])).toEqual(['eve'])
    expect(found).toContain('value="eve"')
    for (const [path, status] of [
      ['/admin/users?page=0', 400],
      ['/admin/users?page=two', 400],
      ['/admin/users?page=3', 404],
      [`/admin/users?search=${'x'.repeat(101)}`, 400],
    ] as const)
      expect({ path, status: (await admin.get(path)).status }).toEqual({ path, status })
  })

  it('adds a user and shows their token once, no-store; the token opens the API', async () => {
    const { admin, req, userApi } = await office()
    const res = await admin.post('/admin/users', { username: 'nina', is_admin: 'true' })
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const html = await res.text()
    expect(html).toContain('<label for="token">Token for nina</label>')
    const token = tokenOn(html)!
    expect(token).toMatch(/^[A-Za-z0-9_-]{40,}$/)
    expect(await readJson(await req('/api/users/me/', { token }))).toEqual({ username: 'nina', is_admin: true })
    expect(await userApi('nina')).toEqual({ username: 'nina', is_admin: true, is_active: true })
    // Never again: the list and the user's page do not hold it.
    for (const path of ['/admin/users', '/admin/users/nina'])
      expect(await (await admin.get(path)).text()).not.toContain(token)
  })

  it('refuses a bad or taken username beside the field and in a summary, the values kept, nothing added', async () => {
    const { admin, userApi } = await office()
    for (const [username, message] of [
      ['Not Valid', 'Use 1 to 64 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit.'],
      ['eve', 'A user with that username already exists.'],
      ['', 'Use 1 to 64 lowercase letters'],
    ] as const) {
      const res = await admin.post('/admin/users', { username, is_admin: 'true' })
      expect(res.status).toBe(400)
      const html = await res.text()
      expect(html).toMatch(
        /<input type="text" name="username" value(="[^"]*")?[^>]*id="new-username" aria-invalid="true"/,
      )
      if (username) expect(html).toContain(`name="username" value="${username}"`)
      expect(html).toMatch(/<span id="new-username-error" class="error">[^<]+<\/span>/)
      expect(textOf(html)).toContain(message)
      expect(html).toContain('There is a problem; nothing was changed')
      expect(html).toContain('<a href="#new-username">Username:')
      expect(html).toMatch(/id="new-is-admin"/)
      expect(html).toMatch(/name="is_admin" value="true" checked/)
    }
    expect(await userApi('not valid')).toBeUndefined()
  })

  it('disables and enables a user, and makes and unmakes an admin, as the API then shows', async () => {
    const { admin, eve, eveToken, req, userApi } = await office()
    const page = await (await admin.get('/admin/users/eve')).text()
    expect(page).toContain('<h1>eve</h1>')
    expect(page).toMatch(/<button type="submit" name="is_active" value="false" class="danger">Disable<\/button>/)
    for (const [fields, done, after] of [
      [{ is_active: 'false' }, 'disabled', { is_active: false, is_admin: false }],
      [{ is_active: 'true' }, 'enabled', { is_active: true, is_admin: false }],
      [{ is_admin: 'true' }, 'admin', { is_active: true, is_admin: true }],
      [{ is_admin: 'false' }, 'not-admin', { is_active: true, is_admin: false }],
    ] as const) {
      const res = await admin.post('/admin/users/eve', fields)
      expect([res.status, res.headers.get('location')]).toEqual([303, `/admin/users/eve?done=${done}`])
      expect(await userApi('eve')).toEqual({ username: 'eve', ...after })
      if (done === 'disabled') {
        expect((await req('/api/users/me/', { token: eveToken })).status).toBe(403)
        expect((await eve.get('/my-clubs')).status).toBe(403)
        expect(textOf(await (await admin.get(res.headers.get('location')!)).text())).toContain(
          'eve is disabled: every request of theirs is refused.',
        )
      }
    }
    expect((await eve.get('/my-clubs')).status).toBe(200)
  })

  it('says the domain’s refusal on the user’s page: the bootstrap admin is never disabled, and its token is CLUBS_ADMIN_TOKEN', async () => {
    const { admin, userApi } = await office()
    const disabled = await admin.post('/admin/users/admin', { is_active: 'false' })
    expect(disabled.status).toBe(400)
    expect(textOf(await disabled.text())).toContain('The "admin" user cannot be disabled.')
    expect((await admin.get('/admin/users/admin/token')).status).toBe(400)
    const token = await admin.post('/admin/users/admin/token')
    expect(token.status).toBe(400)
    expect(textOf(await token.text())).toContain('The "admin" user\'s token is CLUBS_ADMIN_TOKEN')
    expect(await userApi('admin')).toEqual({ username: 'admin', is_admin: true, is_active: true })
    for (const fields of [{}, { is_active: 'maybe' }] as Record<string, string>[])
      expect((await admin.post('/admin/users/eve', fields)).status).toBe(400)
    expect(await userApi('eve')).toEqual({ username: 'eve', is_admin: false, is_active: true })
  })

  it('issues a new token after a confirmation: shown once, the old token and its session ended; the form sent twice is a 409', async () => {
    const { admin, eve, eveToken, req } = await office()
    const confirm = await (await admin.get('/admin/users/eve/token')).text()
    expect(confirm).toContain('Issue a new token for eve?')
    expect(confirm).toContain('Their present token stops working at once, and so does every site session it started')
    expect(confirm).toMatch(/<form method="post" action="\/admin\/users\/eve\/token"/)
    expect((await req('/api/users/me/', { token: eveToken })).status).toBe(200)
    const seen = /name="seen" value="([^"]+)"/.exec(confirm)![1]!
    expect(confirm).not.toContain(eveToken)
    const res = await admin.post('/admin/users/eve/token', { seen })
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const token = tokenOn(await res.text())!
    expect((await req('/api/users/me/', { token: eveToken })).status).toBe(401)
    expect((await req('/api/users/me/', { token })).status).toBe(200)
    // The same form sent again (a reload of the answer) issues no other token: the one shown still works.
    const again = await admin.post('/admin/users/eve/token', { seen })
    expect(again.status).toBe(409)
    expect(textOf(await again.text())).toContain('A new token was issued for eve since this page was shown')
    expect((await req('/api/users/me/', { token })).status).toBe(200)
    const after = await eve.get('/my-clubs')
    expect([after.status, after.headers.get('location')]).toEqual([303, '/sign-in?next=%2Fmy-clubs'])
  })

  it('ends every session of a user, and leaves their token as it is', async () => {
    const { admin, eve, eveToken, req } = await office()
    expect((await eve.get('/my-clubs')).status).toBe(200)
    const res = await admin.post('/admin/users/eve/sessions')
    expect([res.status, res.headers.get('location')]).toEqual([303, '/admin/users/eve?done=sessions'])
    expect((await eve.get('/my-clubs')).status).toBe(303)
    expect((await req('/api/users/me/', { token: eveToken })).status).toBe(200)
    expect(textOf(await (await admin.get('/admin/users/eve?done=sessions')).text())).toContain(
      'Every site session of eve has ended.',
    )
  })

  it('refuses every form to a non-admin (404), without the CSRF token or from another site (403), and an unknown user (404); nothing changes', async () => {
    const { admin, eve, issue, userApi } = await office()
    await issue('sam')
    const forms: [string, Record<string, string>][] = [
      ['/admin/users', { username: 'mallory' }],
      ['/admin/users/sam', { is_active: 'false' }],
      ['/admin/users/sam', { is_admin: 'true' }],
      ['/admin/users/sam/token', {}],
      ['/admin/users/sam/sessions', {}],
    ]
    for (const [path, fields] of forms) {
      expect({ path, status: (await eve.post(path, fields)).status }).toEqual({ path, status: 404 })
      expect({ path, status: (await admin.post(path, { ...fields, csrf: 'wrong' })).status }).toEqual({
        path,
        status: 403,
      })
      expect({ path, status: (await admin.post(path, { ...fields, csrf: null })).status }).toEqual({
        path,
        status: 403,
      })
      const forged = await admin.post(path, fields, { origin: 'https://evil.example' })
      expect({ path, status: forged.status }).toEqual({ path, status: 403 })
    }
    expect(await userApi('mallory')).toBeUndefined()
    expect(await userApi('sam')).toEqual({ username: 'sam', is_admin: false, is_active: true })
    for (const path of ['/admin/users/nobody', '/admin/users/nobody/token'])
      expect((await admin.get(path)).status).toBe(404)
    for (const path of ['/admin/users/nobody', '/admin/users/nobody/token', '/admin/users/nobody/sessions'])
      expect((await admin.post(path, { is_active: 'false' })).status).toBe(404)
  })

  it('weighs at most 60 KB gzipped with all it loads, nothing from another host', async () => {
    const { admin, req } = await office()
    const load = (path: string) =>
      req(path, { headers: { accept: 'text/html', 'accept-encoding': 'gzip', cookie: admin.cookie } })
    for (const path of ['/admin/users', '/admin/users/eve', '/admin/users/eve/token']) {
      const { bytes, offHost } = await pageWeight(load, path)
      expect({ path, offHost, light: bytes <= 60_000 }).toEqual({ path, offHost: [], light: true })
    }
  })
})
