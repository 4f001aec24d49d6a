import { describe, expect, it } from 'bun:test'
import { ADMIN_TOKEN, makeApp, NOW, readJson } from '../harness/app'
import { users } from '../harness/users'

// Who sees what (docs/reference.md §1.1, §2, §4, §5): approval states, re-approval after edits, private
// e-mail addresses, favorites and subscriptions, and the caller's own flags in lists.

type Json = Record<string, any>
type Who = 'anonymous' | 'user' | 'member' | 'officer' | 'owner' | 'admin'

const CALLERS: readonly Who[] = ['anonymous', 'user', 'member', 'officer', 'owner', 'admin']
const PEOPLE = ['owner', 'officer', 'member', 'user', 'other'] as const
const NOW_ISO = NOW.toISOString()
const clubUrl = (code: string) => `/api/clubs/${code}/`

/** A fresh app with five users; `as(who)` sends requests with that user's token (none for anonymous). */
async function people() {
  const app = await makeApp()
  const tokens: Record<string, string | null> = {
    anonymous: null,
    admin: ADMIN_TOKEN,
    ...(await users(app, ...PEOPLE)),
  }
  const as = (who: string) => {
    const token = tokens[who] ?? null
    return (path: string, init: Omit<Parameters<typeof app.req>[1] & {}, 'token'> = {}) =>
      app.req(path, { ...init, token })
  }
  /** `owner` creates a club and names `officer` and `member`; the code is returned. */
  const found = async (json: Json) => {
    const res = await as('owner')('/api/clubs/', { method: 'POST', json })
    expect(res.status).toBe(201)
    const { code } = await readJson(res)
    for (const role of ['officer', 'member']) {
      const added = await as('owner')(`/api/clubs/${code}/members/`, { method: 'POST', json: { username: role, role } })
      expect(added.status).toBe(201)
    }
    return code as string
  }
  const approve = async (code: string, json: Json = { approved: true }) => {
    const res = await app.admin.patch(clubUrl(code), json)
    expect(res.status).toBe(200)
    return readJson(res)
  }
  const listOf = async (who: string, query = '') => {
    const res = await as(who)(`/api/clubs/${query}`)
    expect(res.status).toBe(200)
    return (await readJson(res)) as Json[]
  }
  /** The club's list item as `who` sees it; undefined when it is not listed to them. */
  const itemOf = async (who: string, code: string): Promise<any> =>
    (await listOf(who)).find((club) => club.code === code)
  const detailOf = async (who: string, code: string) => readJson(await as(who)(clubUrl(code)))
  return { ...app, tokens, as, found, approve, listOf, itemOf, detailOf }
}

/** Four clubs run by `owner`, one in each state. */
async function clubsInEveryState() {
  const world = await people()
  const approved = await world.found({ name: 'Approved Circle' })
  await world.approve(approved)
  const pending = await world.found({ name: 'Pending Circle' })
  const inactive = await world.found({ name: 'Inactive Circle' })
  await world.approve(inactive)
  const off = await world.as('owner')(clubUrl(inactive), { method: 'PATCH', json: { active: false } })
  expect(off.status).toBe(200)
  expect((await readJson(off)).approved).toBe(true)
  const rejected = await world.found({ name: 'Rejected Circle' })
  const decision = await world.approve(rejected, { approved: false, approved_comment: 'Not a student club.' })
  expect([decision.approved, decision.approved_on]).toEqual([false, NOW_ISO])
  return { world, codes: { approved, pending, inactive, rejected } }
}

describe('visibility by approval state', () => {
  type State = 'approved' | 'pending' | 'inactive' | 'rejected'
  // Whether each caller sees a club in each state (in the list, and 200 rather than 404 on retrieve).
  const SEES: Record<Who, Record<State, boolean>> = {
    anonymous: { approved: true, pending: false, inactive: false, rejected: false },
    user: { approved: true, pending: false, inactive: false, rejected: false },
    member: { approved: true, pending: false, inactive: false, rejected: false },
    officer: { approved: true, pending: true, inactive: true, rejected: true },
    owner: { approved: true, pending: true, inactive: true, rejected: true },
    admin: { approved: true, pending: true, inactive: true, rejected: true },
  }
  const rows = CALLERS.flatMap((who) =>
    (Object.keys(SEES[who]) as State[]).map((state) => ({ who, state, sees: SEES[who][state] })),
  )

  for (const { who, state, sees } of rows) {
    it(`${sees ? 'shows' : 'hides'} a ${state} club ${sees ? 'to' : 'from'} ${who} (list and retrieve)`, async () => {
      const { world, codes } = await clubsInEveryState()
      const code = codes[state]
      const res = await world.as(who)(clubUrl(code))
      expect(res.status).toBe(sees ? 200 : 404)
      if (sees) expect((await readJson(res)).code).toBe(code)
      else expect(await readJson(res)).toEqual({ detail: 'Not found.' })
      expect((await world.listOf(who)).some((club) => club.code === code)).toBe(sees)
    })
  }

  it('shows anonymous callers exactly the approved and active clubs', async () => {
    const { world, codes } = await clubsInEveryState()
    const all = await world.listOf('admin')
    const anonymous = await world.listOf('anonymous')
    expect(anonymous.map((club) => club.code).sort()).toEqual(
      all
        .filter((club) => club.approved && club.active)
        .map((club) => club.code)
        .sort(),
    )
    expect(anonymous.map((club) => club.code)).toContain(codes.approved)
    expect(anonymous.length).toBeLessThan(all.length)
  })

  it('shows an owner every club they run plus the public ones, and nothing else', async () => {
    const { world, codes } = await clubsInEveryState()
    const publicCodes = (await world.listOf('anonymous')).map((club) => club.code)
    const ownerCodes = (await world.listOf('owner')).map((club) => club.code)
    expect(ownerCodes.sort()).toEqual([...new Set([...publicCodes, ...Object.values(codes)])].sort())
  })

  it('gives the admin the approval queue with ?approved=false', async () => {
    const { world, codes } = await clubsInEveryState()
    const queue = await world.listOf('admin', '?approved=false')
    expect(queue.every((club) => club.approved === false)).toBe(true)
    const inQueue = queue.map((club) => club.code)
    expect(inQueue).toContain(codes.pending)
    expect(inQueue).toContain(codes.rejected)
    expect(inQueue).toContain('quadball-club')
    expect(inQueue).not.toContain(codes.approved)
    expect(inQueue).not.toContain(codes.inactive)
  })

  it('gives the admin the inactive clubs with ?active=false', async () => {
    const { world, codes } = await clubsInEveryState()
    const inactive = (await world.listOf('admin', '?active=false')).map((club) => club.code)
    expect(inactive).toContain(codes.inactive)
    expect(inactive).toContain('poetry-slam-collective')
    expect(inactive).not.toContain(codes.approved)
    expect(inactive).not.toContain(codes.pending)
    const both = await world.listOf('admin', '?approved=true&active=true')
    expect(both.map((club) => club.code).sort()).toEqual(
      (await world.listOf('anonymous')).map((club) => club.code).sort(),
    )
  })

  for (const query of ['?approved=false', '?active=false']) {
    it(`does not leak hidden clubs to anonymous callers through ${query}`, async () => {
      const { world } = await clubsInEveryState()
      expect(await world.listOf('anonymous', query)).toEqual([])
      expect(await world.listOf('user', query)).toEqual([])
    })
  }

  it('hides hidden clubs from the tag counts', async () => {
    const world = await people()
    const games = async () =>
      (await readJson(await world.req('/api/tags/'))).find((tag: Json) => tag.name === 'Games').clubs as number
    const before = await games()
    const code = await world.found({ name: 'Tagged Circle', tags: [{ name: 'Games' }] })
    expect(await games()).toBe(before)
    await world.approve(code)
    expect(await games()).toBe(before + 1)
  })
})

describe('re-approval', () => {
  /** An approved club "Review Circle", with a comment from the admin. */
  async function approvedClub() {
    const world = await people()
    const code = await world.found({
      name: 'Review Circle',
      subtitle: 'Before',
      image_url: 'https://img.example/a.png',
    })
    await world.approve(code, { approved: true, approved_comment: 'Welcome.' })
    expect((await world.itemOf('anonymous', code))?.approved).toBe(true)
    return { world, code }
  }

  const reviewed = [
    { who: 'owner', field: 'name', value: 'Review Circle Renamed' },
    { who: 'owner', field: 'subtitle', value: 'After' },
    { who: 'owner', field: 'description', value: 'A new description.' },
    { who: 'owner', field: 'image_url', value: 'https://img.example/b.png' },
    { who: 'owner', field: 'image_url', value: null },
    { who: 'officer', field: 'name', value: 'Officer Renamed Circle' },
  ]
  for (const { who, field, value } of reviewed) {
    it(`sends an approved club back to pending when the ${who} changes ${field} to ${JSON.stringify(value)}`, async () => {
      const { world, code } = await approvedClub()
      const before = await world.detailOf('admin', code)
      const res = await world.as(who)(clubUrl(code), { method: 'PATCH', json: { [field]: value } })
      expect(res.status).toBe(200)
      const body = await readJson(res)
      expect(body[field]).toEqual(value)
      expect([body.approved, body.approved_on, body.approved_by]).toEqual([false, null, null])
      const stored = await world.detailOf('admin', code)
      expect([stored.approved, stored.approved_on]).toEqual([false, null])
      // docs/reference.md §11: the public keeps seeing the approved version, in the list and on retrieve.
      const shown = await world.itemOf('anonymous', code)
      expect(shown.approved).toBe(true)
      if (field in shown) expect(shown[field]).toEqual(before[field])
      const retrieved = await world.req(clubUrl(code))
      expect(retrieved.status).toBe(200)
      expect((await readJson(retrieved))[field]).toEqual(before[field])
      expect((await world.listOf('admin', '?approved=false')).map((club) => club.code)).toContain(code)
      // The owner still sees it.
      expect((await world.as('owner')(clubUrl(code))).status).toBe(200)
    })
  }

  const kept = [
    { who: 'owner', json: { size: 3 } },
    { who: 'owner', json: { accepting_members: true } },
    { who: 'owner', json: { email: 'new@clubs.example.edu', website: 'https://review.example/' } },
    { who: 'owner', json: { tags: [{ name: 'Games' }] } },
    { who: 'owner', json: { name: 'Review Circle', subtitle: 'Before' } },
    { who: 'officer', json: { how_to_get_involved: 'Come along.' } },
    { who: 'admin', json: { name: 'Admin Renamed Circle' } },
    { who: 'admin', json: { description: 'Written by the admin.' } },
  ]
  for (const { who, json } of kept) {
    it(`keeps a club approved when the ${who} sends ${JSON.stringify(json)}`, async () => {
      const { world, code } = await approvedClub()
      const res = await world.as(who)(clubUrl(code), { method: 'PATCH', json })
      expect(res.status).toBe(200)
      const body = await readJson(res)
      expect([body.approved, body.approved_by, body.approved_on, body.approved_comment]).toEqual([
        true,
        'admin',
        NOW_ISO,
        'Welcome.',
      ])
      const item = await world.itemOf('anonymous', code)
      expect(item?.approved).toBe(true)
      for (const [field, value] of Object.entries(json)) if (field !== 'tags') expect(body[field]).toEqual(value)
    })
  }

  it('accepts a GET-edit-PUT from the owner that sends approved and approved_comment back unchanged', async () => {
    const { world, code } = await approvedClub()
    const detail = await world.detailOf('owner', code)
    const body = { ...detail, tags: detail.tags.map((tag: Json) => ({ id: tag.id })), size: 4 }
    const res = await world.as('owner')(clubUrl(code), { method: 'PUT', json: body })
    expect(res.status).toBe(200)
    const answer = await readJson(res)
    expect([answer.size, answer.approved, answer.approved_comment]).toEqual([4, true, 'Welcome.'])
  })

  it('accepts the same PUT with a new name, and the club goes back to pending', async () => {
    const { world, code } = await approvedClub()
    const detail = await world.detailOf('owner', code)
    const body = { ...detail, tags: [], name: 'Put Renamed Circle' }
    const res = await world.as('owner')(clubUrl(code), { method: 'PUT', json: body })
    expect(res.status).toBe(200)
    expect((await readJson(res)).approved).toBe(false)
    expect((await world.itemOf('anonymous', code)).name).toBe(detail.name)
  })

  const tampering = [
    { who: 'owner', method: 'PATCH', change: { approved: false } },
    { who: 'owner', method: 'PATCH', change: { approved_comment: 'I approve of myself.' } },
    { who: 'officer', method: 'PATCH', change: { approved: false, approved_comment: 'Welcome.' } },
    { who: 'owner', method: 'PUT', change: { approved: false } },
    { who: 'owner', method: 'PUT', change: { approved_comment: '' } },
  ]
  for (const { who, method, change } of tampering) {
    it(`refuses a ${method} by the ${who} that changes ${Object.keys(change).join(', ')} with 403`, async () => {
      const { world, code } = await approvedClub()
      const before = await world.detailOf('admin', code)
      const detail = await world.detailOf(who, code)
      const json = method === 'PUT' ? { ...detail, tags: [], size: 2, ...change } : { size: 2, ...change }
      const res = await world.as(who)(clubUrl(code), { method, json })
      expect(res.status).toBe(403)
      expect(Object.keys(await readJson(res))).toEqual(['detail'])
      expect(await world.detailOf('admin', code)).toEqual(before)
    })
  }

  it('refuses an owner who approves their own pending club (403), and keeps it pending', async () => {
    const world = await people()
    const code = await world.found({ name: 'Self Approved Circle' })
    const res = await world.as('owner')(clubUrl(code), { method: 'PATCH', json: { approved: true } })
    expect(res.status).toBe(403)
    expect((await world.detailOf('admin', code)).approved).toBe(false)
    expect((await world.req(clubUrl(code))).status).toBe(404)
  })

  it('lets an owner send approved: false back unchanged while the club is pending', async () => {
    const world = await people()
    const code = await world.found({ name: 'Pending Echo Circle' })
    const res = await world.as('owner')(clubUrl(code), {
      method: 'PATCH',
      json: { approved: false, approved_comment: '', size: 2 },
    })
    expect(res.status).toBe(200)
    const body = await readJson(res)
    expect([body.size, body.approved, body.approved_on, body.approved_by]).toEqual([2, false, null, null])
  })
})

describe('private e-mail', () => {
  const EMAIL = 'secret@clubs.example.edu'
  const SHOWN: Record<Who, string> = {
    anonymous: 'Hidden',
    user: 'Hidden',
    member: 'Hidden',
    officer: EMAIL,
    owner: EMAIL,
    admin: EMAIL,
  }
  for (const who of CALLERS) {
    it(`shows ${SHOWN[who] === 'Hidden' ? '"Hidden"' : 'the real address'} to ${who} (list and detail)`, async () => {
      const world = await people()
      const code = await world.found({ name: 'Quiet Circle', email: EMAIL, email_public: false })
      await world.approve(code)
      expect((await world.itemOf(who, code)).email).toBe(SHOWN[who])
      expect((await world.detailOf(who, code)).email).toBe(SHOWN[who])
    })
  }

  it('shows a public address to everyone', async () => {
    const world = await people()
    const code = await world.found({ name: 'Loud Circle', email: 'loud@clubs.example.edu' })
    await world.approve(code)
    for (const who of CALLERS) expect((await world.itemOf(who, code)).email).toBe('loud@clubs.example.edu')
  })

  it('does not let the anonymous cached list carry the owner’s view, or the other way round', async () => {
    const world = await people()
    const code = await world.found({ name: 'Cached Quiet Circle', email: EMAIL, email_public: false })
    await world.approve(code)
    expect((await world.itemOf('owner', code)).email).toBe(EMAIL)
    expect((await world.itemOf('anonymous', code)).email).toBe('Hidden')
    expect((await world.itemOf('owner', code)).email).toBe(EMAIL)
    expect((await world.itemOf('anonymous', code)).email).toBe('Hidden')
  })
})

describe('is_member', () => {
  const IS_MEMBER: Record<Who, boolean> = {
    anonymous: false,
    user: false,
    member: true,
    officer: true,
    owner: true,
    admin: false,
  }
  for (const who of CALLERS) {
    it(`is ${IS_MEMBER[who]} for ${who} (list and detail)`, async () => {
      const world = await people()
      const code = await world.found({ name: 'Membership Circle' })
      await world.approve(code)
      expect((await world.itemOf(who, code)).is_member).toBe(IS_MEMBER[who])
      expect((await world.detailOf(who, code)).is_member).toBe(IS_MEMBER[who])
      expect((await world.detailOf(who, code)).membership_count).toBe(3)
    })
  }
})

const LINKS = [
  { noun: 'favorite', path: '/api/favorites/', flag: 'is_favorite', counter: 'favorite_count' as string | null },
  { noun: 'subscription', path: '/api/subscriptions/', flag: 'is_subscribe', counter: null },
]

for (const { noun, path, flag, counter } of LINKS) {
  describe(`${noun}s`, () => {
    /** An approved club "Linked Circle" nobody has linked yet. */
    async function linkable(json: Json = {}) {
      const world = await people()
      const code = await world.found({ name: 'Linked Circle', ...json })
      await world.approve(code)
      const add = (who: string, club: unknown = code) => world.as(who)(path, { method: 'POST', json: { club } })
      const drop = (who: string, club = code) => world.as(who)(`${path}${club}/`, { method: 'DELETE' })
      return { world, code, add, drop }
    }

    it(`adds a ${noun} with 201 {club: <list representation>}`, async () => {
      const { world, code, add } = await linkable()
      const res = await add('user')
      expect(res.status).toBe(201)
      const body = await readJson(res)
      expect(body).toEqual({ club: await world.itemOf('user', code) })
      expect(body.club[flag]).toBe(true)
    })

    it(`answers a second ${noun} of the same club with 400 on club`, async () => {
      const { add } = await linkable()
      expect((await add('user')).status).toBe(201)
      const again = await add('user')
      expect(again.status).toBe(400)
      expect(Object.keys(await readJson(again))).toEqual(['club'])
    })

    it(`sets ${flag} for that user only`, async () => {
      const { world, code, add } = await linkable()
      expect((await add('user')).status).toBe(201)
      const expected: Record<string, boolean> = {
        user: true,
        other: false,
        owner: false,
        admin: false,
        anonymous: false,
      }
      for (const [who, value] of Object.entries(expected)) {
        expect((await world.itemOf(who, code))[flag]).toBe(value)
        expect((await world.detailOf(who, code))[flag]).toBe(value)
      }
    })

    it(`lists the caller's ${noun}s as [{club: {...}}]`, async () => {
      const { world, code, add } = await linkable()
      expect((await add('user')).status).toBe(201)
      expect((await add('user', 'penn-chess-society')).status).toBe(201)
      const res = await world.as('user')(path)
      expect(res.status).toBe(200)
      expect(await readJson(res)).toEqual([
        { club: await world.itemOf('user', code) },
        { club: await world.itemOf('user', 'penn-chess-society') },
      ])
      expect(await readJson(await world.as('other')(path))).toEqual([])
    })

    it(`removes a ${noun} with 204, and a second DELETE is a 404`, async () => {
      const { world, code, add, drop } = await linkable()
      expect((await add('user')).status).toBe(201)
      const res = await drop('user')
      expect(res.status).toBe(204)
      expect(await res.text()).toBe('')
      expect((await world.itemOf('user', code))[flag]).toBe(false)
      expect(await readJson(await world.as('user')(path))).toEqual([])
      const again = await drop('user')
      expect(again.status).toBe(404)
      expect(await readJson(again)).toEqual({ detail: 'Not found.' })
    })

    it(`answers DELETE of another user's ${noun} with 404 and keeps it`, async () => {
      const { world, code, add, drop } = await linkable()
      expect((await add('user')).status).toBe(201)
      expect((await drop('other')).status).toBe(404)
      expect((await world.itemOf('user', code))[flag]).toBe(true)
    })

    it(`refuses a ${noun} of a pending club the caller cannot see with 400, but its owner may`, async () => {
      const world = await people()
      const code = await world.found({ name: 'Unseen Circle' })
      const res = await world.as('user')(path, { method: 'POST', json: { club: code } })
      expect(res.status).toBe(400)
      expect(Object.keys(await readJson(res))).toEqual(['club'])
      expect(await readJson(await world.as('user')(path))).toEqual([])
      const byMember = await world.as('member')(path, { method: 'POST', json: { club: code } })
      expect(byMember.status).toBe(400)
      const byOwner = await world.as('owner')(path, { method: 'POST', json: { club: code } })
      expect(byOwner.status).toBe(201)
    })

    const invalid = [
      { rule: 'an unknown club', json: { club: 'no-such-club' }, field: 'club' },
      { rule: 'a club that is not a string', json: { club: 7 }, field: 'club' },
      { rule: 'no club', json: {}, field: 'club' },
      { rule: 'an unknown field', json: { club: 'penn-chess-society', note: 'x' }, field: 'note' },
    ]
    for (const { rule, json, field } of invalid) {
      it(`answers ${rule} with 400 on ${field}`, async () => {
        const { world } = await linkable()
        const res = await world.as('user')(path, { method: 'POST', json })
        expect(res.status).toBe(400)
        expect(Object.keys(await readJson(res))).toEqual([field])
        expect(await readJson(await world.as('user')(path))).toEqual([])
      })
    }

    it(`answers anonymous ${noun} requests with 401`, async () => {
      const { world, code } = await linkable()
      for (const res of [
        await world.req(path),
        await world.req(path, { method: 'POST', json: { club: code } }),
        await world.req(`${path}${code}/`, { method: 'DELETE' }),
      ]) {
        expect(res.status).toBe(401)
        expect(res.headers.get('www-authenticate')).toStartWith('Bearer')
      }
    })

    if (counter) {
      it(`counts ${noun}s in ${counter}, and the anonymous list follows`, async () => {
        const { world, code, add, drop } = await linkable()
        const anonymousCount = async () => (await world.itemOf('anonymous', code))[counter]
        expect(await anonymousCount()).toBe(0)
        expect((await add('user')).status).toBe(201)
        expect(await anonymousCount()).toBe(1)
        expect((await world.detailOf('anonymous', code))[counter]).toBe(1)
        expect((await add('other')).status).toBe(201)
        expect(await anonymousCount()).toBe(2)
        expect((await drop('user')).status).toBe(204)
        expect(await anonymousCount()).toBe(1)
        expect((await drop('other')).status).toBe(204)
        expect(await anonymousCount()).toBe(0)
      })

      it(`orders the default list by ${counter} once a club gains ${noun}s`, async () => {
        const { world, code, add } = await linkable()
        const first = async () => (await world.listOf('anonymous'))[0]!
        const leader = await first()
        for (let i = 0; i <= leader[counter]; i++) {
          const username = `fan${i}`
          const token = (await users(world, username))[username]
          const res = await world.req(path, { method: 'POST', token, json: { club: code } })
          expect(res.status).toBe(201)
        }
        expect((await add('user')).status).toBe(201)
        expect((await first()).code).toBe(code)
      })
    } else {
      it('refuses a club with enables_subscription false with 400 on club', async () => {
        const { world, add } = await linkable({ enables_subscription: false })
        const res = await add('user')
        expect(res.status).toBe(400)
        expect(Object.keys(await readJson(res))).toEqual(['club'])
        expect(await readJson(await world.as('user')(path))).toEqual([])
      })
    }

    it(`keeps a ${noun} out of the caller's list while its club is hidden from them`, async () => {
      const { world, code, add } = await linkable()
      expect((await add('user')).status).toBe(201)
      expect((await world.as('owner')(clubUrl(code), { method: 'PATCH', json: { active: false } })).status).toBe(200)
      expect(await readJson(await world.as('user')(path))).toEqual([])
    })
  })
}

describe('per-caller lists', () => {
  async function favorited() {
    const world = await people()
    const code = await world.found({ name: 'Favorite Circle' })
    await world.approve(code)
    expect((await world.as('user')('/api/favorites/', { method: 'POST', json: { club: code } })).status).toBe(201)
    return { world, code }
  }

  it('answers the same list URL with each caller’s own is_favorite, whoever asks first', async () => {
    const { world, code } = await favorited()
    const sequence: [Who | 'other', boolean][] = [
      ['anonymous', false],
      ['user', true],
      ['anonymous', false],
      ['other', false],
      ['user', true],
      ['anonymous', false],
    ]
    for (const [who, expected] of sequence) expect((await world.itemOf(who, code)).is_favorite).toBe(expected)
  })

  it('does not let the anonymous cached answer pick up a user’s flags when the user asks first', async () => {
    const { world, code } = await favorited()
    for (const query of ['?ordering=name', '?search=favorite', '?page=1&page_size=100']) {
      const user = await readJson(await world.as('user')(`/api/clubs/${query}`))
      const anonymous = await readJson(await world.req(`/api/clubs/${query}`))
      const pick = (body: any) => (Array.isArray(body) ? body : body.results).find((c: Json) => c.code === code)
      expect([pick(user).is_favorite, pick(anonymous).is_favorite]).toEqual([true, false])
    }
  })

  it('gives the user a different ETag from the anonymous one, so a conditional GET cannot answer 304', async () => {
    const { world } = await favorited()
    const anonymous = await world.req('/api/clubs/')
    const etag = anonymous.headers.get('etag')
    expect(etag).toBeString()
    const user = await world.as('user')('/api/clubs/', { headers: { 'if-none-match': etag! } })
    expect(user.status).toBe(200)
    expect(user.headers.get('etag')).not.toBe(etag)
  })
})
