import { describe, expect, it } from 'bun:test'
import { copyFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN_TOKEN, makeApp, NOW, readJson, tempDir } from '../harness/app'
import { snapshotProblem } from '../src/domain/snapshot-format'
import { blockWrites } from '../harness/write-fault'
import { directoryOnDisk } from '../harness/on-disk'
import { users } from '../harness/users'

// Join requests (docs/reference.md §12): who may ask, list, accept, withdraw and decline (the status
// matrix), the rules of asking, what accepting does, and requests in the data file.

type Json = Record<string, any>
type Who = 'anonymous' | 'user' | 'member' | 'officer' | 'owner' | 'admin' | 'asker'
type Action = 'list' | 'ask' | 'accept' | 'remove'

const CALLERS: readonly Who[] = ['anonymous', 'user', 'member', 'officer', 'owner', 'admin', 'asker']
const PEOPLE = ['owner', 'officer', 'member', 'user', 'asker'] as const
const CODE = 'joiners-guild'
const CLUB_URL = `/api/clubs/${CODE}/`
const REQUESTS_URL = `${CLUB_URL}requests/`
const MINE_URL = '/api/users/me/requests/'
const NOW_ISO = NOW.toISOString()
const NOT_FOUND = { detail: 'Not found.' }
const NO_PERMISSION = { detail: 'You do not have permission to perform this action.' }
const ASKERS_REQUEST = { username: 'asker', message: 'Let me in', created_at: NOW_ISO }

function freshDataFile(): string {
  return join(tempDir('clubs-requests-'), 'db.json')
}

/** A user-issuing, club-making world over one app; `as(who)` sends with that caller's token. */
async function people(app: Awaited<ReturnType<typeof makeApp>>, usernames: readonly string[]) {
  const tokens: Record<string, string | null> = {
    anonymous: null,
    admin: ADMIN_TOKEN,
    ...(await users(app, ...usernames)),
  }
  const as =
    (who: string) =>
    (path: string, init: { method?: string; json?: unknown; body?: string; headers?: Record<string, string> } = {}) =>
      app.req(path, { ...init, token: tokens[who] ?? null })
  return { tokens, as }
}

/**
 * `owner` runs "Joiners Guild" (accepting members, approved) with `officer` and `member`, and
 * `asker` has asked to join it. `hidden`: the owner then set it inactive, so the public (and
 * the asker) no longer see it.
 */
async function world({ hidden = false, dataFile }: { hidden?: boolean; dataFile?: string } = {}) {
  const app = await makeApp({ dataFile })
  const { tokens, as } = await people(app, PEOPLE)
  const created = await as('owner')('/api/clubs/', {
    method: 'POST',
    json: { name: 'Joiners Guild', accepting_members: true },
  })
  expect(created.status).toBe(201)
  for (const [username, role] of [
    ['officer', 'officer'],
    ['member', 'member'],
  ])
    expect((await as('owner')(`${CLUB_URL}members/`, { method: 'POST', json: { username, role } })).status).toBe(201)
  expect((await app.admin.patch(CLUB_URL, { approved: true })).status).toBe(200)
  expect((await as('asker')(REQUESTS_URL, { method: 'POST', json: { message: 'Let me in' } })).status).toBe(201)
  if (hidden) expect((await as('owner')(CLUB_URL, { method: 'PATCH', json: { active: false } })).status).toBe(200)
  /** What an admin sees of the club's people and requests. */
  const state = async () => ({
    requests: await readJson(await app.admin.get(REQUESTS_URL)),
    members: await readJson(await app.admin.get(`${CLUB_URL}members/`)),
    count: (await readJson(await app.admin.get(CLUB_URL))).membership_count as number,
  })
  return { ...app, tokens, as, state }
}
type World = Awaited<ReturnType<typeof world>>

const usernameOf = (who: Who) => (who === 'admin' ? 'admin' : who)

const ACTIONS: Record<
  Action,
  { method: string; url: string; succeeded: (res: Response, w: World, who: Who) => Promise<void> }
> = {
  list: {
    method: 'GET',
    url: REQUESTS_URL,
    succeeded: async (res) => expect(await readJson(res)).toEqual([ASKERS_REQUEST]),
  },
  ask: {
    method: 'POST',
    url: REQUESTS_URL,
    succeeded: async (res, w, who) => {
      const mine = { username: usernameOf(who), message: '', created_at: NOW_ISO }
      expect(await readJson(res)).toEqual(mine)
      expect((await w.state()).requests).toEqual([ASKERS_REQUEST, mine])
    },
  },
  accept: {
    method: 'POST',
    url: `${REQUESTS_URL}asker/accept/`,
    succeeded: async (res, w) => {
      expect(await readJson(res)).toEqual({ username: 'asker', role: 'member' })
      const state = await w.state()
      expect(state.requests).toEqual([])
      expect(state.members).toContainEqual({ username: 'asker', role: 'member', title: '', public: false })
      expect(state.count).toBe(4)
    },
  },
  remove: {
    method: 'DELETE',
    url: `${REQUESTS_URL}asker/`,
    succeeded: async (res, w) => {
      expect(await res.text()).toBe('')
      const state = await w.state()
      expect(state.requests).toEqual([])
      expect(state.count).toBe(3)
      expect(await readJson(await w.as('asker')(MINE_URL))).toEqual([])
    },
  },
}

// Columns: anonymous, user (unrelated), member, officer, owner, admin, asker (holds the pending request).
const VISIBLE_MATRIX: Record<Action, number[]> = {
  list: [401, 403, 403, 200, 200, 200, 403],
  ask: [401, 201, 400, 400, 400, 201, 400],
  accept: [401, 403, 403, 201, 201, 201, 403],
  remove: [401, 403, 403, 204, 204, 204, 204],
}
// An inactive club is a 404 to everyone who may not see it, but its asker may still withdraw.
const HIDDEN_MATRIX: Record<Action, number[]> = {
  list: [401, 404, 404, 200, 200, 200, 404],
  ask: [401, 404, 404, 400, 400, 201, 404],
  accept: [401, 404, 404, 201, 201, 201, 404],
  remove: [401, 404, 404, 204, 204, 204, 204],
}

for (const [state, matrix] of [
  ['a visible', VISIBLE_MATRIX],
  ['an inactive', HIDDEN_MATRIX],
] as const) {
  describe(`the join request matrix on ${state} club`, () => {
    for (const action of Object.keys(matrix) as Action[]) {
      CALLERS.forEach((who, column) => {
        const { method, url, succeeded } = ACTIONS[action]
        const status = matrix[action][column]!
        it(`${action}: ${method} ${url} as ${who} → ${status}`, async () => {
          const w = await world({ hidden: state === 'an inactive' })
          const before = await w.state()
          const res = await w.as(who)(url, { method, json: method === 'POST' ? {} : undefined })
          expect(res.status).toBe(status)
          if (status < 300) return succeeded(res, w, who)
          const body = await readJson(res)
          if (status === 401) expect(res.headers.get('www-authenticate')).toStartWith('Bearer')
          if (status === 403) expect(body).toEqual(NO_PERMISSION)
          if (status === 404) expect(body).toEqual(NOT_FOUND)
          if (status === 400) expect(Object.keys(body)).toEqual(['non_field_errors'])
          expect(await w.state()).toEqual(before)
        })
      })
    }
  })
}

describe('unknown clubs and requests', () => {
  const rows = [
    { method: 'GET', url: '/api/clubs/no-such-club/requests/' },
    { method: 'POST', url: '/api/clubs/no-such-club/requests/' },
    { method: 'POST', url: '/api/clubs/no-such-club/requests/asker/accept/' },
    { method: 'DELETE', url: '/api/clubs/no-such-club/requests/asker/' },
    { method: 'POST', url: `${REQUESTS_URL}user/accept/` },
    { method: 'DELETE', url: `${REQUESTS_URL}user/` },
    { method: 'POST', url: `${REQUESTS_URL}nobody-at-all/accept/` },
    { method: 'DELETE', url: `${REQUESTS_URL}NOT%20A%20NAME/` },
  ]
  for (const { method, url } of rows) {
    it(`answers ${method} ${url} with 404 to an admin and 401 without a token`, async () => {
      const w = await world()
      expect((await w.as('anonymous')(url, { method })).status).toBe(401)
      const res = await w.as('admin')(url, { method })
      expect(res.status).toBe(404)
      expect(await readJson(res)).toEqual(NOT_FOUND)
    })
  }

  it('answers a requester withdrawing a request they do not have with 404', async () => {
    const w = await world()
    expect((await w.as('user')(`${REQUESTS_URL}user/`, { method: 'DELETE' })).status).toBe(404)
  })

  it('answers the wrong methods with 405 and the declared Allow', async () => {
    const w = await world()
    for (const [method, url, allow] of [
      ['PUT', REQUESTS_URL, 'GET, POST'],
      ['GET', `${REQUESTS_URL}asker/`, 'DELETE'],
      ['GET', `${REQUESTS_URL}asker/accept/`, 'POST'],
      ['POST', MINE_URL, 'GET'],
    ] as const) {
      const res = await w.as('admin')(url, { method })
      expect([method, url, res.status, res.headers.get('allow')]).toEqual([method, url, 405, allow])
    }
  })
})

describe('asking to join', () => {
  it('takes {}, no body at all, or a message of up to 1,000 characters, stored as given', async () => {
    const app = await makeApp()
    const { as } = await people(app, ['a', 'b', 'c'])
    const url = '/api/clubs/penn-chess-society/requests/'
    const empty = await as('a')(url, { method: 'POST', json: {} })
    expect(await readJson(empty)).toEqual({ username: 'a', message: '', created_at: NOW_ISO })
    expect((await as('b')(url, { method: 'POST' })).status).toBe(201)
    const long = `  ${'é'.repeat(996)}\n `
    const res = await as('c')(url, { method: 'POST', json: { message: long } })
    expect(res.status).toBe(201)
    expect((await readJson(res)).message).toBe(long)
  })

  const badBodies: [string, unknown, Json][] = [
    ['a message of 1,001 characters', { message: 'x'.repeat(1001) }, { message: [expect.stringContaining('1000')] }],
    ['a null message', { message: null }, { message: [expect.any(String)] }],
    ['a number for a message', { message: 5 }, { message: [expect.any(String)] }],
    ['an unknown field', { colour: 'red' }, { colour: ['Unknown field.'] }],
    ['a list', [], { non_field_errors: [expect.any(String)] }],
  ]
  for (const [label, json, errors] of badBodies) {
    it(`refuses ${label} with a 400 naming the field`, async () => {
      const w = await world()
      const res = await w.as('user')(REQUESTS_URL, { method: 'POST', json })
      expect(res.status).toBe(400)
      expect(await readJson(res)).toEqual(errors)
      expect((await w.state()).requests).toEqual([ASKERS_REQUEST])
    })
  }

  it('refuses malformed JSON (400) and a body that is not JSON (415)', async () => {
    const w = await world()
    const headers = { 'content-type': 'application/json' }
    const malformed = await w.as('user')(REQUESTS_URL, { method: 'POST', body: '{"message":', headers })
    expect(malformed.status).toBe(400)
    expect((await readJson(malformed)).detail).toStartWith('JSON parse error')
    const text = await w.as('user')(REQUESTS_URL, {
      method: 'POST',
      body: 'hi',
      headers: { 'content-type': 'text/plain' },
    })
    expect(text.status).toBe(415)
  })

  it('refuses a club that is not accepting members, while its pending requests can still be accepted', async () => {
    const w = await world()
    expect((await w.as('owner')(CLUB_URL, { method: 'PATCH', json: { accepting_members: false } })).status).toBe(200)
    const res = await w.as('user')(REQUESTS_URL, { method: 'POST', json: {} })
    expect(res.status).toBe(400)
    expect(await readJson(res)).toEqual({ non_field_errors: ['This club is not accepting new members.'] })
    expect((await w.as('officer')(`${REQUESTS_URL}asker/accept/`, { method: 'POST' })).status).toBe(201)
  })

  it('refuses a member and a second request with a message saying so', async () => {
    const w = await world()
    const member = await w.as('member')(REQUESTS_URL, { method: 'POST', json: {} })
    expect(await readJson(member)).toEqual({ non_field_errors: ['You are already a member of this club.'] })
    const again = await w.as('asker')(REQUESTS_URL, { method: 'POST', json: { message: 'Again' } })
    expect(await readJson(again)).toEqual({ non_field_errors: ['You have already asked to join this club.'] })
    expect((await w.state()).requests).toEqual([ASKERS_REQUEST])
  })

  it('lets a user hold at most 50 pending requests; a withdrawn or archived one frees a place', async () => {
    const app = await makeApp()
    const { as } = await people(app, ['eager'])
    const codes: string[] = []
    for (let i = 1; i <= 52; i++) {
      const res = await app.admin.post('/api/clubs/', {
        name: `Open Club ${i}`,
        accepting_members: true,
        approved: true,
      })
      expect(res.status).toBe(201)
      codes.push((await readJson(res)).code)
    }
    const ask = (code: string) => as('eager')(`/api/clubs/${code}/requests/`, { method: 'POST', json: {} })
    for (const code of codes.slice(0, 50)) expect((await ask(code)).status).toBe(201)
    const refused = await ask(codes[50]!)
    expect(refused.status).toBe(400)
    expect(await readJson(refused)).toEqual({
      non_field_errors: ['You already have 50 pending join requests; withdraw one before asking again.'],
    })
    expect((await as('eager')(`/api/clubs/${codes[0]}/requests/eager/`, { method: 'DELETE' })).status).toBe(204)
    expect((await ask(codes[50]!)).status).toBe(201)
    expect((await ask(codes[51]!)).status).toBe(400)
    expect((await app.admin.delete(`/api/clubs/${codes[1]}/`)).status).toBe(204)
    expect((await ask(codes[51]!)).status).toBe(201)
    expect(((await readJson(await as('eager')(MINE_URL))) as Json[]).length).toBe(50)
  })
})

describe('the pending requests', () => {
  it("are listed oldest first to the club's officers, and to each requester among their own", async () => {
    let clock = NOW.getTime()
    const app = await makeApp({ now: () => new Date((clock += 60_000)) })
    const { as } = await people(app, ['zoe', 'amy', 'kim'])
    const chess = '/api/clubs/penn-chess-society/requests/'
    for (const who of ['zoe', 'amy', 'kim'])
      expect((await as(who)(chess, { method: 'POST', json: {} })).status).toBe(201)
    expect((await as('amy')('/api/clubs/robotics-collective/requests/', { method: 'POST', json: {} })).status).toBe(201)
    const listed = (await readJson(await app.admin.get(chess))) as Json[]
    expect(listed.map((r) => r.username)).toEqual(['zoe', 'amy', 'kim'])
    expect(listed.map((r) => r.created_at)).toEqual(listed.map((r) => r.created_at).sort())
    const mine = (await readJson(await as('amy')(MINE_URL))) as Json[]
    expect(mine).toEqual([
      { club: 'penn-chess-society', message: '', created_at: listed[1]!.created_at },
      { club: 'robotics-collective', message: '', created_at: expect.any(String) },
    ])
    expect(await readJson(await as('kim')(MINE_URL))).toEqual([
      { club: 'penn-chess-society', message: '', created_at: listed[2]!.created_at },
    ])
    expect((await app.req(MINE_URL)).status).toBe(401)
  })

  it('are escaped in the browsable view', async () => {
    const app = await makeApp()
    const { as } = await people(app, ['mallory'])
    const message = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    const url = '/api/clubs/penn-chess-society/requests/'
    expect((await as('mallory')(url, { method: 'POST', json: { message } })).status).toBe(201)
    for (const page of [await app.admin.get(`${url}?format=api`), await as('mallory')(`${MINE_URL}?format=api`)]) {
      expect(page.status).toBe(200)
      const html = await page.text()
      expect(html).toContain('&lt;script&gt;alert(\\&quot;x\\&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;')
      expect(html).not.toContain('<script>alert')
      expect(html).not.toContain('<img src=x')
    }
  })
})

describe('accepting', () => {
  it('makes the requester a member everyone counts, and settles the request', async () => {
    const w = await world()
    const publicCount = async () => (await readJson(await w.req(CLUB_URL))).membership_count
    expect(await publicCount()).toBe(3)
    const res = await w.as('owner')(`${REQUESTS_URL}asker/accept/`, { method: 'POST' })
    expect(res.status).toBe(201)
    expect(await publicCount()).toBe(4)
    expect((await readJson(await w.as('asker')(CLUB_URL))).is_member).toBe(true)
    expect(await readJson(await w.as('asker')(MINE_URL))).toEqual([])
    expect((await w.as('owner')(`${REQUESTS_URL}asker/accept/`, { method: 'POST' })).status).toBe(404)
    const again = await w.as('asker')(REQUESTS_URL, { method: 'POST', json: {} })
    expect(await readJson(again)).toEqual({ non_field_errors: ['You are already a member of this club.'] })
    // The new member may leave like any other.
    expect((await w.as('asker')(`${CLUB_URL}members/asker/`, { method: 'DELETE' })).status).toBe(204)
    expect(await publicCount()).toBe(3)
  })

  it('counts the member on the current record of a club under review, never its public version', async () => {
    const w = await world()
    expect((await w.as('owner')(CLUB_URL, { method: 'PATCH', json: { name: 'Joiners Guild Renamed' } })).status).toBe(
      200,
    )
    expect((await readJson(await w.req(CLUB_URL))).name).toBe('Joiners Guild')
    expect((await w.as('officer')(`${REQUESTS_URL}asker/accept/`, { method: 'POST' })).status).toBe(201)
    const current = await readJson(await w.admin.get(CLUB_URL))
    expect([current.name, current.approved, current.membership_count]).toEqual(['Joiners Guild Renamed', false, 4])
    expect(current.approved_version.name).toBe('Joiners Guild')
    const shown = await readJson(await w.req(CLUB_URL))
    expect([shown.name, shown.approved, shown.membership_count]).toEqual(['Joiners Guild', true, 4])
    const queue = (await readJson(await w.admin.get('/api/clubs/?approved=false&fields=code,name'))) as Json[]
    expect(queue).toContainEqual({ code: CODE, name: 'Joiners Guild Renamed' })
  })
})

describe('the members endpoint', () => {
  it('settles the pending request of someone it adds', async () => {
    const w = await world()
    const added = await w.as('owner')(`${CLUB_URL}members/`, { method: 'POST', json: { username: 'asker' } })
    expect(added.status).toBe(201)
    const state = await w.state()
    expect(state.requests).toEqual([])
    expect([state.count, state.members]).toEqual([
      4,
      expect.arrayContaining([{ username: 'asker', role: 'member', title: '', public: false }]),
    ])
    expect(await readJson(await w.as('asker')(MINE_URL))).toEqual([])
  })
})

describe('withdrawing and declining', () => {
  it('removes the request once; the requester may ask again', async () => {
    const w = await world()
    expect((await w.as('asker')(`${REQUESTS_URL}asker/`, { method: 'DELETE' })).status).toBe(204)
    expect((await w.as('asker')(`${REQUESTS_URL}asker/`, { method: 'DELETE' })).status).toBe(404)
    expect((await w.as('asker')(REQUESTS_URL, { method: 'POST', json: { message: 'Second try' } })).status).toBe(201)
    expect((await w.as('officer')(`${REQUESTS_URL}asker/`, { method: 'DELETE' })).status).toBe(204)
    expect((await w.state()).requests).toEqual([])
  })
})

describe('an archived club', () => {
  it("takes its requests along: gone from the requester's list, from every endpoint and from the data file", async () => {
    const dataFile = freshDataFile()
    const w = await world({ dataFile })
    expect(directoryOnDisk(dataFile).requests).toEqual([{ club: CODE, ...ASKERS_REQUEST }])
    expect((await w.as('owner')(CLUB_URL, { method: 'DELETE' })).status).toBe(204)
    expect(await readJson(await w.as('asker')(MINE_URL))).toEqual([])
    expect((await w.admin.get(REQUESTS_URL)).status).toBe(404)
    expect((await w.as('asker')(`${REQUESTS_URL}asker/`, { method: 'DELETE' })).status).toBe(404)
    expect(directoryOnDisk(dataFile).requests).toEqual([])
  })
})

describe('requests in the data file', () => {
  it('survive a restart: pending ones stay pending, accepted ones are members', async () => {
    const dataFile = freshDataFile()
    const a = await world({ dataFile })
    expect((await a.as('user')(REQUESTS_URL, { method: 'POST', json: { message: 'Me too' } })).status).toBe(201)
    expect((await a.as('owner')(`${REQUESTS_URL}asker/accept/`, { method: 'POST' })).status).toBe(201)
    const before = await a.state()
    await a.store.close()

    const b = await makeApp({ dataFile })
    const after = {
      requests: await readJson(await b.admin.get(REQUESTS_URL)),
      members: await readJson(await b.admin.get(`${CLUB_URL}members/`)),
      count: (await readJson(await b.admin.get(CLUB_URL))).membership_count,
    }
    expect(after).toEqual(before)
    expect(after.requests).toEqual([{ username: 'user', message: 'Me too', created_at: NOW_ISO }])
    expect(after.count).toBe(4)
    const { as } = { as: (token: string) => (path: string) => b.req(path, { token }) }
    expect(await readJson(await as(a.tokens.user!)(MINE_URL))).toEqual([
      { club: CODE, message: 'Me too', created_at: NOW_ISO },
    ])
  })

  it('are taken back when the write that holds them fails (503), in memory and on disk', async () => {
    const dataFile = freshDataFile()
    const w = await world({ dataFile })
    const before = await w.state()
    const fileBefore = readFileSync(dataFile, 'utf8')
    const blocked = blockWrites(dataFile)
    for (const [who, method, url] of [
      ['user', 'POST', REQUESTS_URL],
      ['owner', 'POST', `${REQUESTS_URL}asker/accept/`],
      ['asker', 'DELETE', `${REQUESTS_URL}asker/`],
      ['owner', 'POST', `${CLUB_URL}members/`],
    ] as const) {
      const json = method === 'POST' ? (url.endsWith('members/') ? { username: 'asker' } : {}) : undefined
      expect([url, (await w.as(who)(url, { method, json })).status]).toEqual([url, 503])
    }
    expect(await w.state()).toEqual(before)
    expect(await readJson(await w.as('user')(MINE_URL))).toEqual([])
    expect(readFileSync(dataFile, 'utf8')).toBe(fileBefore)
    blocked.unblock()
    expect((await w.as('user')(REQUESTS_URL, { method: 'POST', json: {} })).status).toBe(201)
    expect(directoryOnDisk(dataFile).requests).toEqual([
      { club: CODE, ...ASKERS_REQUEST },
      { club: CODE, username: 'user', message: '', created_at: NOW_ISO },
    ])
  })

  it('start empty in a file the previous release wrote (format version 1), then are saved in version 2', async () => {
    const fixtures = join(import.meta.dir, 'fixtures')
    const tokens = JSON.parse(readFileSync(join(fixtures, 'data-v1.tokens.json'), 'utf8'))
    const dataFile = freshDataFile()
    copyFileSync(join(fixtures, 'data-v1.json'), dataFile)
    const app = await makeApp({ dataFile, config: { adminToken: tokens.admin } })
    expect(await readJson(await app.req(MINE_URL, { token: tokens.alice }))).toEqual([])
    const url = '/api/clubs/penn-chess-society/requests/'
    expect((await app.req(url, { method: 'POST', token: tokens.alice, json: { message: 'Hi' } })).status).toBe(201)
    const written = directoryOnDisk(dataFile)
    expect([written.version, written.requests]).toEqual([
      2,
      [{ club: 'penn-chess-society', username: 'alice', message: 'Hi', created_at: NOW_ISO }],
    ])
  })

  const SEED = JSON.parse(readFileSync(join(import.meta.dir, '..', 'data', 'seed.json'), 'utf8'))
  const request = (club: string, username: string) => ({ club, username, message: '', created_at: NOW_ISO })
  const files: [string, Json[], string | null][] = [
    ['no requests', [], null],
    ['two users asking one club', [request('mock-trial', 'a'), request('mock-trial', 'b')], null],
    ['one user asking one club twice', [request('mock-trial', 'a'), request('mock-trial', 'a')], '/requests'],
    ['a request to a club that does not exist', [request('no-such-club', 'a')], '/requests'],
    // The schema check names no deeper path for a list of records: it refuses the file as a whole.
    ['a message over 1,000 characters', [{ ...request('mock-trial', 'a'), message: 'x'.repeat(1001) }], '/'],
  ]
  for (const [label, requests, problem] of files) {
    it(`${problem ? 'refuses' : 'loads'} a data file with ${label}`, () => {
      const found = snapshotProblem({ ...SEED, requests })
      if (problem === null) expect(found).toBeNull()
      else expect(found).toStartWith(problem)
    })
  }

  it('is required in format version 2', () => {
    const { requests: _, ...withoutRequests } = SEED
    expect(snapshotProblem(withoutRequests)).not.toBeNull()
  })
})
