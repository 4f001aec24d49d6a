// docs/reference.md §16: what list clients expect. X-Total-Count and Link (exposed through CORS), code=a,b,
// updated_since, ordering by created_at and updated_at, search in the description with the most
// relevant first, all declared in the OpenAPI document.
import { beforeAll, describe, expect, it } from 'bun:test'
import { ADMIN_TOKEN, makeApp, NOW, readJson } from '../harness/app'

type App = Awaited<ReturnType<typeof makeApp>>
type Item = Record<string, any>

const codesOf = (items: Item[]) => items.map((item) => item.code as string)

/** A clock the test moves forward, so that each write has its own updated_at. */
let clock = NOW.getTime()
const tick = () => new Date((clock += 60_000))

let app: App
const list = async (query: string, token: string | null = null) => {
  const res = await app.req(`/api/clubs/${query}`, { token })
  expect(res.status).toBe(200)
  return { res, body: await readJson(res) }
}

/** Clubs that only a search term ties together, at each tier of relevance (docs/reference.md §16). */
const RELEVANCE = [
  { code: 'quux-by-code', name: 'Zed Society' }, // tier 0: the code holds the term
  { code: 'quux-alpha', name: 'Quux Alpha' }, // tier 0: the name does
  { code: 'subtitle-match', name: 'Alpha Subtitle', subtitle: 'The quux way' }, // tier 1
  { code: 'description-match', name: 'Alpha Description', description: 'We meet to talk about quux.' }, // tier 2
  { code: 'split-match', name: 'Beta Quux', subtitle: 'gamma' }, // "quux gamma": name and subtitle together, tier 1
]

beforeAll(async () => {
  app = await makeApp({ now: tick })
  for (const club of RELEVANCE) {
    expect((await app.admin.post('/api/clubs/', club)).status).toBe(201)
    expect((await app.admin.patch(`/api/clubs/${club.code}/`, { approved: true })).status).toBe(200)
  }
  // Most favorited of them: first in the default order, last in relevance.
  expect((await app.admin.post('/api/favorites/', { club: 'description-match' })).status).toBe(201)
  expect((await app.admin.post('/api/clubs/', { code: 'pending-quux', name: 'Pending Quux' })).status).toBe(201)
})

describe('X-Total-Count', () => {
  it.each([
    ['', null],
    ['?page=2&page_size=5', null],
    ['?fields=code', null],
    ['?search=society', null],
    ['?size=1,2&ordering=name', null],
    ['?search=zzz-nothing', null],
    ['', ADMIN_TOKEN],
    ['?approved=false', ADMIN_TOKEN],
    ['?page=1&page_size=3&search=quux', ADMIN_TOKEN],
  ])('counts the clubs that match %s before paging (token: %s)', async (query, token) => {
    const { res, body } = await list(query, token)
    const all = query.includes('page=')
      ? await readJson(await app.req(`/api/clubs/${query.replace(/&?page(_size)?=\d+/g, '')}`, { token }))
      : body
    expect(res.headers.get('x-total-count')).toBe(String(all.length))
    if (body.count !== undefined) expect(body.count).toBe(all.length)
  })

  it('is right for each caller of one URL, the answers being cached per caller', async () => {
    for (let round = 0; round < 2; round++) {
      const anonymous = await list('?search=quux')
      const admin = await list('?search=quux', ADMIN_TOKEN)
      expect(anonymous.res.headers.get('x-total-count')).toBe('5')
      expect(admin.res.headers.get('x-total-count')).toBe('6')
    }
  })
})

describe('Link', () => {
  const linksOf = (res: Response) =>
    Object.fromEntries(
      (res.headers.get('link') ?? '')
        .split(', ')
        .filter(Boolean)
        .map((part) => {
          const [, url, rel] = /^<([^>]+)>; rel="(\w+)"$/.exec(part)!
          return [rel!, url!]
        }),
    )
  const page = (n: number) => `http://localhost/api/clubs/?ordering=code&page=${n}&page_size=10`

  it('names first, prev, next and last as they exist, as absolute URLs', async () => {
    const total = Number((await list('')).res.headers.get('x-total-count'))
    const last = Math.ceil(total / 10)
    expect(linksOf((await list('?ordering=code&page=1&page_size=10')).res)).toEqual({
      first: page(1),
      next: page(2),
      last: page(last),
    })
    expect(linksOf((await list('?ordering=code&page=2&page_size=10')).res)).toEqual({
      first: page(1),
      prev: page(1),
      next: page(3),
      last: page(last),
    })
    expect(linksOf((await list(`?ordering=code&page=${last}&page_size=10`)).res)).toEqual({
      first: page(1),
      prev: page(last - 1),
      last: page(last),
    })
  })

  it('names first and last of a single page, and agrees with next and previous of the body', async () => {
    const single = await list('?search=quux&page=1')
    expect(Object.keys(linksOf(single.res))).toEqual(['first', 'last'])
    const middle = await list('?page=2&page_size=3')
    const links = linksOf(middle.res)
    expect(links.next).toBe(middle.body.next)
    expect(links.prev).toBe(middle.body.previous)
  })

  it('is absent without a page', async () => {
    expect((await list('?page_size=5')).res.headers.get('link')).toBeNull()
  })

  it('is built from the host the request was made to', async () => {
    await list('?page=1&page_size=50')
    const res = await app.app.handle(new Request('http://clubs.example.edu/api/clubs/?page=1&page_size=50'))
    expect(res.headers.get('link')).toContain('<http://clubs.example.edu/api/clubs/?page=2&page_size=50>; rel="next"')
  })

  it('and X-Total-Count are exposed to browsers through CORS', async () => {
    const { res } = await list('?page=1')
    const exposed = res.headers.get('access-control-expose-headers')!.split(', ')
    expect(exposed).toEqual(expect.arrayContaining(['X-Total-Count', 'Link', 'X-Request-Id']))
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
  })
})

describe('?code=a,b', () => {
  it('lists only those clubs, in the list order; a code that matches nothing is no error', async () => {
    const { body } = await list('?code=quux-alpha,penn-chess-society,no-such-club&ordering=name')
    expect(codesOf(body)).toEqual(['penn-chess-society', 'quux-alpha'])
    expect((await list('?code=no-such-club')).body).toEqual([])
  })

  it('shows no club the caller may not see', async () => {
    expect((await list('?code=pending-quux')).body).toEqual([])
    expect(codesOf((await list('?code=pending-quux', ADMIN_TOKEN)).body)).toEqual(['pending-quux'])
  })
})

describe('?updated_since=', () => {
  it('keeps the clubs updated at or after a date-time, and after a change takes in the changed club', async () => {
    const since = tick().toISOString()
    expect((await list(`?updated_since=${since}`)).body).toEqual([])
    expect((await app.admin.patch('/api/clubs/penn-chess-society/', { accepting_members: false })).status).toBe(200)
    const changedAt = (await readJson(await app.admin.get('/api/clubs/penn-chess-society/'))).updated_at
    expect(codesOf((await list(`?updated_since=${since}`)).body)).toEqual(['penn-chess-society'])
    expect(codesOf((await list(`?updated_since=${encodeURIComponent(changedAt)}`)).body)).toEqual([
      'penn-chess-society',
    ])
    const later = new Date(Date.parse(changedAt) + 1).toISOString()
    expect((await list(`?updated_since=${later}`)).body).toEqual([])
  })

  it('reads a date as its first moment (UTC), and a date-time with an offset', async () => {
    const all = (await list('')).body.length
    expect((await list('?updated_since=2000-01-01')).body.length).toBe(all)
    const changedAt = (await readJson(await app.admin.get('/api/clubs/penn-chess-society/'))).updated_at as string
    const local = new Date(Date.parse(changedAt) + 2 * 3600_000).toISOString().slice(0, 19) + '+02:00'
    expect(codesOf((await list(`?updated_since=${encodeURIComponent(local)}`)).body)).toContain('penn-chess-society')
    // Unencoded, the URL turns "+" into a space; it still reads as the offset.
    expect(codesOf((await list(`?updated_since=${local}`)).body)).toContain('penn-chess-society')
  })

  it.each(['yesterday', '2026-02-30', '2026-11-22T25:00:00Z', '22/11/2026', ''])(
    'refuses "%s" with a 400 naming updated_since',
    async (since) => {
      const res = await app.req(`/api/clubs/?updated_since=${encodeURIComponent(since)}`)
      expect(res.status).toBe(400)
      expect(Object.keys(await readJson(res))).toEqual(['updated_since'])
    },
  )
})

describe('?ordering=created_at and updated_at', () => {
  /** Each listed club's detail, for the timestamps the list representation does not carry. */
  const timestamps = async (items: Item[]) =>
    Promise.all(items.map(async (item) => readJson(await app.admin.get(`/api/clubs/${item.code}/`))))

  it.each(['created_at', '-created_at', 'updated_at', '-updated_at', '-updated_at,name'])(
    'orders by %s, ties by code',
    async (ordering) => {
      const items = await timestamps((await list(`?ordering=${ordering}`)).body)
      const [first] = ordering.split(',')
      const field = first!.replace('-', '')
      const descending = first!.startsWith('-')
      for (let i = 1; i < items.length; i++) {
        const [a, b] = [items[i - 1]!, items[i]!]
        const c = a[field] < b[field] ? -1 : a[field] > b[field] ? 1 : 0
        if (c === 0 && ordering.includes('name')) continue
        if (c === 0) expect(a.code < b.code).toBe(true)
        else expect(descending ? c > 0 : c < 0).toBe(true)
      }
      expect(items.length).toBeGreaterThan(50)
    },
  )

  it('puts the newest clubs first with -created_at', async () => {
    const { body } = await list('?ordering=-created_at&page=1&page_size=5')
    expect(codesOf(body.results)).toEqual([
      'split-match',
      'description-match',
      'subtitle-match',
      'quux-alpha',
      'quux-by-code',
    ])
  })
})

describe('?search= in the description, the most relevant first', () => {
  it('puts name and code matches first, then subtitle and tag names, then the description; each in the default order', async () => {
    expect(codesOf((await list('?search=quux')).body)).toEqual([
      // Name or code: in the default order (-favorite_count, name), "Beta Quux" < "Quux Alpha" < "Zed Society".
      'split-match',
      'quux-alpha',
      'quux-by-code',
      'subtitle-match',
      'description-match', // last, though the most favorited
    ])
  })

  it('ranks a club whose terms are spread over name and subtitle with the subtitle matches', async () => {
    expect(codesOf((await list('?search=quux%20gamma')).body)).toEqual(['split-match'])
    expect(codesOf((await list('?search=alpha%20quux')).body)).toEqual([
      'quux-alpha',
      'subtitle-match',
      'description-match',
    ])
  })

  it('keeps the order asked for when ?ordering= is given', async () => {
    const byName = codesOf((await list('?search=quux&ordering=name')).body)
    expect(byName).toEqual(['description-match', 'subtitle-match', 'split-match', 'quux-alpha', 'quux-by-code'])
    const byDefault = codesOf((await list('?search=quux&ordering=-favorite_count,name')).body)
    expect(byDefault[0]).toBe('description-match')
  })

  it('pages the relevance order, and exports it', async () => {
    const all = codesOf((await list('?search=quux')).body)
    const first = await list('?search=quux&page=1&page_size=2')
    const second = await list('?search=quux&page=2&page_size=2')
    expect([...codesOf(first.body.results), ...codesOf(second.body.results)]).toEqual(all.slice(0, 4))
    const csv = await (await app.req('/api/clubs/?search=quux&format=csv&fields=code')).text()
    expect(csv.trim().split('\r\n').slice(1)).toEqual(all)
  })
})

describe('the OpenAPI document', () => {
  it('declares code, updated_since, the new orderings, X-Total-Count and Link', async () => {
    const doc = await readJson(await app.req('/swagger/json'))
    const op = doc.paths['/api/clubs/'].get
    const names = op.parameters.map((p: { name: string }) => p.name)
    expect(names).toEqual(expect.arrayContaining(['code', 'updated_since']))
    const ordering = op.parameters.find((p: { name: string }) => p.name === 'ordering').description
    expect(ordering).toContain('created_at, updated_at')
    expect(Object.keys(op.responses['200'].headers)).toEqual(expect.arrayContaining(['X-Total-Count', 'Link']))
  })
})
