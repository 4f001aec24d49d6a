import { describe, expect, it } from 'bun:test'
import { DETAIL_ONLY_FIELDS, LIST_FIELDS, PUT_REQUIRED_FIELDS } from '../harness/contract'
import { ADMIN_TOKEN, makeApp, NOW, readJson } from '../harness/app'

// Writing clubs through `app.handle`: create, update (PUT), partial update (PATCH), destroy,
// approval and read-only mode (docs/reference.md §3, §4, §8, §10).

type App = Awaited<ReturnType<typeof makeApp>>
type Json = Record<string, any>

const NOW_ISO = NOW.toISOString()
const TODAY = NOW_ISO.slice(0, 10)
const CHESS = 'penn-chess-society'
const CHESS_URL = `/api/clubs/${CHESS}/`
const clubUrl = (code: string) => `/api/clubs/${code}/`

/** Every writable field, each with a value different from the sample club's. */
const FULL_BODY = {
  name: 'Penn Chess & Go Society',
  subtitle: 'Two board games',
  description: 'Chess on Tuesdays, go on Thursdays.',
  email: 'boardgames@clubs.example.edu',
  email_public: false,
  address: 'Houston Hall 202',
  accepting_members: false,
  application_required: 2,
  appointment_needed: true,
  available_virtually: true,
  enables_subscription: false,
  founded: '1903-01-01',
  image_url: 'https://images.example.edu/clubs/go.png',
  recruiting_cycle: 3,
  size: 4,
  is_school_unit: true,
  website: 'https://go.clubs.example.edu/home',
  facebook: 'https://facebook.com/pennchess',
  twitter: 'https://twitter.com/pennchess',
  instagram: null,
  linkedin: 'https://linkedin.com/company/pennchess',
  github: 'https://github.com/pennchess',
  youtube: 'https://youtube.com/@pennchess',
  how_to_get_involved: 'Write to us.',
  listserv: 'boardgames-announce',
  tags: [{ id: 7 }, { name: 'Social' }],
  active: true,
  meetings: [{ day: 'tuesday', start: '19:00', end: '21:00', location: 'Houston Hall 202', note: '' }],
}
const FULL_BODY_TAGS = [
  { id: 7, name: 'Games' },
  { id: 15, name: 'Social' },
]

const post = (app: App, json: unknown) => app.admin.post('/api/clubs/', json)
/** POSTs JSON text as is, for bodies JSON.stringify cannot write (a "__proto__" key). */
const postRaw = (app: App, body: string) =>
  app.req('/api/clubs/', { method: 'POST', token: ADMIN_TOKEN, body, headers: { 'content-type': 'application/json' } })

/** Creates a club as admin and returns its detail representation. */
async function create(app: App, json: Json): Promise<Json> {
  const res = await post(app, json)
  expect(res.status).toBe(201)
  return readJson(res)
}

/** The admin's view of one club (admins see every club, whatever its state). */
async function detailOf(app: App, code: string): Promise<Json> {
  const res = await app.admin.get(clubUrl(code))
  expect(res.status).toBe(200)
  return readJson(res)
}

const codesOf = async (res: Response): Promise<string[]> => {
  expect(res.status).toBe(200)
  return ((await readJson(res)) as Json[]).map((club) => club.code)
}

/** Asserts a 400 whose body names exactly `fields`, each with a list of messages. */
async function expectFieldErrors(res: Response, fields: string[]): Promise<Json> {
  expect(res.status).toBe(400)
  const body = await readJson(res)
  expect(Object.keys(body).sort()).toEqual([...fields].sort())
  for (const field of fields) {
    expect(Array.isArray(body[field])).toBe(true)
    expect(body[field].length).toBeGreaterThan(0)
    for (const message of body[field]) expect(typeof message).toBe('string')
  }
  return body
}

describe('create', () => {
  it('answers 201 with the detail representation and a Location to the new club', async () => {
    const app = await makeApp()
    const res = await post(app, { name: 'Origami Circle' })
    expect(res.status).toBe(201)
    expect(res.headers.get('location')).toEndWith('/api/clubs/origami-circle/')
    const body = await readJson(res)
    // Its creator, an owner, is also shown the latest decision on it (docs/reference.md §22).
    expect(Object.keys(body)).toEqual([...LIST_FIELDS, ...DETAIL_ONLY_FIELDS, 'last_decision'])
    expect(await detailOf(app, 'origami-circle')).toEqual(body)
  })

  it('fills every field not sent with the defaults of docs/reference.md §3.3', async () => {
    const app = await makeApp()
    const body = await create(app, { name: 'Origami Circle' })
    // is_member and membership_count depend on ownership, pinned separately below.
    const { is_member: _m, membership_count: _c, ...rest } = body
    expect(rest).toEqual({
      accepting_members: false,
      active: true,
      address: '',
      application_required: 4,
      appointment_needed: false,
      approved: false,
      available_virtually: false,
      code: 'origami-circle',
      email: '',
      enables_subscription: true,
      favorite_count: 0,
      founded: null,
      image_url: null,
      is_favorite: false,
      is_subscribe: false,
      is_school_unit: false,
      recruiting_cycle: 1,
      name: 'Origami Circle',
      size: 1,
      subtitle: '',
      tags: [],
      description: '',
      website: null,
      facebook: null,
      twitter: null,
      instagram: null,
      linkedin: null,
      github: null,
      youtube: null,
      how_to_get_involved: '',
      listserv: '',
      email_public: true,
      approved_by: null,
      approved_comment: '',
      approved_on: null,
      created_at: NOW_ISO,
      updated_at: NOW_ISO,
      approved_version: null,
      meetings: [],
      last_confirmed_on: null,
      last_decision: null,
    })
  })

  it('makes the creator the club owner: is_member true and one member (docs/reference.md §3.3)', async () => {
    const app = await makeApp()
    const body = await create(app, { name: 'Origami Circle' })
    expect({ is_member: body.is_member, membership_count: body.membership_count }).toEqual({
      is_member: true,
      membership_count: 1,
    })
  })

  it('starts a new club awaiting approval, hidden from anonymous callers', async () => {
    const app = await makeApp()
    const body = await create(app, { name: 'Origami Circle' })
    expect({ approved: body.approved, approved_by: body.approved_by, approved_on: body.approved_on }).toEqual({
      approved: false,
      approved_by: null,
      approved_on: null,
    })
    expect((await app.req(clubUrl('origami-circle'))).status).toBe(404)
    expect(await codesOf(await app.req('/api/clubs/'))).not.toContain('origami-circle')
  })

  it('starts a new club approved and public with CLUBS_AUTO_APPROVE', async () => {
    const app = await makeApp({ config: { autoApprove: true } })
    const body = await create(app, { name: 'Origami Circle' })
    expect(body.approved).toBe(true)
    expect((await app.req(clubUrl('origami-circle'))).status).toBe(200)
    expect(await codesOf(await app.req('/api/clubs/'))).toContain('origami-circle')
  })

  it('trims the name', async () => {
    const app = await makeApp()
    const body = await create(app, { name: '  \t Origami Circle  ' })
    expect({ name: body.name, code: body.code }).toEqual({ name: 'Origami Circle', code: 'origami-circle' })
  })

  const derived = [
    { name: 'Über Chess Club', code: 'uber-chess-club' },
    { name: 'Société Française du Nord', code: 'societe-francaise-du-nord' },
    { name: 'Rock & Roll -- Society!!', code: 'rock-roll-society' },
    { name: 'WQHR 2: The Sequel', code: 'wqhr-2-the-sequel' },
  ]
  for (const { name, code } of derived) {
    it(`derives the code "${code}" from the name "${name}" (lowercase, accents folded, one hyphen per run)`, async () => {
      const app = await makeApp()
      const res = await post(app, { name })
      expect(res.status).toBe(201)
      expect((await readJson(res)).code).toBe(code)
      expect(res.headers.get('location')).toEndWith(`/api/clubs/${code}/`)
    })
  }

  it('suffixes a derived code that is taken with -2, then -3', async () => {
    const app = await makeApp()
    expect((await create(app, { name: 'Penn Chess Society!' })).code).toBe(`${CHESS}-2`)
    expect((await create(app, { name: 'Penn Chess Society?' })).code).toBe(`${CHESS}-3`)
    expect((await detailOf(app, CHESS)).name).toBe('Penn Chess Society')
  })

  it('gives a name of only emoji a valid, non-empty, unique code', async () => {
    const app = await makeApp()
    const first = await create(app, { name: '🎲🎲🎲' })
    const second = await create(app, { name: '♟️🎉' })
    for (const club of [first, second]) expect(club.code).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/)
    expect(first.code).not.toBe(second.code)
    expect(first.name).toBe('🎲🎲🎲')
    expect((await detailOf(app, first.code)).name).toBe('🎲🎲🎲')
  })

  it('keeps an explicit code', async () => {
    const app = await makeApp()
    const res = await post(app, { name: 'Origami Circle', code: 'paper-folders' })
    expect(res.status).toBe(201)
    expect((await readJson(res)).code).toBe('paper-folders')
    expect(res.headers.get('location')).toEndWith('/api/clubs/paper-folders/')
    expect((await app.admin.get('/api/clubs/origami-circle/')).status).toBe(404)
  })

  it('refuses an explicit code that is taken, on the code field', async () => {
    const app = await makeApp()
    await expectFieldErrors(await post(app, { name: 'Origami Circle', code: CHESS }), ['code'])
    expect((await detailOf(app, CHESS)).name).toBe('Penn Chess Society')
  })

  it("keeps a deleted club's code reserved", async () => {
    const app = await makeApp()
    expect((await app.admin.delete(CHESS_URL)).status).toBe(204)
    await expectFieldErrors(await post(app, { name: 'Origami Circle', code: CHESS }), ['code'])
    expect((await create(app, { name: 'Penn  Chess  Society.' })).code).toBe(`${CHESS}-2`)
  })

  for (const name of ['PENN CHESS SOCIETY', 'penn chess society', '  Penn Chess Society ']) {
    it(`refuses a duplicate name ignoring case and spaces around it: ${JSON.stringify(name)}`, async () => {
      const app = await makeApp()
      const res = await post(app, { name })
      expect(res.status).toBe(400)
      expect(await readJson(res)).toEqual({ name: ['A club with this name already exists.'] })
    })
  }
})

describe('validation on create', () => {
  const BASE = { name: 'Origami Circle' }
  const long = (n: number) => 'x'.repeat(n)
  const allTagsAndOneMore = [...Array.from({ length: 20 }, (_, i) => ({ id: i + 1 })), { name: 'Academic' }]

  /** One row per rule: a bad value of one field, which must be the only field named in the 400. */
  const rows: { rule: string; field: string; body: Json }[] = [
    { rule: 'name is required', field: 'name', body: {} },
    { rule: 'name may not be blank', field: 'name', body: { name: '   ' } },
    { rule: 'name is at most 255 characters', field: 'name', body: { name: long(256) } },
    { rule: 'name must be a string', field: 'name', body: { name: 42 } },
    { rule: 'name may not be null', field: 'name', body: { name: null } },
    { rule: 'code follows the code pattern', field: 'code', body: { ...BASE, code: 'Paper_Folders' } },
    { rule: 'code has no leading hyphen', field: 'code', body: { ...BASE, code: '-paper' } },
    { rule: 'code has no double hyphen', field: 'code', body: { ...BASE, code: 'paper--folders' } },
    { rule: 'code is at most 100 characters', field: 'code', body: { ...BASE, code: 'a'.repeat(101) } },
    { rule: 'subtitle is at most 255 characters', field: 'subtitle', body: { ...BASE, subtitle: long(256) } },
    {
      rule: 'description is at most 10,000 characters',
      field: 'description',
      body: { ...BASE, description: long(10_001) },
    },
    {
      rule: 'how_to_get_involved is at most 10,000 characters',
      field: 'how_to_get_involved',
      body: { ...BASE, how_to_get_involved: long(10_001) },
    },
    { rule: 'address is at most 255 characters', field: 'address', body: { ...BASE, address: long(256) } },
    { rule: 'listserv is at most 255 characters', field: 'listserv', body: { ...BASE, listserv: long(256) } },
    { rule: 'email is a valid address', field: 'email', body: { ...BASE, email: 'not-an-email' } },
    {
      rule: 'email is at most 254 characters',
      field: 'email',
      body: { ...BASE, email: `${'a'.repeat(243)}@example.com` },
    },
    {
      rule: 'image_url may not be a javascript: URL',
      field: 'image_url',
      body: { ...BASE, image_url: 'javascript:alert(1)' },
    },
    { rule: 'image_url must be http or https', field: 'image_url', body: { ...BASE, image_url: 'ftp://x/y' } },
    { rule: 'image_url must be a URL', field: 'image_url', body: { ...BASE, image_url: 'not a url' } },
    {
      rule: 'image_url is at most 2,048 characters',
      field: 'image_url',
      body: { ...BASE, image_url: `https://example.com/${'a'.repeat(2029)}` },
    },
    { rule: 'website must be http or https', field: 'website', body: { ...BASE, website: 'file:///etc/passwd' } },
    {
      rule: 'a social link must be http or https',
      field: 'github',
      body: { ...BASE, github: 'data:text/html,<script>alert(1)</script>' },
    },
    { rule: 'founded is a real calendar date', field: 'founded', body: { ...BASE, founded: '2026-02-30' } },
    { rule: 'founded is not in the future', field: 'founded', body: { ...BASE, founded: '2999-01-01' } },
    { rule: 'founded is not tomorrow', field: 'founded', body: { ...BASE, founded: '2026-11-23' } },
    { rule: 'founded is written YYYY-MM-DD', field: 'founded', body: { ...BASE, founded: '1999-1-1' } },
    { rule: 'founded is a string, not a number', field: 'founded', body: { ...BASE, founded: 19990101 } },
    { rule: 'size is at least 1', field: 'size', body: { ...BASE, size: 0 } },
    { rule: 'size is at most 4', field: 'size', body: { ...BASE, size: 5 } },
    { rule: 'size is not coerced from a string', field: 'size', body: { ...BASE, size: '3' } },
    { rule: 'size is an integer', field: 'size', body: { ...BASE, size: 2.5 } },
    {
      rule: 'application_required is at most 5',
      field: 'application_required',
      body: { ...BASE, application_required: 6 },
    },
    { rule: 'recruiting_cycle is at least 1', field: 'recruiting_cycle', body: { ...BASE, recruiting_cycle: 0 } },
    {
      rule: 'a boolean is not coerced from "true"',
      field: 'accepting_members',
      body: { ...BASE, accepting_members: 'true' },
    },
    { rule: 'a boolean is not coerced from 1', field: 'active', body: { ...BASE, active: 1 } },
    { rule: 'a boolean may not be null', field: 'email_public', body: { ...BASE, email_public: null } },
    { rule: 'approved is a JSON boolean', field: 'approved', body: { ...BASE, approved: 'true' } },
    { rule: 'tags is an array', field: 'tags', body: { ...BASE, tags: 'Academic' } },
    { rule: 'a tag id must exist', field: 'tags', body: { ...BASE, tags: [{ id: 999 }] } },
    { rule: 'a tag name must exist', field: 'tags', body: { ...BASE, tags: [{ name: 'Underwater Basket Weaving' }] } },
    { rule: 'at most 20 tags', field: 'tags', body: { ...BASE, tags: allTagsAndOneMore } },
    { rule: 'a tag ref names an id or a name', field: 'tags', body: { ...BASE, tags: [{}] } },
    { rule: 'a tag ref is an object', field: 'tags', body: { ...BASE, tags: [3] } },
    { rule: 'an unknown field is refused', field: 'colour', body: { ...BASE, colour: 'red' } },
  ]

  for (const { rule, field, body } of rows) {
    it(`refuses: ${rule}`, async () => {
      const app = await makeApp()
      await expectFieldErrors(await post(app, body), [field])
      expect((await app.admin.get('/api/clubs/origami-circle/')).status).toBe(404)
    })
  }

  it('names an unknown field exactly as {"colour": ["Unknown field."]}', async () => {
    const app = await makeApp()
    const res = await post(app, { ...BASE, colour: 'red' })
    expect(res.status).toBe(400)
    expect(await readJson(res)).toEqual({ colour: ['Unknown field.'] })
  })

  // Names of Object.prototype members once passed as "known" fields, and "__proto__" replaced the
  // prototype of the validated fields, so inherited values skipped validation (a 500, an invalid
  // code that stopped the next start, an approval).
  for (const key of ['toString', 'constructor', 'valueOf', 'hasOwnProperty', '__proto__']) {
    it(`refuses "${key}" as an unknown field`, async () => {
      const app = await makeApp()
      const res = await postRaw(app, `{"name": "Origami Circle", "${key}": "x"}`)
      expect(res.status).toBe(400)
      expect(await readJson(res)).toEqual({ [key]: ['Unknown field.'] })
    })
  }

  const smuggled = [
    { rule: 'a name smuggled through __proto__', body: '{"__proto__": {"name": 5}}', fields: ['__proto__', 'name'] },
    {
      rule: 'a code smuggled through __proto__',
      body: '{"name": "Origami Circle", "__proto__": {"code": "UPPER CASE!!"}}',
      fields: ['__proto__'],
    },
    {
      rule: 'an approval smuggled through __proto__',
      body: '{"name": "Origami Circle", "__proto__": {"approved": true, "approved_comment": "self"}}',
      fields: ['__proto__'],
    },
  ]
  for (const { rule, body, fields } of smuggled) {
    it(`refuses ${rule} with 400, creating nothing`, async () => {
      const app = await makeApp()
      const before = await codesOf(await app.admin.get('/api/clubs/'))
      await expectFieldErrors(await postRaw(app, body), fields)
      expect(await codesOf(await app.admin.get('/api/clubs/'))).toEqual(before)
    })
  }

  it('names an unknown tag in its message', async () => {
    const app = await makeApp()
    const body = await expectFieldErrors(await post(app, { ...BASE, tags: [{ name: 'Underwater Basket Weaving' }] }), [
      'tags',
    ])
    expect(body.tags.join(' ')).toContain('Underwater Basket Weaving')
  })

  it('refuses a body that is a JSON array under non_field_errors', async () => {
    const app = await makeApp()
    const res = await post(app, [{ name: 'Origami Circle' }])
    expect(res.status).toBe(400)
    const body = await readJson(res)
    expect(body.non_field_errors).toBeArray()
    expect(body.non_field_errors.length).toBeGreaterThan(0)
    for (const message of body.non_field_errors) expect(message).toBeString()
  })

  it('reports a body that is not an object only under non_field_errors', async () => {
    const app = await makeApp()
    for (const body of [[], 'Origami Circle', 42, null])
      await expectFieldErrors(await post(app, body), ['non_field_errors'])
  })

  it('lists every bad field at once in one 400', async () => {
    const app = await makeApp()
    const res = await post(app, {
      name: '',
      code: 'Bad Code',
      size: 9,
      founded: '2999-01-01',
      image_url: 'javascript:alert(1)',
      tags: [{ id: 999 }],
      colour: 'red',
    })
    await expectFieldErrors(res, ['name', 'code', 'size', 'founded', 'image_url', 'tags', 'colour'])
  })

  /** Values just inside each bound, and how the detail then shows them. */
  const accepted: { rule: string; body: Json; shows: Json }[] = [
    { rule: 'a 255-character name', body: { name: long(255) }, shows: { name: long(255) } },
    { rule: 'a 100-character code', body: { ...BASE, code: 'a'.repeat(100) }, shows: { code: 'a'.repeat(100) } },
    { rule: 'a 255-character subtitle', body: { ...BASE, subtitle: long(255) }, shows: { subtitle: long(255) } },
    {
      rule: 'a 10,000-character description',
      body: { ...BASE, description: long(10_000) },
      shows: { description: long(10_000) },
    },
    {
      rule: 'a 254-character email',
      body: { ...BASE, email: `${'a'.repeat(242)}@example.com` },
      shows: { email: `${'a'.repeat(242)}@example.com` },
    },
    { rule: 'an empty email', body: { ...BASE, email: '' }, shows: { email: '' } },
    {
      rule: 'a 2,048-character URL',
      body: { ...BASE, image_url: `https://example.com/${'a'.repeat(2028)}` },
      shows: { image_url: `https://example.com/${'a'.repeat(2028)}` },
    },
    {
      rule: 'http and https URLs',
      body: { ...BASE, website: 'http://example.com/club', youtube: 'https://youtube.com/@club' },
      shows: { website: 'http://example.com/club', youtube: 'https://youtube.com/@club' },
    },
    {
      rule: 'null URLs',
      body: { ...BASE, image_url: null, website: null, facebook: null },
      shows: { image_url: null, website: null, facebook: null },
    },
    { rule: 'founded today', body: { ...BASE, founded: TODAY }, shows: { founded: TODAY } },
    { rule: 'founded on a leap day', body: { ...BASE, founded: '2024-02-29' }, shows: { founded: '2024-02-29' } },
    { rule: 'founded null', body: { ...BASE, founded: null }, shows: { founded: null } },
    {
      rule: 'the highest coded values',
      body: { ...BASE, size: 4, application_required: 5, recruiting_cycle: 5 },
      shows: { size: 4, application_required: 5, recruiting_cycle: 5 },
    },
    {
      rule: 'the lowest coded values',
      body: { ...BASE, size: 1, application_required: 1, recruiting_cycle: 1 },
      shows: { size: 1, application_required: 1, recruiting_cycle: 1 },
    },
    {
      rule: 'tags by id and by name, duplicates collapsing',
      body: { ...BASE, tags: [{ id: 2 }, { name: 'Academic' }, { name: 'Arts' }, { id: 1 }, { id: 2 }] },
      shows: {
        tags: [
          { id: 1, name: 'Academic' },
          { id: 2, name: 'Arts' },
        ],
      },
    },
    {
      rule: 'read-only fields sent on create, ignored',
      body: { ...BASE, favorite_count: 999, membership_count: 999, approved_on: '2020-01-01T00:00:00.000Z' },
      shows: { favorite_count: 0, approved_on: null },
    },
  ]

  for (const { rule, body, shows } of accepted) {
    it(`accepts ${rule}`, async () => {
      const app = await makeApp()
      const created = await create(app, body)
      const stored = await detailOf(app, created.code)
      for (const club of [created, stored]) {
        const picked = Object.fromEntries(Object.keys(shows).map((field) => [field, club[field]]))
        if (picked.tags) picked.tags = [...picked.tags].sort((a: Json, b: Json) => a.id - b.id)
        expect(picked).toEqual(shows)
      }
    })
  }
})

describe('request bodies and credentials', () => {
  const raw = (app: App, body: BodyInit, headers: Record<string, string>, token: string | null = ADMIN_TOKEN) =>
    app.req('/api/clubs/', { method: 'POST', token, body, headers })

  it('answers malformed JSON with 400 {"detail": "JSON parse error - ..."}', async () => {
    const app = await makeApp()
    const res = await raw(app, '{"name": "Origami Circle",', { 'content-type': 'application/json' })
    expect(res.status).toBe(400)
    const body = await readJson(res)
    expect(Object.keys(body)).toEqual(['detail'])
    expect(body.detail).toStartWith('JSON parse error - ')
  })

  it('answers a body that is not JSON with 415 naming the type', async () => {
    const app = await makeApp()
    const res = await raw(app, '{"name": "Origami Circle"}', { 'content-type': 'text/plain' })
    expect(res.status).toBe(415)
    expect(await readJson(res)).toEqual({ detail: 'Unsupported media type "text/plain" in request.' })
    expect((await app.admin.get('/api/clubs/origami-circle/')).status).toBe(404)
  })

  it('answers a form body with 415', async () => {
    const app = await makeApp()
    const res = await raw(app, 'name=Origami+Circle', { 'content-type': 'application/x-www-form-urlencoded' })
    expect(res.status).toBe(415)
    expect((await readJson(res)).detail).toContain('application/x-www-form-urlencoded')
  })

  it('accepts application/json with parameters', async () => {
    const app = await makeApp()
    const res = await raw(app, JSON.stringify({ name: 'Origami Circle' }), {
      'content-type': 'application/json; charset=utf-8',
    })
    expect(res.status).toBe(201)
  })

  it('answers a body over 1 MiB with 413 {detail}', async () => {
    const app = await makeApp()
    const body = JSON.stringify({ name: 'Origami Circle', description: 'x'.repeat(1024 * 1024) })
    const res = await raw(app, body, { 'content-type': 'application/json' })
    expect(res.status).toBe(413)
    const answer = await readJson(res)
    expect(Object.keys(answer)).toEqual(['detail'])
    expect(answer.detail).toBeString()
  })

  it('answers a streamed body over 1 MiB (no Content-Length) with 413', async () => {
    const app = await makeApp()
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024))
    let sent = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"name": "Origami Circle", "description": "'))
        if (sent > 1024 * 1024 + chunk.length) {
          controller.enqueue(new TextEncoder().encode('"}'))
          controller.close()
          return
        }
        controller.enqueue(chunk)
        sent += chunk.length
      },
    })
    const res = await raw(app, stream, { 'content-type': 'application/json' })
    expect(res.status).toBe(413)
    expect(Object.keys(await readJson(res))).toEqual(['detail'])
  })

  const refused: { rule: string; token: string | null; headers?: Record<string, string> }[] = [
    { rule: 'no credentials', token: null },
    { rule: 'a wrong token', token: 'not-the-admin-token' },
    { rule: 'a non-Bearer scheme', token: null, headers: { authorization: `Basic ${btoa('admin:secret')}` } },
  ]
  for (const { rule, token, headers = {} } of refused) {
    it(`answers ${rule} with 401 and WWW-Authenticate: Bearer`, async () => {
      const app = await makeApp()
      const res = await raw(
        app,
        JSON.stringify({ name: 'Origami Circle' }),
        {
          'content-type': 'application/json',
          ...headers,
        },
        token,
      )
      expect(res.status).toBe(401)
      expect(res.headers.get('www-authenticate')).toStartWith('Bearer')
      const body = await readJson(res)
      expect(Object.keys(body)).toEqual(['detail'])
      expect(body.detail).toBeString()
      expect((await app.admin.get('/api/clubs/origami-circle/')).status).toBe(404)
    })
  }
})

describe('update (PUT)', () => {
  it('replaces every writable field, and GET shows them', async () => {
    const app = await makeApp()
    const before = await detailOf(app, CHESS)
    const res = await app.admin.put(CHESS_URL, FULL_BODY)
    expect(res.status).toBe(200)
    const answer = await readJson(res)
    const expected = {
      ...before,
      ...FULL_BODY,
      tags: FULL_BODY_TAGS,
      updated_at: NOW_ISO,
    }
    expect(answer).toEqual(expected)
    expect(await detailOf(app, CHESS)).toEqual(expected)
  })

  it('shows "Hidden" to anonymous callers once email_public is false', async () => {
    const app = await makeApp()
    expect((await app.admin.put(CHESS_URL, FULL_BODY)).status).toBe(200)
    const res = await app.req(CHESS_URL)
    expect(res.status).toBe(200)
    expect((await readJson(res)).email).toBe('Hidden')
  })

  it('lists every missing writable field (except code) in one 400', async () => {
    const app = await makeApp()
    const res = await app.admin.put(CHESS_URL, {})
    expect(res.status).toBe(400)
    expect(await readJson(res)).toEqual(
      Object.fromEntries(PUT_REQUIRED_FIELDS.map((field) => [field, ['This field is required.']])),
    )
  })

  for (const missing of ['size', 'tags', 'name', 'founded']) {
    it(`requires ${missing} on PUT`, async () => {
      const app = await makeApp()
      const { [missing]: _dropped, ...body } = FULL_BODY as Json
      const res = await app.admin.put(CHESS_URL, body)
      expect(res.status).toBe(400)
      expect(await readJson(res)).toEqual({ [missing]: ['This field is required.'] })
    })
  }

  it('is all or nothing: one invalid value changes nothing', async () => {
    const app = await makeApp()
    const before = await detailOf(app, CHESS)
    await expectFieldErrors(await app.admin.put(CHESS_URL, { ...FULL_BODY, size: 9 }), ['size'])
    expect(await detailOf(app, CHESS)).toEqual(before)
  })

  it('accepts the GET-edit-PUT round trip, ignoring read-only fields sent back', async () => {
    const app = await makeApp()
    const before = await detailOf(app, CHESS)
    const res = await app.admin.put(CHESS_URL, { ...before, subtitle: 'Edited subtitle' })
    expect(res.status).toBe(200)
    const expected = { ...before, subtitle: 'Edited subtitle', updated_at: NOW_ISO }
    expect(await readJson(res)).toEqual(expected)
    expect(await detailOf(app, CHESS)).toEqual(expected)
  })

  it('refuses a change of code on the code field', async () => {
    const app = await makeApp()
    await expectFieldErrors(await app.admin.put(CHESS_URL, { ...FULL_BODY, code: 'chess' }), ['code'])
    expect((await app.admin.get('/api/clubs/chess/')).status).toBe(404)
    expect((await detailOf(app, CHESS)).name).toBe('Penn Chess Society')
  })

  it('ignores the same code sent back', async () => {
    const app = await makeApp()
    const res = await app.admin.put(CHESS_URL, { ...FULL_BODY, code: CHESS })
    expect(res.status).toBe(200)
    expect((await readJson(res)).code).toBe(CHESS)
  })

  it("refuses another club's name, ignoring case", async () => {
    const app = await makeApp()
    const res = await app.admin.put(CHESS_URL, { ...FULL_BODY, name: 'robotics collective' })
    expect(res.status).toBe(400)
    expect(await readJson(res)).toEqual({ name: ['A club with this name already exists.'] })
  })
})

describe('partial update (PATCH)', () => {
  it('changes only the field sent, and moves updated_at to now', async () => {
    const app = await makeApp()
    const before = await detailOf(app, CHESS)
    expect(before.updated_at).not.toBe(NOW_ISO)
    const res = await app.admin.patch(CHESS_URL, { subtitle: 'Only this changes' })
    expect(res.status).toBe(200)
    const expected = { ...before, subtitle: 'Only this changes', updated_at: NOW_ISO }
    expect(await readJson(res)).toEqual(expected)
    expect(await detailOf(app, CHESS)).toEqual(expected)
  })

  const changes: { field: string; value: unknown; shows?: unknown }[] = [
    { field: 'name', value: '  Penn Chess Club  ', shows: 'Penn Chess Club' },
    { field: 'size', value: 4 },
    { field: 'founded', value: null },
    { field: 'image_url', value: null },
    { field: 'accepting_members', value: false },
    { field: 'tags', value: [{ name: 'Social' }], shows: [{ id: 15, name: 'Social' }] },
    { field: 'tags', value: [], shows: [] },
  ]
  for (const { field, value, shows = value } of changes) {
    it(`changes ${field} to ${JSON.stringify(value)} and nothing else`, async () => {
      const app = await makeApp()
      const before = await detailOf(app, CHESS)
      const res = await app.admin.patch(CHESS_URL, { [field]: value })
      expect(res.status).toBe(200)
      expect(await readJson(res)).toEqual({ ...before, [field]: shows, updated_at: NOW_ISO })
    })
  }

  it('ignores read-only fields', async () => {
    const app = await makeApp()
    const before = await detailOf(app, CHESS)
    const res = await app.admin.patch(CHESS_URL, {
      favorite_count: 9999,
      membership_count: 9999,
      is_favorite: true,
      is_member: true,
      is_subscribe: true,
      approved_by: 'mallory',
      approved_on: '2000-01-01T00:00:00.000Z',
      created_at: '2000-01-01T00:00:00.000Z',
      updated_at: '2000-01-01T00:00:00.000Z',
    })
    expect(res.status).toBe(200)
    const expected = { ...before, updated_at: NOW_ISO }
    expect(await readJson(res)).toEqual(expected)
    expect(await detailOf(app, CHESS)).toEqual(expected)
  })

  it('validates each field sent, and changes nothing on failure', async () => {
    const app = await makeApp()
    const before = await detailOf(app, CHESS)
    await expectFieldErrors(await app.admin.patch(CHESS_URL, { subtitle: 'fine', size: '3', colour: 'red' }), [
      'size',
      'colour',
    ])
    expect(await detailOf(app, CHESS)).toEqual(before)
  })

  it("refuses another club's name, but accepts the club's own name in other case", async () => {
    const app = await makeApp()
    const taken = await app.admin.patch(CHESS_URL, { name: 'ROBOTICS COLLECTIVE' })
    expect(taken.status).toBe(400)
    expect(await readJson(taken)).toEqual({ name: ['A club with this name already exists.'] })
    const own = await app.admin.patch(CHESS_URL, { name: 'PENN CHESS SOCIETY' })
    expect(own.status).toBe(200)
    expect((await readJson(own)).name).toBe('PENN CHESS SOCIETY')
  })

  it('refuses a change of code', async () => {
    const app = await makeApp()
    await expectFieldErrors(await app.admin.patch(CHESS_URL, { code: 'chess' }), ['code'])
  })
})

describe('approval (docs/reference.md §4)', () => {
  /** A new club, pending approval. */
  async function pending(app: App): Promise<string> {
    return (await create(app, { name: 'Origami Circle' })).code
  }

  it('approves: the server records who and when, with the comment', async () => {
    const app = await makeApp()
    const code = await pending(app)
    const before = await detailOf(app, code)
    const res = await app.admin.patch(clubUrl(code), { approved: true, approved_comment: 'ok' })
    expect(res.status).toBe(200)
    const expected = {
      ...before,
      approved: true,
      approved_by: 'admin',
      approved_on: NOW_ISO,
      approved_comment: 'ok',
      updated_at: NOW_ISO,
      last_decision: { action: 'approved', comment: 'ok', by: 'admin', at: NOW_ISO },
    }
    expect(await readJson(res)).toEqual(expected)
    expect(await detailOf(app, code)).toEqual(expected)
  })

  it('shows an approved club to anonymous callers', async () => {
    const app = await makeApp()
    const code = await pending(app)
    expect((await app.admin.patch(clubUrl(code), { approved: true, approved_comment: 'ok' })).status).toBe(200)
    expect((await app.req(clubUrl(code))).status).toBe(200)
    expect(await codesOf(await app.req('/api/clubs/'))).toContain(code)
  })

  it('rejects a pending club: approved stays false, approved_on and approved_by are set', async () => {
    const app = await makeApp()
    const code = await pending(app)
    const res = await app.admin.patch(clubUrl(code), { approved: false, approved_comment: 'no' })
    expect(res.status).toBe(200)
    const body = await readJson(res)
    expect({
      approved: body.approved,
      approved_by: body.approved_by,
      approved_on: body.approved_on,
      approved_comment: body.approved_comment,
    }).toEqual({ approved: false, approved_by: 'admin', approved_on: NOW_ISO, approved_comment: 'no' })
    expect((await app.req(clubUrl(code))).status).toBe(404)
  })

  it('hides a pending club from anonymous callers: absent from the list, 404 on retrieve', async () => {
    const app = await makeApp()
    const code = await pending(app)
    expect(await codesOf(await app.req('/api/clubs/'))).not.toContain(code)
    const res = await app.req(clubUrl(code))
    expect(res.status).toBe(404)
    expect(await readJson(res)).toEqual({ detail: 'Not found.' })
  })

  it('shows a pending club to admins, and in the approval queue ?approved=false', async () => {
    const app = await makeApp()
    const code = await pending(app)
    expect(await codesOf(await app.admin.get('/api/clubs/'))).toContain(code)
    const queue = await readJson(await app.admin.get('/api/clubs/?approved=false'))
    expect(queue.map((club: Json) => club.code)).toContain(code)
    expect(queue.map((club: Json) => club.code)).toContain('quadball-club')
    for (const club of queue) expect(club.approved).toBe(false)
  })

  it('hides an inactive approved club from anonymous callers; admins list it with ?active=false', async () => {
    const app = await makeApp()
    expect((await app.admin.patch(CHESS_URL, { active: false })).status).toBe(200)
    expect((await detailOf(app, CHESS)).approved).toBe(true)
    expect(await codesOf(await app.req('/api/clubs/'))).not.toContain(CHESS)
    expect((await app.req(CHESS_URL)).status).toBe(404)
    const inactive = await readJson(await app.admin.get('/api/clubs/?active=false'))
    expect(inactive.map((club: Json) => club.code)).toContain(CHESS)
    expect(inactive.map((club: Json) => club.code)).toContain('poetry-slam-collective')
    for (const club of inactive) expect(club.active).toBe(false)
  })
})

describe('destroy (DELETE)', () => {
  it('answers 204 with an empty body', async () => {
    const app = await makeApp()
    const res = await app.admin.delete(CHESS_URL)
    expect(res.status).toBe(204)
    expect(await res.text()).toBe('')
  })

  const afterwards: { method: string; send: (app: App) => Promise<Response> }[] = [
    { method: 'GET', send: (app) => app.admin.get(CHESS_URL) },
    { method: 'PUT', send: (app) => app.admin.put(CHESS_URL, FULL_BODY) },
    { method: 'PATCH', send: (app) => app.admin.patch(CHESS_URL, { subtitle: 'back?' }) },
    { method: 'DELETE', send: (app) => app.admin.delete(CHESS_URL) },
    { method: 'anonymous GET', send: (app) => app.req(CHESS_URL) },
  ]
  for (const { method, send } of afterwards) {
    it(`answers ${method} of a deleted club with 404 {"detail": "Not found."}`, async () => {
      const app = await makeApp()
      expect((await app.admin.delete(CHESS_URL)).status).toBe(204)
      const res = await send(app)
      expect(res.status).toBe(404)
      expect(await readJson(res)).toEqual({ detail: 'Not found.' })
    })
  }

  it('removes the club from the admin list and the anonymous list', async () => {
    const app = await makeApp()
    expect((await app.admin.delete(CHESS_URL)).status).toBe(204)
    expect(await codesOf(await app.admin.get('/api/clubs/'))).not.toContain(CHESS)
    expect(await codesOf(await app.req('/api/clubs/'))).not.toContain(CHESS)
  })

  it('answers an anonymous DELETE with 401 and keeps the club', async () => {
    const app = await makeApp()
    const res = await app.req(CHESS_URL, { method: 'DELETE' })
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toStartWith('Bearer')
    expect((await app.req(CHESS_URL)).status).toBe(200)
  })

  it('answers DELETE of an unknown code with 404', async () => {
    const app = await makeApp()
    const res = await app.admin.delete('/api/clubs/no-such-club/')
    expect(res.status).toBe(404)
    expect(await readJson(res)).toEqual({ detail: 'Not found.' })
  })
})

describe('read-only mode (CLUBS_READ_ONLY)', () => {
  const writes: { method: string; send: (app: App) => Promise<Response> }[] = [
    { method: 'POST', send: (app) => post(app, { name: 'Origami Circle' }) },
    { method: 'PUT', send: (app) => app.admin.put(CHESS_URL, FULL_BODY) },
    { method: 'PATCH', send: (app) => app.admin.patch(CHESS_URL, { subtitle: 'changed' }) },
    { method: 'DELETE', send: (app) => app.admin.delete(CHESS_URL) },
  ]
  for (const { method, send } of writes) {
    it(`answers ${method} with 405 "This directory is read-only." and an Allow header, changing nothing`, async () => {
      const app = await makeApp({ config: { readOnly: true } })
      const before = await detailOf(app, CHESS)
      const res = await send(app)
      expect(res.status).toBe(405)
      expect(await readJson(res)).toEqual({ detail: 'This directory is read-only.' })
      expect(res.headers.get('allow')).toBe('GET')
      expect(await detailOf(app, CHESS)).toEqual(before)
      expect((await app.admin.get('/api/clubs/origami-circle/')).status).toBe(404)
    })
  }

  it('still answers reads', async () => {
    const app = await makeApp({ config: { readOnly: true } })
    expect((await app.req('/api/clubs/')).status).toBe(200)
    expect((await app.req(CHESS_URL)).status).toBe(200)
    expect((await app.req('/api/tags/')).status).toBe(200)
  })
})
