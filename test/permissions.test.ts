import { describe, expect, it } from 'bun:test'
import { WRITABLE_FIELDS } from '../harness/contract'
import { ADMIN_TOKEN, makeApp, NOW, readJson } from '../harness/app'

// Who may do what (docs/reference.md §2, §4, §5, §8): the permission matrix over one club run by
// `owner` (with `officer` and `member`), the members endpoints, and issuing users.

type Json = Record<string, any>
type Who = 'anonymous' | 'user' | 'member' | 'officer' | 'owner' | 'admin'
type Action =
  | 'list'
  | 'retrieve'
  | 'create'
  | 'put'
  | 'patch'
  | 'delete'
  | 'approve'
  | 'members'
  | 'title'
  | 'officers'
  | 'subscribers'
  | 'interested'

const CALLERS: readonly Who[] = ['anonymous', 'user', 'member', 'officer', 'owner', 'admin']
const PEOPLE = ['owner', 'officer', 'member', 'user', 'other'] as const
const CODE = 'matrix-society'
const CLUB_URL = `/api/clubs/${CODE}/`
const MEMBERS_URL = `/api/clubs/${CODE}/members/`
const NO_PERMISSION = { detail: 'You do not have permission to perform this action.' }
const NOT_FOUND = { detail: 'Not found.' }
const NOW_ISO = NOW.toISOString()

/** A full, valid PUT body built from a detail representation (as the admin sees it). */
function putBody(detail: Json, changes: Json): Json {
  const body: Json = Object.fromEntries(WRITABLE_FIELDS.map((field) => [field, detail[field]]))
  body.tags = detail.tags.map((tag: { id: number }) => ({ id: tag.id }))
  return { ...body, ...changes }
}

/**
 * A fresh app with five users issued by the admin; `owner` creates "Matrix Society" (private
 * e-mail) and names `officer` and `member`; the admin approves it unless `pending`.
 */
async function clubWorld({ pending = false } = {}) {
  const app = await makeApp()
  const tokens: Record<string, string | null> = { anonymous: null, admin: ADMIN_TOKEN }
  for (const username of PEOPLE) {
    const res = await app.admin.post('/api/users/', { username })
    expect(res.status).toBe(201)
    const issued = await readJson(res)
    expect(issued).toEqual({ username, is_admin: false, token: expect.any(String) })
    tokens[username] = issued.token
  }
  const as = (who: string) => {
    const token = tokens[who] ?? null
    return (path: string, init: Omit<Parameters<typeof app.req>[1] & {}, 'token'> = {}) =>
      app.req(path, { ...init, token })
  }
  const created = await as('owner')('/api/clubs/', {
    method: 'POST',
    json: { name: 'Matrix Society', email: 'matrix@clubs.example.edu', email_public: false },
  })
  expect(created.status).toBe(201)
  const club = await readJson(created)
  expect([club.code, club.approved, club.is_member, club.membership_count]).toEqual([CODE, false, true, 1])
  for (const [username, role] of [
    ['officer', 'officer'],
    ['member', 'member'],
  ]) {
    const added = await as('owner')(MEMBERS_URL, { method: 'POST', json: { username, role } })
    expect(added.status).toBe(201)
    expect(await readJson(added)).toEqual(seat(username, role))
  }
  if (!pending) expect((await app.admin.patch(CLUB_URL, { approved: true })).status).toBe(200)
  const adminView = async (): Promise<Json | null> => {
    const res = await app.admin.get(CLUB_URL)
    return res.status === 200 ? readJson(res) : null
  }
  return { ...app, tokens, as, adminView, pending }
}
type World = Awaited<ReturnType<typeof clubWorld>>

/** A member as the members endpoints show one; title "" and public false unless set. */
const seat = (username: string, role: string, title = '', shown = false) => ({ username, role, title, public: shown })

const ROSTER = [seat('owner', 'owner'), seat('officer', 'officer'), seat('member', 'member')]

/** Each action: its request, and what a success must have done. */
const ACTIONS: Record<
  Action,
  {
    method: string
    url: string
    body?: (world: World, who: Who) => Promise<Json>
    writes: boolean
    succeeded: (res: Response, world: World, who: Who) => Promise<void>
  }
> = {
  list: {
    method: 'GET',
    url: '/api/clubs/',
    writes: false,
    succeeded: async (res) => expect(Array.isArray(await readJson(res))).toBe(true),
  },
  retrieve: {
    method: 'GET',
    url: CLUB_URL,
    writes: false,
    succeeded: async (res) => expect((await readJson(res)).code).toBe(CODE),
  },
  create: {
    method: 'POST',
    url: '/api/clubs/',
    body: async (_world, who) => ({ name: `Founded By ${who}` }),
    writes: false,
    succeeded: async (res, world, who) => {
      const body = await readJson(res)
      expect([body.code, body.is_member, body.membership_count]).toEqual([`founded-by-${who}`, true, 1])
      expect((await world.admin.get(`/api/clubs/founded-by-${who}/members/`)).status).toBe(200)
    },
  },
  put: {
    method: 'PUT',
    url: CLUB_URL,
    body: async (world) => putBody((await world.adminView())!, { size: 3 }),
    writes: true,
    succeeded: async (res, world) => {
      expect((await readJson(res)).size).toBe(3)
      expect((await world.adminView())!.size).toBe(3)
    },
  },
  patch: {
    method: 'PATCH',
    url: CLUB_URL,
    body: async () => ({ size: 2 }),
    writes: true,
    succeeded: async (res, world) => {
      expect((await readJson(res)).size).toBe(2)
      expect((await world.adminView())!.size).toBe(2)
    },
  },
  delete: {
    method: 'DELETE',
    url: CLUB_URL,
    writes: true,
    succeeded: async (res, world) => {
      expect(await res.text()).toBe('')
      expect(await world.adminView()).toBeNull()
      expect((await world.req(CLUB_URL)).status).toBe(404)
    },
  },
  approve: {
    method: 'PATCH',
    url: CLUB_URL,
    body: async () => ({ approved: false, approved_comment: 'x' }),
    writes: true,
    succeeded: async (res, world) => {
      const body = await readJson(res)
      expect([body.approved, body.approved_comment, body.approved_by, body.approved_on]).toEqual([
        false,
        'x',
        'admin',
        NOW_ISO,
      ])
      expect((await world.req('/api/clubs/')).status).toBe(200)
      // docs/reference.md §11: approved: false revokes an approved club (nothing awaits review); a club never approved stays hidden.
      expect((await world.req(CLUB_URL)).status).toBe(404)
    },
  },
  members: {
    method: 'GET',
    url: MEMBERS_URL,
    writes: false,
    succeeded: async (res) => expect(await readJson(res)).toEqual(ROSTER),
  },
  title: {
    method: 'PATCH',
    url: `${MEMBERS_URL}member/`,
    body: async () => ({ title: 'Scribe' }),
    writes: true,
    succeeded: async (res, world) => {
      expect(await readJson(res)).toEqual(seat('member', 'member', 'Scribe'))
      expect(await readJson(await world.admin.get(MEMBERS_URL))).toEqual([
        ROSTER[0],
        ROSTER[1],
        seat('member', 'member', 'Scribe'),
      ])
    },
  },
  officers: {
    method: 'GET',
    url: `${CLUB_URL}officers/`,
    writes: false,
    // No one chose to be listed yet.
    succeeded: async (res) => expect(await readJson(res)).toEqual([]),
  },
  subscribers: {
    method: 'GET',
    url: `${CLUB_URL}subscribers/`,
    writes: false,
    succeeded: async (res) => expect(await readJson(res)).toEqual([]),
  },
  // The students interested without an account (docs/reference.md §23): none yet.
  interested: {
    method: 'GET',
    url: `${CLUB_URL}interested/`,
    writes: false,
    succeeded: async (res) => expect(await readJson(res)).toEqual([]),
  },
}

// Columns: anonymous, user (unrelated), member, officer, owner, admin.
const APPROVED_MATRIX: Record<Action, number[]> = {
  list: [200, 200, 200, 200, 200, 200],
  retrieve: [200, 200, 200, 200, 200, 200],
  create: [401, 201, 201, 201, 201, 201],
  put: [401, 403, 403, 200, 200, 200],
  patch: [401, 403, 403, 200, 200, 200],
  delete: [401, 403, 403, 403, 204, 204],
  approve: [401, 403, 403, 403, 403, 200],
  members: [401, 403, 403, 200, 200, 200],
  // PATCH of the member's title: owners, admins, and that member themself (docs/reference.md §21).
  title: [401, 403, 200, 403, 200, 200],
  officers: [200, 200, 200, 200, 200, 200],
  subscribers: [401, 403, 403, 200, 200, 200],
  interested: [401, 403, 403, 200, 200, 200],
}
// A pending club is a 404 to every authenticated caller who may not see it (docs/reference.md §4).
const PENDING_MATRIX: Record<Action, number[]> = {
  list: [200, 200, 200, 200, 200, 200],
  retrieve: [404, 404, 404, 200, 200, 200],
  create: [401, 201, 201, 201, 201, 201],
  put: [401, 404, 404, 200, 200, 200],
  patch: [401, 404, 404, 200, 200, 200],
  delete: [401, 404, 404, 403, 204, 204],
  approve: [401, 404, 404, 403, 403, 200],
  members: [401, 404, 404, 200, 200, 200],
  // A member of a club under review may still edit their own title (as they may leave it).
  title: [401, 404, 200, 403, 200, 200],
  officers: [404, 404, 404, 200, 200, 200],
  subscribers: [401, 404, 404, 200, 200, 200],
  interested: [401, 404, 404, 200, 200, 200],
}

const rowsOf = (matrix: Record<Action, number[]>) =>
  (Object.keys(matrix) as Action[]).flatMap((action) =>
    CALLERS.map((who, column) => ({
      who,
      action,
      method: ACTIONS[action].method,
      url: ACTIONS[action].url,
      status: matrix[action][column]!,
    })),
  )

for (const [state, matrix] of [
  ['approved', APPROVED_MATRIX],
  ['pending', PENDING_MATRIX],
] as const) {
  describe(`the permission matrix on an ${state} club`, () => {
    for (const { who, action, method, url, status } of rowsOf(matrix)) {
      it(`${action}: ${method} ${url} as ${who} → ${status}`, async () => {
        const world = await clubWorld({ pending: state === 'pending' })
        const spec = ACTIONS[action]
        const before = await world.adminView()
        const json = spec.body ? await spec.body(world, who) : undefined
        const res = await world.as(who)(url, { method, json })
        expect(res.status).toBe(status)

        if (status < 300) return spec.succeeded(res, world, who)
        const body = await readJson(res)
        if (status === 401) {
          expect(res.headers.get('www-authenticate')).toStartWith('Bearer')
          expect(Object.keys(body)).toEqual(['detail'])
        }
        if (status === 403) {
          expect(Object.keys(body)).toEqual(['detail'])
          // The approval refusal explains itself; every other 403 is the generic one (docs/reference.md §8).
          if (action !== 'approve' || who === 'user' || who === 'member') expect(body).toEqual(NO_PERMISSION)
        }
        if (status === 404) expect(body).toEqual(NOT_FOUND)
        // A refused write changes nothing.
        if (spec.writes) expect(await world.adminView()).toEqual(before)
        if (action === 'create') expect((await world.admin.get(`/api/clubs/founded-by-${who}/`)).status).toBe(404)
      })
    }
  })
}

describe('authentication', () => {
  const wrongToken = [
    { method: 'GET', url: '/api/clubs/', status: 401 },
    { method: 'GET', url: '/api/clubs/penn-chess-society/', status: 401 },
    { method: 'HEAD', url: '/api/clubs/', status: 401 },
    { method: 'GET', url: '/api/favorites/', status: 401 },
    { method: 'GET', url: '/api/users/me/', status: 401 },
    { method: 'GET', url: '/api/clubs/penn-chess-society/members/', status: 401 },
    { method: 'POST', url: '/api/clubs/', status: 401 },
    { method: 'PATCH', url: '/api/clubs/penn-chess-society/', status: 401 },
    { method: 'DELETE', url: '/api/clubs/penn-chess-society/', status: 401 },
  ]
  for (const { method, url, status } of wrongToken) {
    it(`answers ${method} ${url} with a wrong token with ${status} and WWW-Authenticate: Bearer`, async () => {
      const { req, admin } = await makeApp()
      const before = await readJson(await admin.get('/api/clubs/penn-chess-society/'))
      const json = method === 'POST' || method === 'PATCH' ? { name: 'Wrong Token Club' } : undefined
      const res = await req(url, { method, token: 'not-a-token-anyone-holds', json })
      expect(res.status).toBe(status)
      expect(res.headers.get('www-authenticate')).toStartWith('Bearer')
      if (method !== 'HEAD') expect(Object.keys(await readJson(res))).toEqual(['detail'])
      expect(await readJson(await admin.get('/api/clubs/penn-chess-society/'))).toEqual(before)
      expect((await admin.get('/api/clubs/wrong-token-club/')).status).toBe(404)
    })
  }

  it('answers GET /api/tags/ with a wrong token with 401 too', async () => {
    const { req } = await makeApp()
    const res = await req('/api/tags/', { token: 'not-a-token-anyone-holds' })
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toStartWith('Bearer')
  })

  const malformed = ['Bearer', 'Token abc', 'Bearer two words']
  for (const authorization of malformed) {
    it(`answers GET /api/clubs/ with "Authorization: ${authorization}" with 401`, async () => {
      const { req } = await makeApp()
      const res = await req('/api/clubs/', { headers: { authorization } })
      expect(res.status).toBe(401)
      expect(res.headers.get('www-authenticate')).toStartWith('Bearer')
    })
  }

  it('lets a caller without credentials read, and refuses them on writes with 401', async () => {
    const { req } = await makeApp()
    expect((await req('/api/clubs/')).status).toBe(200)
    expect((await req('/api/clubs/penn-chess-society/')).status).toBe(200)
    const res = await req('/api/clubs/', { method: 'POST', json: { name: 'Nobody Club' } })
    expect(res.status).toBe(401)
    expect(await readJson(res)).toEqual({ detail: 'Authentication credentials were not provided.' })
  })
})

describe('members', () => {
  const post = (world: World, who: string, json: unknown) => world.as(who)(MEMBERS_URL, { method: 'POST', json })
  const remove = (world: World, who: string, username: string) =>
    world.as(who)(`${MEMBERS_URL}${username}/`, { method: 'DELETE' })
  const roster = async (world: World) => readJson(await world.admin.get(MEMBERS_URL))
  const count = async (world: World) => (await world.adminView())!.membership_count

  it('lists [{username, role}], owners first, then officers, then members', async () => {
    const world = await clubWorld()
    const res = await world.as('officer')(MEMBERS_URL)
    expect(res.status).toBe(200)
    expect(await readJson(res)).toEqual(ROSTER)
    expect(await count(world)).toBe(3)
  })

  const addOwner = [
    { who: 'officer', status: 403 },
    { who: 'owner', status: 201 },
    { who: 'admin', status: 201 },
  ]
  for (const { who, status } of addOwner) {
    it(`answers an ${who} adding an owner with ${status} (only owners and admins may)`, async () => {
      const world = await clubWorld()
      const res = await post(world, who, { username: 'user', role: 'owner' })
      expect(res.status).toBe(status)
      if (status === 201) expect(await readJson(res)).toEqual(seat('user', 'owner'))
      else expect(await readJson(res)).toEqual({ detail: expect.any(String) })
      expect((await roster(world)).filter((m: Json) => m.role === 'owner').map((m: Json) => m.username)).toEqual(
        status === 201 ? ['owner', 'user'] : ['owner'],
      )
      expect(await count(world)).toBe(status === 201 ? 4 : 3)
    })
  }

  it('refuses an officer who promotes a member to owner, or demotes the owner (403)', async () => {
    const world = await clubWorld()
    expect((await post(world, 'officer', { username: 'member', role: 'owner' })).status).toBe(403)
    expect((await post(world, 'owner', { username: 'user', role: 'owner' })).status).toBe(201)
    expect((await post(world, 'officer', { username: 'user', role: 'member' })).status).toBe(403)
    expect((await roster(world)).find((m: Json) => m.username === 'user').role).toBe('owner')
  })

  const lastOwner = [
    { rule: 'the owner leaving', send: (w: World) => remove(w, 'owner', 'owner') },
    { rule: 'the admin removing the owner', send: (w: World) => remove(w, 'admin', 'owner') },
    {
      rule: 'the owner demoting themselves',
      send: (w: World) => post(w, 'owner', { username: 'owner', role: 'member' }),
    },
    {
      rule: 'the admin demoting the owner',
      send: (w: World) => post(w, 'admin', { username: 'owner', role: 'officer' }),
    },
  ]
  for (const { rule, send } of lastOwner) {
    it(`never loses its last owner: ${rule} → 400`, async () => {
      const world = await clubWorld()
      const res = await send(world)
      expect(res.status).toBe(400)
      expect(await readJson(res)).toEqual({ role: ['A club must keep at least one owner.'] })
      expect(await roster(world)).toEqual(ROSTER)
      expect(await count(world)).toBe(3)
    })
  }

  it('lets an owner leave once there is a second owner', async () => {
    const world = await clubWorld()
    expect((await post(world, 'owner', { username: 'user', role: 'owner' })).status).toBe(201)
    expect((await remove(world, 'owner', 'owner')).status).toBe(204)
    expect(await roster(world)).toEqual([seat('user', 'owner'), seat('officer', 'officer'), seat('member', 'member')])
    // The former owner no longer runs the club.
    expect((await world.as('owner')(CLUB_URL, { method: 'PATCH', json: { size: 2 } })).status).toBe(403)
  })

  const removals = [
    { who: 'member', target: 'member', status: 204, rule: 'a member may leave' },
    { who: 'officer', target: 'officer', status: 204, rule: 'an officer may leave' },
    { who: 'officer', target: 'member', status: 403, rule: 'an officer cannot remove another member' },
    { who: 'member', target: 'officer', status: 403, rule: 'a member cannot remove an officer' },
    { who: 'user', target: 'member', status: 403, rule: 'an unrelated user cannot remove a member' },
    { who: 'anonymous', target: 'member', status: 401, rule: 'an anonymous caller cannot remove a member' },
    { who: 'owner', target: 'member', status: 204, rule: 'the owner may remove a member' },
    { who: 'owner', target: 'officer', status: 204, rule: 'the owner may remove an officer' },
    { who: 'admin', target: 'member', status: 204, rule: 'an admin may remove a member' },
    { who: 'owner', target: 'user', status: 404, rule: 'removing someone who is not a member is a 404' },
  ]
  for (const { who, target, status, rule } of removals) {
    it(`${rule}: DELETE ${MEMBERS_URL}${target}/ as ${who} → ${status}`, async () => {
      const world = await clubWorld()
      const res = await remove(world, who, target)
      expect(res.status).toBe(status)
      if (status === 403) expect(await readJson(res)).toEqual(NO_PERMISSION)
      if (status === 401) expect(res.headers.get('www-authenticate')).toStartWith('Bearer')
      const gone = status === 204
      expect((await roster(world)).map((m: Json) => m.username)).toEqual(
        ROSTER.map((m) => m.username).filter((u) => !(gone && u === target)),
      )
      expect(await count(world)).toBe(gone ? 2 : 3)
    })
  }

  it('makes a member who left lose is_member', async () => {
    const world = await clubWorld()
    expect((await remove(world, 'member', 'member')).status).toBe(204)
    expect((await readJson(await world.as('member')(CLUB_URL))).is_member).toBe(false)
  })

  const invalid = [
    { rule: 'an unknown username', json: { username: 'nobody', role: 'member' }, field: 'username' },
    { rule: 'a malformed username', json: { username: 'Not Valid', role: 'member' }, field: 'username' },
    { rule: 'no username', json: { role: 'member' }, field: 'username' },
    { rule: 'a bad role', json: { username: 'user', role: 'president' }, field: 'role' },
    { rule: 'a role that is not a string', json: { username: 'user', role: 1 }, field: 'role' },
    { rule: 'an unknown field', json: { username: 'user', colour: 'red' }, field: 'colour' },
  ]
  for (const { rule, json, field } of invalid) {
    it(`answers ${rule} with a 400 on ${field}`, async () => {
      const world = await clubWorld()
      const res = await post(world, 'owner', json)
      expect(res.status).toBe(400)
      const body = await readJson(res)
      expect(Object.keys(body)).toEqual([field])
      expect(body[field]).toEqual([expect.any(String)])
      expect(await roster(world)).toEqual(ROSTER)
      expect(await count(world)).toBe(3)
    })
  }

  it('makes a new member a plain member when no role is sent', async () => {
    const world = await clubWorld()
    const res = await post(world, 'officer', { username: 'user' })
    expect(res.status).toBe(201)
    expect(await readJson(res)).toEqual(seat('user', 'member'))
  })

  it('keeps membership_count following adds and removes, in the anonymous list too', async () => {
    const world = await clubWorld()
    const listed = async () =>
      (await readJson(await world.req('/api/clubs/'))).find((c: Json) => c.code === CODE).membership_count
    expect([await count(world), await listed()]).toEqual([3, 3])
    expect((await post(world, 'officer', { username: 'user', role: 'member' })).status).toBe(201)
    expect((await post(world, 'owner', { username: 'other', role: 'officer' })).status).toBe(201)
    expect([await count(world), await listed()]).toEqual([5, 5])
    expect((await remove(world, 'user', 'user')).status).toBe(204)
    expect([await count(world), await listed()]).toEqual([4, 4])
    expect((await remove(world, 'owner', 'other')).status).toBe(204)
    expect([await count(world), await listed()]).toEqual([3, 3])
  })

  it('changes the role of an existing member with 200, without counting them twice', async () => {
    const world = await clubWorld()
    const res = await post(world, 'owner', { username: 'member', role: 'officer' })
    expect(res.status).toBe(200)
    expect(await readJson(res)).toEqual(seat('member', 'officer'))
    expect(await roster(world)).toEqual([seat('owner', 'owner'), seat('member', 'officer'), seat('officer', 'officer')])
    expect(await count(world)).toBe(3)
    // The promotion takes effect: the new officer may edit the club now.
    expect((await world.as('member')(CLUB_URL, { method: 'PATCH', json: { size: 4 } })).status).toBe(200)
  })

  it('takes away the right to edit when an officer is made a plain member', async () => {
    const world = await clubWorld()
    expect((await post(world, 'owner', { username: 'officer', role: 'member' })).status).toBe(200)
    expect((await world.as('officer')(CLUB_URL, { method: 'PATCH', json: { size: 4 } })).status).toBe(403)
    expect((await world.as('officer')(MEMBERS_URL)).status).toBe(403)
  })

  it('answers 404 for the members of a club that does not exist', async () => {
    const world = await clubWorld()
    expect((await world.admin.get('/api/clubs/no-such-club/members/')).status).toBe(404)
    expect((await world.admin.post('/api/clubs/no-such-club/members/', { username: 'user' })).status).toBe(404)
    expect((await world.admin.delete('/api/clubs/no-such-club/members/user/')).status).toBe(404)
  })
})

describe('users', () => {
  it('issues a user with 201 {username, is_admin, token}, and the token works at once', async () => {
    const { admin, req } = await makeApp()
    const res = await admin.post('/api/users/', { username: 'alice' })
    expect(res.status).toBe(201)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const issued = await readJson(res)
    expect(Object.keys(issued)).toEqual(['username', 'is_admin', 'token'])
    expect(issued).toEqual({ username: 'alice', is_admin: false, token: expect.any(String) })
    expect(issued.token.length).toBeGreaterThanOrEqual(32)
    const me = await req('/api/users/me/', { token: issued.token })
    expect(me.status).toBe(200)
    expect(await readJson(me)).toEqual({ username: 'alice', is_admin: false })
    const created = await req('/api/clubs/', { method: 'POST', token: issued.token, json: { name: 'Alice Club' } })
    expect(created.status).toBe(201)
  })

  it('gives every user a different token', async () => {
    const { admin } = await makeApp()
    const a = await readJson(await admin.post('/api/users/', { username: 'alice' }))
    const b = await readJson(await admin.post('/api/users/', { username: 'bob' }))
    expect(a.token).not.toBe(b.token)
  })

  it('refuses POST /api/users/ by a non-admin with 403, and anonymously with 401', async () => {
    const { admin, req } = await makeApp()
    const { token } = await readJson(await admin.post('/api/users/', { username: 'alice' }))
    const byUser = await req('/api/users/', { method: 'POST', token, json: { username: 'mallory' } })
    expect(byUser.status).toBe(403)
    expect(await readJson(byUser)).toEqual(NO_PERMISSION)
    const byNobody = await req('/api/users/', { method: 'POST', json: { username: 'mallory' } })
    expect(byNobody.status).toBe(401)
    expect(byNobody.headers.get('www-authenticate')).toStartWith('Bearer')
    // Neither made a user: the admin can still issue the name.
    expect((await admin.post('/api/users/', { username: 'mallory' })).status).toBe(201)
  })

  const refused = [
    { rule: 'a duplicate username', username: 'alice' },
    { rule: 'the bootstrap admin username', username: 'admin' },
    { rule: 'an uppercase username', username: 'Bob' },
    { rule: 'a username with a space', username: 'bob smith' },
    { rule: 'a 65-character username', username: 'b'.repeat(65) },
    { rule: 'an empty username', username: '' },
    { rule: 'a username starting with a dot', username: '.bob' },
    { rule: 'a username that is not a string', username: 42 },
  ]
  for (const { rule, username } of refused) {
    it(`refuses ${rule} with a 400 on username`, async () => {
      const { admin, req } = await makeApp()
      const alice = await readJson(await admin.post('/api/users/', { username: 'alice' }))
      const res = await admin.post('/api/users/', { username })
      expect(res.status).toBe(400)
      const body = await readJson(res)
      expect(Object.keys(body)).toEqual(['username'])
      expect(body.username).toEqual([expect.any(String)])
      // The existing user keeps their token.
      expect(await readJson(await req('/api/users/me/', { token: alice.token }))).toEqual({
        username: 'alice',
        is_admin: false,
      })
    })
  }

  const accepted = ['b'.repeat(64), '0day', 'a.b_c-d']
  for (const username of accepted) {
    it(`accepts the username "${username.length > 20 ? `${username.length} characters` : username}"`, async () => {
      const { admin } = await makeApp()
      expect((await admin.post('/api/users/', { username })).status).toBe(201)
    })
  }

  it('refuses is_admin that is not a boolean, and unknown fields, with 400 naming them', async () => {
    const { admin } = await makeApp()
    const bad = await admin.post('/api/users/', { username: 'alice', is_admin: 'true' })
    expect(bad.status).toBe(400)
    expect(Object.keys(await readJson(bad))).toEqual(['is_admin'])
    const unknown = await admin.post('/api/users/', { username: 'alice', role: 'admin' })
    expect(unknown.status).toBe(400)
    expect(Object.keys(await readJson(unknown))).toEqual(['role'])
    expect((await admin.post('/api/users/', { username: 'alice' })).status).toBe(201)
  })

  it('makes an is_admin user an admin: they approve clubs and issue users', async () => {
    const { admin, req } = await makeApp()
    const res = await admin.post('/api/users/', { username: 'dean', is_admin: true })
    expect(res.status).toBe(201)
    const { token, is_admin } = await readJson(res)
    expect(is_admin).toBe(true)
    expect(await readJson(await req('/api/users/me/', { token }))).toEqual({ username: 'dean', is_admin: true })
    expect((await req('/api/clubs/quadball-club/')).status).toBe(404)
    const approved = await req('/api/clubs/quadball-club/', { method: 'PATCH', token, json: { approved: true } })
    expect(approved.status).toBe(200)
    const body = await readJson(approved)
    expect([body.approved, body.approved_by, body.approved_on]).toEqual([true, 'dean', NOW_ISO])
    expect((await req('/api/clubs/quadball-club/')).status).toBe(200)
    expect((await req('/api/users/', { method: 'POST', token, json: { username: 'eve' } })).status).toBe(201)
  })

  it('answers GET /api/users/me/ with {username, is_admin}, and 401 anonymously', async () => {
    const { admin, req } = await makeApp()
    const me = await admin.get('/api/users/me/')
    expect(me.status).toBe(200)
    expect(await readJson(me)).toEqual({ username: 'admin', is_admin: true })
    const anonymous = await req('/api/users/me/')
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toStartWith('Bearer')
  })
})
