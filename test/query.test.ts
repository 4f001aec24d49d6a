import { beforeAll, describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { fold, LIST_FIELDS, ORDERING_FIELDS } from '../harness/contract'
import { ADMIN_TOKEN, makeApp, readJson, SEED_FILE } from '../harness/app'
import { users } from '../harness/users'

// docs/reference.md §6 (list query parameters) and docs/reference.md §1.1 (the list representation), through app.handle.

type Item = Record<string, any>
type App = Awaited<ReturnType<typeof makeApp>>

const codesOf = (items: Item[]) => items.map((item) => item.code as string)

const BOOLEAN_FILTERS = [
  'accepting_members',
  'appointment_needed',
  'available_virtually',
  'enables_subscription',
  'is_school_unit',
] as const

/**
 * Clubs that tie with each other (and with seed clubs) on every ordering field but `code`:
 * favorite_count 0, the same size, founded null or shared, names equal once folded.
 */
const TIE_CLUBS = [
  { code: 'tie-d', name: 'Ëlan Vital', size: 3, founded: null },
  {
    code: 'tie-b',
    name: 'Élan Vital',
    size: 3,
    founded: '1999-09-09',
    email: 'elan@clubs.example.edu',
    email_public: false,
  },
  { code: 'tie-a', name: 'Elan Vital', size: 3, founded: '1999-09-09', tags: [{ name: 'Music' }] },
  { code: 'tie-c', name: 'Zephyr Society', size: 3, founded: null, subtitle: 'Winds and weather' },
]
const PENDING_CLUB = { code: 'pending-probe', name: 'Pending Probe Club', subtitle: 'Awaiting a decision' }

/** The sample data plus the tie clubs (approved) and one club left pending. */
async function fixture(): Promise<App> {
  const app = await makeApp()
  for (const club of TIE_CLUBS) {
    expect((await app.admin.post('/api/clubs/', club)).status).toBe(201)
    expect((await app.admin.patch(`/api/clubs/${club.code}/`, { approved: true })).status).toBe(200)
  }
  expect((await app.admin.post('/api/clubs/', PENDING_CLUB)).status).toBe(201)
  return app
}

let shared: App
/** GET the list as anyone (or as the admin) and parse the body. */
const list = async (query = '', token: string | null = null): Promise<any> => {
  const res = await shared.req(`/api/clubs/${query}`, { token })
  expect(res.status).toBe(200)
  return readJson(res)
}
const status400 = async (query: string, token: string | null = null) => {
  const res = await shared.req(`/api/clubs/${query}`, { token })
  return { status: res.status, body: await readJson(res) }
}

beforeAll(async () => {
  shared = await fixture()
})

type Key = { field: (typeof ORDERING_FIELDS)[number]; descending: boolean }
const parseKeys = (ordering: string): Key[] =>
  ordering.split(',').map((term) => ({
    field: term.replace(/^-/, '') as Key['field'],
    descending: term.startsWith('-'),
  }))

/** The order docs/reference.md §6 describes, computed here: each key in turn (nulls last), then code ascending. */
function expectedOrder(items: Item[], ordering: string): string[] {
  const keys = parseKeys(ordering)
  const valueOf = (item: Item, field: Key['field']) => (field === 'name' ? fold(item.name) : item[field])
  return codesOf(
    [...items].sort((a, b) => {
      for (const { field, descending } of keys) {
        const x = valueOf(a, field)
        const y = valueOf(b, field)
        const c = x === y ? 0 : x === null ? 1 : y === null ? -1 : x < y ? -1 : 1
        if (c !== 0) return descending ? -c : c
      }
      return a.code < b.code ? -1 : a.code > b.code ? 1 : 0
    }),
  )
}

describe('ordering', () => {
  const rows = ORDERING_FIELDS.flatMap((field) => [field, `-${field}`])

  it.each(rows)('orders the list by %s, ties broken by code ascending', async (ordering) => {
    const unordered = await list()
    const ordered = await list(`?ordering=${ordering}`)
    expect(ordered).toHaveLength(unordered.length)
    expect(codesOf(ordered)).toEqual(expectedOrder(unordered, ordering))
  })

  it.each(ORDERING_FIELDS.filter((f) => f !== 'code'))(
    'has clubs tied on %s, so the tie-break is exercised',
    async (field) => {
      const items: Item[] = await list()
      const values = items.map((item) => (field === 'name' ? fold(item.name) : JSON.stringify(item[field])))
      expect(new Set(values).size).toBeLessThan(values.length)
    },
  )

  it('puts clubs without a founded date last ascending and first descending', async () => {
    const ascending: Item[] = await list('?ordering=founded')
    const descending: Item[] = await list('?ordering=-founded')
    const nulls = ascending.filter((item) => item.founded === null).length
    expect(nulls).toBeGreaterThan(1)
    expect(ascending.slice(-nulls).every((item) => item.founded === null)).toBe(true)
    expect(descending.slice(0, nulls).every((item) => item.founded === null)).toBe(true)
  })

  it('compares names ignoring case and accents, and breaks the tie by code even descending', async () => {
    for (const ordering of ['name', '-name']) {
      const codes = codesOf(await list(`?ordering=${ordering}`))
      const at = ['tie-a', 'tie-b', 'tie-d'].map((code) => codes.indexOf(code))
      expect(at).toEqual([at[0]!, at[0]! + 1, at[0]! + 2])
    }
  })

  it('orders by -favorite_count, name, code by default', async () => {
    const unordered = await list('?ordering=code')
    expect(codesOf(await list())).toEqual(expectedOrder(unordered, '-favorite_count,name,code'))
  })

  it('orders by several fields: size, then -name', async () => {
    const unordered = await list()
    const ordered = codesOf(await list('?ordering=size,-name'))
    expect(ordered).toEqual(expectedOrder(unordered, 'size,-name'))
    expect(ordered).not.toEqual(expectedOrder(unordered, 'size,name'))
  })

  it.each(['colour', '-colour', 'name,colour', 'approved', 'email'])(
    'refuses ordering=%s with a 400 naming ordering',
    async (ordering) => {
      const { status, body } = await status400(`?ordering=${ordering}`)
      expect(status).toBe(400)
      expect(Object.keys(body)).toEqual(['ordering'])
    },
  )

  it('keeps every order right across creates, edits, favorites and deletes', async () => {
    const app = await fixture()
    const get = async (query: string) => readJson(await app.req(`/api/clubs/${query}`, { token: ADMIN_TOKEN }))
    // Asked for once, so each order is kept sorted by the writes that follow.
    for (const ordering of rows) await get(`?ordering=${ordering}`)
    const { fan: token } = await users(app, 'fan')
    const writes = [
      () => app.admin.post('/api/clubs/', { name: 'Aardvark Appreciation', size: 4, founded: '1901-01-01' }),
      () => app.admin.patch('/api/clubs/penn-chess-society/', { name: 'Zugzwang Society', size: 1, founded: null }),
      () => app.req('/api/favorites/', { method: 'POST', token, json: { club: 'knit-wits' } }),
      () => app.admin.patch('/api/clubs/hack-club/', { active: false }),
      () => app.admin.delete('/api/clubs/run-club/'),
    ]
    for (const write of writes) {
      expect((await write()).status).toBeLessThan(300)
      const unordered = await get('?ordering=code')
      for (const ordering of rows)
        expect(codesOf(await get(`?ordering=${ordering}`))).toEqual(expectedOrder(unordered, ordering))
    }
  })

  it.each([
    ['anonymous', null],
    ['admin', ADMIN_TOKEN],
  ])('answers the same request twice in the same order (%s)', async (_who, token) => {
    for (const query of ['', '?ordering=size', '?ordering=-founded', '?ordering=favorite_count']) {
      expect(codesOf(await list(query, token))).toEqual(codesOf(await list(query, token)))
    }
  })
})

/** The list items with the description each club's page shows (list items do not carry it). */
const withDescriptions = (items: Item[]) =>
  Promise.all(
    items.map(async (item) => ({
      ...item,
      ...(await readJson(await shared.req(`/api/clubs/${item.code}/?fields=description`))),
    })),
  )

/** Every term must be found in one of name, subtitle, code, tag names (docs/reference.md §6), or the description (docs/reference.md §16). */
const matchesSearch = (item: Item, search: string) => {
  const haystacks = [item.name, item.subtitle, item.code, item.description, ...item.tags.map((t: Item) => t.name)].map(
    fold,
  )
  return fold(search)
    .split(/\s+/)
    .filter(Boolean)
    .every((term) => haystacks.some((h) => h.includes(term)))
}

describe('search', () => {
  const rows: { search: string; includes: string[] }[] = [
    { search: 'societe', includes: ['societe-francaise'] },
    { search: 'SOCIÉTÉ', includes: ['societe-francaise'] },
    { search: 'Société Française', includes: ['societe-francaise'] },
    { search: 'francais', includes: ['societe-francaise'] },
    { search: 'chess', includes: ['penn-chess-society'] },
    { search: 'CHESS society', includes: ['penn-chess-society'] },
    { search: 'serious', includes: ['penn-chess-society'] },
    { search: 'penn-chess', includes: ['penn-chess-society'] },
    { search: 'asociacion', includes: ['asociacion-de-estudiantes-latinos'] },
    { search: 'portugues cafe', includes: ['cafe-portugues'] },
    { search: 'Music', includes: ['tie-a', 'musica-andina-ensemble'] },
    { search: 'Community Service', includes: [] },
    { search: 'weather', includes: ['tie-c'] },
  ]

  it.each(rows)('finds exactly the clubs where every term of "$search" matches', async ({ search, includes }) => {
    const all: Item[] = await withDescriptions(await list())
    // In the default order: without ?ordering= a search answers the most relevant first.
    const found = codesOf(await list(`?search=${encodeURIComponent(search)}&ordering=-favorite_count,name`))
    const expected = codesOf(all.filter((item) => matchesSearch(item, search)))
    expect(found).toEqual(expected)
    expect(found.length).toBeGreaterThan(0)
    expect(found.length).toBeLessThan(all.length)
    for (const code of includes) expect(found).toContain(code)
  })

  it('searches the description too (docs/reference.md §16)', async () => {
    // "intercollegiate" appears only in the chess society's description.
    expect(codesOf(await list('?search=intercollegiate'))).toEqual(['penn-chess-society'])
    expect(codesOf(await list('?search=INTERCOLLÉGIATE chess'))).toEqual(['penn-chess-society'])
  })

  it('finds clubs by a tag name', async () => {
    const all: Item[] = await list()
    const found = codesOf(await list('?search=games'))
    for (const item of all.filter((i) => i.tags.some((t: Item) => t.name === 'Games')))
      expect(found).toContain(item.code)
  })

  it.each(['zzzqqq', 'societe zzzqqq', 'chess française'])(
    'excludes every club when a term of "%s" matches nothing',
    async (search) => {
      expect(await list(`?search=${encodeURIComponent(search)}`)).toEqual([])
    },
  )

  it("finds what each write leaves, asked the same terms after every write (each term's matches are kept between searches)", async () => {
    const app = await makeApp()
    const found = async (search: string) => {
      const res = await app.req(`/api/clubs/?search=${encodeURIComponent(search)}&fields=code`)
      return codesOf(await readJson(res)).sort()
    }
    const patch = async (code: string, body: Record<string, unknown>) =>
      expect((await app.admin.patch(`/api/clubs/${code}/`, body)).status).toBe(200)
    expect(await found('quokka')).toEqual([])
    expect(await found('intercollegiate')).toEqual(['penn-chess-society'])
    await patch('mock-trial', { subtitle: 'Quokka appreciation' })
    expect(await found('quokka')).toEqual(['mock-trial'])
    expect((await app.admin.post('/api/clubs/', { code: 'quokka-club', name: 'Quokka Club' })).status).toBe(201)
    expect(await found('quokka')).toEqual(['mock-trial'])
    await patch('quokka-club', { approved: true })
    expect(await found('quokka')).toEqual(['mock-trial', 'quokka-club'])
    await patch('mock-trial', { subtitle: '', description: 'Now only its description says quokka.' })
    expect(await found('quokka')).toEqual(['mock-trial', 'quokka-club'])
    expect(await found('quokka description')).toEqual(['mock-trial'])
    await patch('penn-chess-society', { name: 'Penn Draughts Society', description: 'Draughts.' })
    expect(await found('intercollegiate')).toEqual([])
    expect(await found('draughts')).toEqual(['penn-chess-society'])
    expect((await app.admin.delete('/api/clubs/quokka-club/')).status).toBe(204)
    expect(await found('quokka')).toEqual(['mock-trial'])
  })

  it('does not find pending clubs for anonymous callers', async () => {
    expect(await list('?search=pending-probe')).toEqual([])
    expect(codesOf(await list('?search=pending-probe', ADMIN_TOKEN))).toEqual(['pending-probe'])
  })
})

describe('filters', () => {
  const hasTag = (item: Item, id: number) => item.tags.some((t: Item) => t.id === id)

  it('filters by a tag id and by the same tag name alike', async () => {
    const all: Item[] = await list()
    const tags: Item[] = await readJson(await shared.req('/api/tags/'))
    const games = tags.find((t) => t.name === 'Games')!
    const expected = codesOf(all.filter((item) => hasTag(item, games.id)))
    expect(expected.length).toBeGreaterThan(1)
    expect(codesOf(await list(`?tags=${games.id}`))).toEqual(expected)
    expect(codesOf(await list('?tags=Games'))).toEqual(expected)
    expect(codesOf(await list('?tags=games'))).toEqual(expected)
  })

  it('filters by a tag name with a space in it', async () => {
    const all: Item[] = await list()
    const found = codesOf(await list(`?tags=${encodeURIComponent('Community Service')}`))
    expect(found.length).toBeGreaterThan(0)
    expect(found).toEqual(codesOf(all.filter((item) => item.tags.some((t: Item) => t.name === 'Community Service'))))
  })

  it.each(['7,1', 'Games,Academic', '7,Academic'])('keeps only clubs that have every tag in tags=%s', async (tags) => {
    const all: Item[] = await list()
    const found = codesOf(await list(`?tags=${tags}`))
    const both = codesOf(all.filter((item) => hasTag(item, 7) && hasTag(item, 1)))
    expect(both).toContain('penn-chess-society')
    expect(found).toEqual(both)
    expect(found.length).toBeLessThan(all.filter((item) => hasTag(item, 7)).length)
  })

  it.each(['nosuchtag', '999', 'Games,nosuchtag'])('answers an empty list for tags=%s naming no tag', async (tags) => {
    expect(await list(`?tags=${tags}`)).toEqual([])
  })

  it.each(BOOLEAN_FILTERS)('%s: true and false keep only matching clubs and partition the list', async (field) => {
    const all: Item[] = await list()
    const yes: Item[] = await list(`?${field}=true`)
    const no: Item[] = await list(`?${field}=false`)
    expect(codesOf(yes)).toEqual(codesOf(all.filter((item) => item[field] === true)))
    expect(codesOf(no)).toEqual(codesOf(all.filter((item) => item[field] === false)))
    expect(yes.length).toBeGreaterThan(0)
    expect(no.length).toBeGreaterThan(0)
    expect(yes.length + no.length).toBe(all.length)
  })

  const codedRows = [
    { field: 'size', value: '2', wanted: [2] },
    { field: 'size', value: '2,3', wanted: [2, 3] },
    { field: 'application_required', value: '1', wanted: [1] },
    { field: 'application_required', value: '1,4', wanted: [1, 4] },
    { field: 'recruiting_cycle', value: '5', wanted: [5] },
    { field: 'recruiting_cycle', value: '2,3', wanted: [2, 3] },
  ]
  it.each(codedRows)('keeps only clubs with $field in $value', async ({ field, value, wanted }) => {
    const all: Item[] = await list()
    const found = codesOf(await list(`?${field}=${value}`))
    const expected = codesOf(all.filter((item) => wanted.includes(item[field])))
    expect(found).toEqual(expected)
    expect(found.length).toBeGreaterThan(0)
    expect(found.length).toBeLessThan(all.length)
  })

  const malformed = [
    ['size', 'abc'],
    ['size', '9'],
    ['size', '0'],
    ['size', '1.5'],
    ['size', ''],
    ['size', '2,x'],
    ['application_required', '6'],
    ['recruiting_cycle', '-1'],
    ['accepting_members', 'maybe'],
    ['accepting_members', 'TRUE'],
    ['available_virtually', '1'],
    ['active', '0'],
    ['is_school_unit', 'yes please'],
    ['enables_subscription', ''],
    ['approved', 'perhaps'],
  ]
  it.each(malformed)('refuses %s=%p with a 400 naming the parameter', async (param, value) => {
    for (const token of [null, ADMIN_TOKEN]) {
      const { status, body } = await status400(`?${param}=${encodeURIComponent(value!)}`, token)
      expect(status).toBe(400)
      expect(Object.keys(body)).toEqual([param])
    }
  })

  it('names every malformed parameter in one 400', async () => {
    const { status, body } = await status400('?size=abc&accepting_members=maybe&ordering=colour')
    expect(status).toBe(400)
    expect(Object.keys(body).sort()).toEqual(['accepting_members', 'ordering', 'size'])
  })

  it('gives the admin the approval queue with approved=false', async () => {
    const all: Item[] = await list('', ADMIN_TOKEN)
    const queue = codesOf(await list('?approved=false', ADMIN_TOKEN))
    expect(queue).toEqual(codesOf(all.filter((item) => item.approved === false)))
    expect(queue).toContain('pending-probe')
    expect(queue).toContain('quadball-club')
    expect(queue).not.toContain('tie-a')
    const approved = codesOf(await list('?approved=true', ADMIN_TOKEN))
    expect(approved.length + queue.length).toBe(all.length)
  })

  it('gives the admin the inactive clubs with active=false', async () => {
    const all: Item[] = await list('', ADMIN_TOKEN)
    const inactive = codesOf(await list('?active=false', ADMIN_TOKEN))
    expect(inactive).toEqual(codesOf(all.filter((item) => item.active === false)))
    expect(inactive).toContain('poetry-slam-collective')
  })

  it.each(['approved=false', 'active=false'])(
    'never shows hidden clubs to anonymous callers, even with %s',
    async (q) => {
      expect(await list(`?${q}`)).toEqual([])
    },
  )

  it('combines search, filters and ordering', async () => {
    const all: Item[] = await withDescriptions(await list())
    const found = codesOf(await list('?search=vital&size=3&ordering=-code'))
    expect(found).toEqual(
      codesOf(all.filter((item) => matchesSearch(item, 'vital') && item.size === 3))
        .sort()
        .reverse(),
    )
    expect(found).toEqual(['tie-d', 'tie-b', 'tie-a'])
  })
})

describe('pagination', () => {
  /** Follows an absolute link from a page answer back into the app. */
  const follow = async (link: string) => {
    expect(link.startsWith('http://localhost/api/clubs/')).toBe(true)
    const res = await shared.req(link.slice('http://localhost'.length))
    expect(res.status).toBe(200)
    return readJson(res)
  }

  it('answers a bare array without page, even with page_size', async () => {
    const all: Item[] = await list()
    const body = await list('?page_size=5')
    expect(Array.isArray(body)).toBe(true)
    expect(codesOf(body)).toEqual(codesOf(all))
  })

  it('answers {count, next, previous, results} with 15 results for page=1', async () => {
    const all: Item[] = await list()
    const body = await list('?page=1')
    expect(Object.keys(body)).toEqual(['count', 'next', 'previous', 'results'])
    expect(body.count).toBe(all.length)
    expect(body.previous).toBeNull()
    expect(body.next).toBe('http://localhost/api/clubs/?page=2')
    expect(body.results).toEqual(all.slice(0, 15))
  })

  it('walks the whole list in pages of page_size by following next', async () => {
    const all: Item[] = await list('?ordering=name')
    const pages: any[] = [await list('?ordering=name&page=1&page_size=5')]
    while (pages.at(-1).next) pages.push(await follow(pages.at(-1).next))
    expect(pages).toHaveLength(Math.ceil(all.length / 5))
    expect(pages.flatMap((page) => page.results)).toEqual(all)
    for (const page of pages) expect(page.count).toBe(all.length)
    expect(pages[0].previous).toBeNull()
    expect(pages.at(-1).next).toBeNull()
    for (const page of pages.slice(0, -1)) expect(page.results).toHaveLength(5)
  })

  it('links back with previous to the page before', async () => {
    const second = await list('?search=a&page=2&page_size=5')
    const first = await follow(second.previous)
    expect(first).toEqual(await list('?search=a&page=1&page_size=5'))
    expect(first.previous).toBeNull()
    expect(await follow(first.next)).toEqual(second)
  })

  it('answers 404 "Invalid page." for a page past the end', async () => {
    const all: Item[] = await list()
    const last = Math.ceil(all.length / 5)
    expect((await shared.req(`/api/clubs/?page=${last}&page_size=5`)).status).toBe(200)
    for (const page of [last + 1, 1000]) {
      const res = await shared.req(`/api/clubs/?page=${page}&page_size=5`)
      expect(res.status).toBe(404)
      expect(await readJson(res)).toEqual({ detail: 'Invalid page.' })
    }
  })

  it.each([
    ['page', 'page=0'],
    ['page', 'page=-1'],
    ['page', 'page=abc'],
    ['page', 'page=1.5'],
    ['page', 'page='],
    ['page_size', 'page=1&page_size=0'],
    ['page_size', 'page=1&page_size=abc'],
    ['page_size', 'page=1&page_size=-5'],
    ['page_size', 'page=1&page_size='],
  ])('refuses a malformed %s (%s) with a 400 naming it', async (param, query) => {
    const { status, body } = await status400(`?${query}`)
    expect(status).toBe(400)
    expect(Object.keys(body)).toEqual([param])
  })

  it('caps page_size at 100', async () => {
    const big = await makeApp({ config: { autoApprove: true } })
    for (let i = 0; i < 40; i++)
      expect((await big.admin.post('/api/clubs/', { name: `Extra Club ${i}` })).status).toBe(201)
    const all: Item[] = await readJson(await big.req('/api/clubs/'))
    expect(all.length).toBeGreaterThan(100)
    const body = await readJson(await big.req('/api/clubs/?page=1&page_size=1000'))
    expect(body.count).toBe(all.length)
    expect(body.results).toEqual(all.slice(0, 100))
    expect(body.next).toBe('http://localhost/api/clubs/?page=2&page_size=1000')
    const second = await readJson(await big.req('/api/clubs/?page=2&page_size=1000'))
    expect(second.results).toEqual(all.slice(100))
  })

  it('answers page 1 of an empty result with count 0 and no results', async () => {
    expect(await list('?search=zzzqqq&page=1')).toEqual({ count: 0, next: null, previous: null, results: [] })
    expect((await shared.req('/api/clubs/?search=zzzqqq&page=2')).status).toBe(404)
  })

  it('keeps the other parameters in the links', async () => {
    const body = await list('?search=club&ordering=-name&page=1&page_size=3')
    const next = new URL(body.next)
    expect(next.searchParams.get('search')).toBe('club')
    expect(next.searchParams.get('ordering')).toBe('-name')
    expect(next.searchParams.get('page_size')).toBe('3')
    expect(next.searchParams.get('page')).toBe('2')
  })

  // The anonymous list cache must not serve one host's absolute links to another.
  it('builds next/previous from the host the request was made to', async () => {
    const { app } = await makeApp()
    await app.handle(new Request('http://localhost/api/clubs/?page=1&page_size=5'))
    const res = await app.handle(new Request('http://other.example/api/clubs/?page=1&page_size=5'))
    expect((await readJson(res)).next).toBe('http://other.example/api/clubs/?page=2&page_size=5')
  })
})

describe('fields', () => {
  it('keeps only the selected fields of each list item', async () => {
    const all: Item[] = await list()
    const body: Item[] = await list('?fields=code,name')
    expect(body).toHaveLength(all.length)
    for (const item of body) expect(Object.keys(item).sort()).toEqual(['code', 'name'])
    expect(body.map((item) => [item.code, item.name])).toEqual(all.map((item) => [item.code, item.name]))
  })

  it('takes detail fields on the list too, with their values as the detail has them', async () => {
    const body: Item[] = await list('?fields=code,description,website')
    for (const item of body) expect(Object.keys(item).sort()).toEqual(['code', 'description', 'website'])
    const chess = body.find((item) => item.code === 'penn-chess-society')!
    const detail = await readJson(await shared.req('/api/clubs/penn-chess-society/'))
    expect(chess).toEqual({ code: detail.code, description: detail.description, website: detail.website })
    expect(chess.description).not.toBe('')
  })

  it('keeps only the selected fields of the detail', async () => {
    const res = await shared.req('/api/clubs/penn-chess-society/?fields=code,name,description')
    expect(res.status).toBe(200)
    const body = await readJson(res)
    expect(Object.keys(body).sort()).toEqual(['code', 'description', 'name'])
    expect(body.code).toBe('penn-chess-society')
    expect(body.name).toBe('Penn Chess Society')
  })

  it('selects fields in a paginated list too', async () => {
    const body = await list('?fields=code&page=1&page_size=2')
    expect(body.results.map((item: Item) => Object.keys(item))).toEqual([['code'], ['code']])
  })

  it.each(['/api/clubs/?fields=code,colour', '/api/clubs/penn-chess-society/?fields=code,colour'])(
    'refuses an unknown field in %s with a 400 naming fields',
    async (path) => {
      const res = await shared.req(path)
      expect(res.status).toBe(400)
      expect(Object.keys(await readJson(res))).toEqual(['fields'])
    },
  )
})

describe('list representation', () => {
  it('has exactly the 23 fields of the spec, in order, for anyone and for the admin', async () => {
    for (const token of [null, ADMIN_TOKEN]) {
      const items: Item[] = await list('', token)
      expect(items.length).toBeGreaterThan(0)
      for (const item of items) expect(Object.keys(item)).toEqual(LIST_FIELDS)
    }
  })

  it('shows "Hidden" for a private e-mail to anyone, and the address to the admin', async () => {
    const seed = JSON.parse(readFileSync(SEED_FILE, 'utf8'))
    const privateCodes = new Set<string>([
      ...seed.clubs.filter((c: Item) => !c.email_public).map((c: Item) => c.code),
      'tie-b',
    ])
    const anonymous: Item[] = await list()
    const admin: Item[] = await list('', ADMIN_TOKEN)
    const adminByCode = new Map(admin.map((item) => [item.code, item]))
    const hidden = anonymous.filter((item) => privateCodes.has(item.code))
    expect(hidden.length).toBeGreaterThan(2)
    for (const item of anonymous) {
      const real = adminByCode.get(item.code)!.email
      expect(real).not.toBe('Hidden')
      expect(item.email).toBe(privateCodes.has(item.code) ? 'Hidden' : real)
    }
    expect(adminByCode.get('tie-b')!.email).toBe('elan@clubs.example.edu')
  })

  it.each(['?format=json', ''])('answers JSON for format %p', async (query) => {
    expect(Array.isArray(await list(query))).toBe(true)
  })

  it('answers 404 for an unknown format', async () => {
    const res = await shared.req('/api/clubs/?format=xml')
    expect(res.status).toBe(404)
  })
})
