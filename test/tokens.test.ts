import { afterAll, afterEach, describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN_TOKEN, makeApp, ON_POSTGRES, readJson, tempDir, testDatabase } from '../harness/app'
import { until } from '../harness/webhook-receiver'
import { snapshotProblem, upgradeSnapshot } from '../src/domain/snapshot-format'
import { ENDPOINTS } from '../src/edge/endpoints'
import { METHODS } from '../src/edge/endpoint'
import { blockWrites } from '../harness/write-fault'
import { directoryOnDisk } from '../harness/on-disk'
import { users } from '../harness/users'

// The token lifecycle (docs/reference.md §13): admins list users; a user's token is issued again or
// revoked by an admin or by that user, and the old token answers 401 at once on every endpoint,
// cached answers included; the bootstrap admin's token is the environment's.

type App = Awaited<ReturnType<typeof makeApp>>

function dataFile(): string {
  return join(tempDir('clubs-tokens-'), 'db.json')
}

/** An app where alice (owner of an approved club, with a favorite) and dean (an admin) hold tokens. */
async function withUsers(options: { dataFile?: string; databaseUrl?: string } = {}) {
  const app = await makeApp(options)
  const tokens = await users(app, 'alice', 'bob', { username: 'dean', is_admin: true })
  const created = await app.req('/api/clubs/', { method: 'POST', token: tokens.alice, json: { name: 'Token Circle' } })
  expect(created.status).toBe(201)
  expect((await app.admin.patch('/api/clubs/token-circle/', { approved: true })).status).toBe(200)
  const favorite = await app.req('/api/favorites/', {
    method: 'POST',
    token: tokens.alice,
    json: { club: 'token-circle' },
  })
  expect(favorite.status).toBe(201)
  return { ...app, tokens }
}

const tokenPath = (username: string) => `/api/users/${username}/token/`
const me = (app: App, token: string) => app.req('/api/users/me/', { token })

/** Every method of every endpoint, its path filled in: where a revoked token must be refused. */
const EVERY_ROUTE = ENDPOINTS.flatMap((page) =>
  METHODS.filter((method) => page.actions[method]).map((method) => ({
    method,
    path: page.path.replace(':code', 'token-circle').replace(':username', 'alice'),
  })),
)

describe('GET /api/users/', () => {
  it('lists every user to admins, the bootstrap admin included, ordered by username', async () => {
    const { admin, req, tokens } = await withUsers()
    const expected = [
      { username: 'admin', is_admin: true, is_active: true },
      { username: 'alice', is_admin: false, is_active: true },
      { username: 'bob', is_admin: false, is_active: true },
      { username: 'dean', is_admin: true, is_active: true },
    ]
    expect(await readJson(await admin.get('/api/users/'))).toEqual(expected)
    expect(await readJson(await req('/api/users/', { token: tokens.dean }))).toEqual(expected)
  })

  it('is a 403 to other users and a 401 without a token', async () => {
    const { req, tokens } = await withUsers()
    expect((await req('/api/users/', { token: tokens.alice })).status).toBe(403)
    expect((await req('/api/users/')).status).toBe(401)
  })
})

describe('POST /api/users/{username}/token/', () => {
  it('gives a user a new token of their own asking; the old one answers 401 from then on', async () => {
    const app = await withUsers()
    const res = await app.req(tokenPath('alice'), { method: 'POST', token: app.tokens.alice })
    expect(res.status).toBe(201)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const body = await readJson(res)
    expect(Object.keys(body).sort()).toEqual(['token', 'username'])
    expect(body.username).toBe('alice')
    expect(body.token).not.toBe(app.tokens.alice)
    expect((await me(app, app.tokens.alice)).status).toBe(401)
    expect(await readJson(await me(app, body.token))).toEqual({ username: 'alice', is_admin: false })
  })

  it('lets an admin user issue anyone’s token', async () => {
    const app = await withUsers()
    const res = await app.req(tokenPath('bob'), { method: 'POST', token: app.tokens.dean })
    expect(res.status).toBe(201)
    expect((await me(app, app.tokens.bob)).status).toBe(401)
    expect((await me(app, (await readJson(res)).token)).status).toBe(200)
  })
})

describe('DELETE /api/users/{username}/token/', () => {
  it('revokes the token; the user keeps clubs, memberships and favorites, and an admin can issue a new token', async () => {
    const app = await withUsers()
    const revoked = await app.req(tokenPath('alice'), { method: 'DELETE', token: app.tokens.alice })
    expect(revoked.status).toBe(204)
    expect(await revoked.text()).toBe('')
    expect((await me(app, app.tokens.alice)).status).toBe(401)
    expect(await readJson(await app.admin.get('/api/clubs/token-circle/members/'))).toEqual([
      { username: 'alice', role: 'owner', title: '', public: false },
    ])

    const { token } = await readJson(await app.admin.post(tokenPath('alice'), {}))
    const favorites = await readJson(await app.req('/api/favorites/', { token }))
    expect(favorites.map((f: { club: { code: string } }) => f.club.code)).toEqual(['token-circle'])
    expect((await app.req('/api/clubs/token-circle/', { method: 'PATCH', token, json: { size: 2 } })).status).toBe(200)
  })

  it('answers 204 again for a user who holds no token', async () => {
    const app = await withUsers()
    expect((await app.admin.delete(tokenPath('bob'))).status).toBe(204)
    expect((await app.admin.delete(tokenPath('bob'))).status).toBe(204)
  })
})

describe('who may issue or revoke a token', () => {
  const cases = [
    { who: 'another user', as: 'bob', target: 'alice', status: 403 },
    { who: 'a user naming someone unknown', as: 'bob', target: 'nobody', status: 403 },
    { who: 'a user naming the bootstrap admin', as: 'bob', target: 'admin', status: 403 },
    { who: 'an admin naming someone unknown', as: 'admin', target: 'nobody', status: 404 },
    { who: 'the bootstrap admin naming itself', as: 'admin', target: 'admin', status: 400 },
    { who: 'an admin user naming the bootstrap admin', as: 'dean', target: 'admin', status: 400 },
    { who: 'nobody', as: null, target: 'alice', status: 401 },
  ] as const
  for (const method of ['POST', 'DELETE'] as const)
    for (const { who, as, target, status } of cases)
      it(`answers ${status} to ${method} by ${who}, and alice's token still works`, async () => {
        const app = await withUsers()
        const token = as === null ? null : as === 'admin' ? ADMIN_TOKEN : app.tokens[as]
        const res = await app.req(tokenPath(target), { method, token })
        expect(res.status).toBe(status)
        if (status === 400) expect((await readJson(res)).detail).toContain('CLUBS_ADMIN_TOKEN')
        expect((await me(app, app.tokens.alice)).status).toBe(200)
        expect((await app.admin.get('/api/users/me/')).status).toBe(200)
      })
})

describe('a token taken back, everywhere at once', () => {
  for (const how of ['revoked', 'issued again'] as const)
    it(`answers 401 to a token ${how} on every endpoint and method, cached answers included`, async () => {
      const app = await withUsers()
      const old = app.tokens.alice
      // Put alice's answers in the caches: her list, a club's detail, and their ETags.
      const list = await app.req('/api/clubs/', { token: old })
      expect((await app.req('/api/clubs/', { token: old })).status).toBe(200)
      expect((await app.req('/api/clubs/token-circle/', { token: old })).status).toBe(200)
      const etag = list.headers.get('etag')!

      await app.req(tokenPath('alice'), { method: how === 'revoked' ? 'DELETE' : 'POST', token: old })

      expect((await app.req('/api/clubs/', { token: old })).status).toBe(401)
      expect((await app.req('/api/clubs/', { token: old, headers: { 'if-none-match': etag } })).status).toBe(401)
      for (const { method, path } of EVERY_ROUTE) {
        const res = await app.req(path, { method, token: old, json: method === 'GET' ? undefined : {} })
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 401 })
        expect(res.headers.get('www-authenticate')).toStartWith('Bearer')
      }
    })

  it('stays taken back after a restart, and the new token stays good', async () => {
    const file = dataFile()
    const app = await withUsers({ dataFile: file })
    const { token } = await readJson(await app.req(tokenPath('alice'), { method: 'POST', token: app.tokens.alice }))
    await app.admin.delete(tokenPath('bob'))
    const again = await makeApp({ dataFile: file })
    expect((await me(again, app.tokens.alice)).status).toBe(401)
    expect((await me(again, app.tokens.bob)).status).toBe(401)
    expect((await me(again, token)).status).toBe(200)
    const bob = directoryOnDisk(file).users.find((user: { username: string }) => user.username === 'bob')
    expect(bob.token_sha256).toBeNull()
  })

  it('leaves the old token working when the change cannot be saved (503)', async () => {
    const file = dataFile()
    const app = await withUsers({ dataFile: file })
    const blocked = blockWrites(file)
    try {
      const refused = await app.req(tokenPath('alice'), { method: 'POST', token: app.tokens.alice })
      expect(refused.status).toBe(503)
      expect((await app.admin.delete(tokenPath('bob'))).status).toBe(503)
    } finally {
      blocked.unblock()
    }
    expect((await me(app, app.tokens.alice)).status).toBe(200)
    expect((await me(app, app.tokens.bob)).status).toBe(200)
  })
})

describe('users without a token in the data file', () => {
  it('accepts token_sha256 null, keeps refusing a malformed hash, and still loads a version 1 file', () => {
    const v1 = JSON.parse(readFileSync(join(import.meta.dir, 'fixtures', 'data-v1.json'), 'utf8'))
    expect(snapshotProblem(v1)).toBeNull()
    const current = upgradeSnapshot(v1)
    const withUser = (token_sha256: unknown) => ({
      ...current,
      users: [{ username: 'campus', is_admin: false, token_sha256, created_at: '2026-11-22T12:00:00.000Z' }],
    })
    expect(snapshotProblem(withUser(null))).toBeNull()
    expect(snapshotProblem(withUser('not-a-hash'))).not.toBeNull()
    expect(snapshotProblem(withUser(undefined))).not.toBeNull()
  })
})

// The site's sessions end with the credential that started them (docs/reference.md §20): a token taken
// back ends the sessions it started at once, a new CLUBS_ADMIN_TOKEN ends the old one's, and an
// admin can end all of a user's sessions. On both stores (CLUBS_TEST_STORE=postgres).

const FORM = 'application/x-www-form-urlencoded'
const CLUB_PAGE = '/clubs/token-circle'

/** Signs in on the site with `token`; answers the session id its cookie holds. */
async function signIn(app: App, token: string): Promise<string> {
  const res = await app.req('/sign-in', {
    method: 'POST',
    headers: { 'content-type': FORM, origin: 'http://localhost' },
    body: new URLSearchParams({ token, next: CLUB_PAGE }),
  })
  expect(res.status).toBe(303)
  return /^clubs_session=([^;]+)/.exec(res.headers.getSetCookie().find((c) => c.startsWith('clubs_session='))!)![1]!
}

const cookie = (session: string) => ({ accept: 'text/html', cookie: `clubs_session=${session}` })

/** Whom a club page says is signed in with `session`, or null when it opens no session. */
async function whoIs(app: App, session: string): Promise<string | null> {
  const html = await (await app.req(CLUB_PAGE, { headers: cookie(session) })).text()
  return /Sign out <span class="who">\(([^)]*)\)/.exec(html)?.[1] ?? null
}

/** What My clubs answers `session`: 200, or the way to sign in when the session has ended. */
async function myClubs(app: App, session: string) {
  const res = await app.req('/my-clubs', { headers: cookie(session) })
  return [res.status, res.headers.get('location')]
}
const SIGN_IN_FIRST = [303, '/sign-in?next=%2Fmy-clubs']

describe('a site session ends with the token that started it', () => {
  for (const how of ['revoked', 'issued again'] as const)
    for (const by of ['alice', 'an admin'] as const)
      it(`ends alice's sessions at once when ${by} has her token ${how}; others' stay`, async () => {
        const app = await withUsers()
        const alices = [await signIn(app, app.tokens.alice), await signIn(app, app.tokens.alice)]
        const bobs = await signIn(app, app.tokens.bob)
        expect(await myClubs(app, alices[0]!)).toEqual([200, null])

        const res = await app.req(tokenPath('alice'), {
          method: how === 'revoked' ? 'DELETE' : 'POST',
          token: by === 'alice' ? app.tokens.alice : app.tokens.dean,
        })
        expect(res.status).toBe(how === 'revoked' ? 204 : 201)

        for (const session of alices) {
          expect(await whoIs(app, session)).toBeNull()
          expect(await myClubs(app, session)).toEqual(SIGN_IN_FIRST)
        }
        expect(await whoIs(app, bobs)).toBe('bob')
        if (how === 'issued again')
          expect(await whoIs(app, await signIn(app, (await readJson(res)).token))).toBe('alice')
      })

  it('ends the sessions of an admin user whose token is taken back: Review is refused', async () => {
    const app = await withUsers()
    const deans = await signIn(app, app.tokens.dean)
    expect((await app.req('/review', { headers: cookie(deans) })).status).toBe(200)
    expect((await app.admin.delete(tokenPath('dean'))).status).toBe(204)
    const review = await app.req('/review', { headers: cookie(deans) })
    expect([review.status, review.headers.get('location')]).toEqual([303, '/sign-in?next=%2Freview'])
  })
})

describe('a restart with a new CLUBS_ADMIN_TOKEN', () => {
  /** Apps on a database of the test's own, which the harness does not close. */
  const closing: App[] = []
  afterEach(async () => {
    for (const app of closing.splice(0)) await app.store.close()
  })

  /** An app over a directory that outlives it (a data file, or a database), and its restart with `adminToken`. */
  async function restartable() {
    const where = ON_POSTGRES ? { databaseUrl: await testDatabase() } : { dataFile: dataFile() }
    const first = await withUsers(where)
    const restart = async (adminToken: string) => {
      if (ON_POSTGRES) await first.store.close()
      const app = await makeApp({ ...where, config: { adminToken } })
      if (ON_POSTGRES) closing.push(app)
      return app
    }
    return { first, restart }
  }

  /** The Review page's decision form for `code`, as the admin saw it: what a browser would post back. */
  async function decisionForm(app: App, session: string, code: string) {
    const html = await (await app.req('/review', { headers: cookie(session) })).text()
    const form = new RegExp(`<form method="post" action="/review/${code}"[^]*?</form>`).exec(html)![0]
    const value = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(form)![1]!
    return new URLSearchParams({ csrf: value('csrf'), seen: value('seen'), decision: 'approve', comment: '' })
  }

  it('ends the sessions the old token started: neither Review nor approving opens; the new token signs in', async () => {
    const { first, restart } = await restartable()
    expect(
      (await first.req('/api/clubs/', { method: 'POST', token: first.tokens.bob, json: { name: 'Late Kites' } }))
        .status,
    ).toBe(201)
    const admins = await signIn(first, ADMIN_TOKEN)
    const deans = await signIn(first, first.tokens.dean)
    const approval = await decisionForm(first, admins, 'late-kites')

    const NEW_TOKEN = 'a-new-admin-token-after-a-leak'
    const app = await restart(NEW_TOKEN)
    const review = await app.req('/review', { headers: cookie(admins) })
    expect([review.status, review.headers.get('location')]).toEqual([303, '/sign-in?next=%2Freview'])
    const approve = await app.req('/review/late-kites', {
      method: 'POST',
      headers: { ...cookie(admins), 'content-type': FORM, origin: 'http://localhost' },
      body: approval,
    })
    expect([approve.status, approve.headers.get('location')]).toEqual([303, '/sign-in?next=%2Freview'])
    const club = await readJson(await app.req('/api/clubs/late-kites/', { token: NEW_TOKEN }))
    expect([club.approved, club.approved_on]).toEqual([false, null])
    expect((await app.req('/api/users/me/', { token: ADMIN_TOKEN })).status).toBe(401)

    // Dean's token did not change, so his session lives on; the new admin token signs in.
    expect(await whoIs(app, deans)).toBe('dean')
    const again = await signIn(app, NEW_TOKEN)
    expect(await whoIs(app, again)).toBe('admin')
    expect((await app.req('/review', { headers: cookie(again) })).status).toBe(200)
  })

  it('keeps the admin session across a restart with the same token', async () => {
    const { first, restart } = await restartable()
    const admins = await signIn(first, ADMIN_TOKEN)
    const app = await restart(ADMIN_TOKEN)
    expect(await whoIs(app, admins)).toBe('admin')
    expect((await app.req('/review', { headers: cookie(admins) })).status).toBe(200)
  })
})

describe('two instances on one database (CLUBS_TEST_STORE=postgres)', () => {
  const instances: App[] = []
  afterAll(async () => {
    for (const app of instances) await app.store.close()
  })

  it.if(ON_POSTGRES)(
    'ends a session on the other instance within a second: its token revoked, or its sessions ended',
    async () => {
      const databaseUrl = await testDatabase()
      const a = await withUsers({ databaseUrl })
      const b = await makeApp({ databaseUrl })
      instances.push(a, b)
      const sessions = { alice: await signIn(a, a.tokens.alice), bob: await signIn(a, a.tokens.bob) }
      await until(async () => (await whoIs(b, sessions.alice)) === 'alice', "alice's session on the other instance")
      await until(async () => (await whoIs(b, sessions.bob)) === 'bob', "bob's session on the other instance")

      // Within a second on an idle machine; the waits allow a loaded one (nothing else would end them).
      expect((await a.admin.delete(tokenPath('alice'))).status).toBe(204)
      await until(async () => (await whoIs(b, sessions.alice)) === null, 'the revoked token’s session to end', 5_000)
      expect((await a.admin.delete('/api/users/bob/sessions/')).status).toBe(204)
      await until(async () => (await whoIs(b, sessions.bob)) === null, "bob's sessions to end", 5_000)
    },
  )
})

describe('DELETE /api/users/{username}/sessions/', () => {
  const sessionsPath = (username: string) => `/api/users/${username}/sessions/`

  it("ends every site session of the user at once; their token, and others' sessions, stay", async () => {
    const app = await withUsers()
    const alices = [await signIn(app, app.tokens.alice), await signIn(app, app.tokens.alice)]
    const bobs = await signIn(app, app.tokens.bob)
    const res = await app.admin.delete(sessionsPath('alice'))
    expect([res.status, await res.text()]).toEqual([204, ''])
    for (const session of alices) {
      expect(await whoIs(app, session)).toBeNull()
      expect(await myClubs(app, session)).toEqual(SIGN_IN_FIRST)
    }
    expect(await whoIs(app, bobs)).toBe('bob')
    expect((await me(app, app.tokens.alice)).status).toBe(200)
    expect(await whoIs(app, await signIn(app, app.tokens.alice))).toBe('alice')
  })

  it("lets an admin user end the bootstrap admin's sessions, and answers 204 for a user with none", async () => {
    const app = await withUsers()
    const admins = await signIn(app, ADMIN_TOKEN)
    expect((await app.req(sessionsPath('admin'), { method: 'DELETE', token: app.tokens.dean })).status).toBe(204)
    expect(await whoIs(app, admins)).toBeNull()
    expect((await app.admin.delete(sessionsPath('bob'))).status).toBe(204)
  })

  it('leaves the sessions open when the change cannot be saved (503)', async () => {
    const file = dataFile()
    const app = await withUsers({ dataFile: file })
    const alices = await signIn(app, app.tokens.alice)
    const blocked = blockWrites(file)
    try {
      expect((await app.admin.delete(sessionsPath('alice'))).status).toBe(503)
    } finally {
      blocked.unblock()
    }
    expect(await whoIs(app, alices)).toBe('alice')
  })

  const refusals = [
    { who: 'the user themselves', as: 'alice', target: 'alice', status: 403 },
    { who: 'another user', as: 'bob', target: 'alice', status: 403 },
    { who: 'an admin naming someone unknown', as: 'dean', target: 'nobody', status: 404 },
    { who: 'nobody', as: null, target: 'alice', status: 401 },
  ] as const
  for (const { who, as, target, status } of refusals)
    it(`answers ${status} to ${who}, in the reference's shape, and alice stays signed in`, async () => {
      const app = await withUsers()
      const alices = await signIn(app, app.tokens.alice)
      const res = await app.req(sessionsPath(target), { method: 'DELETE', token: as && app.tokens[as] })
      expect(res.status).toBe(status)
      expect(Object.keys(await readJson(res))).toEqual(['detail'])
      if (status === 401) expect(res.headers.get('www-authenticate')).toStartWith('Bearer')
      expect(await whoIs(app, alices)).toBe('alice')
    })
})
