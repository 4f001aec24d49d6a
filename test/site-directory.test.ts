import { describe, expect, it } from 'bun:test'
import { makeApp, readJson } from '../harness/app'
import { APPLICATION_REQUIRED, RECRUITING_CYCLES, SIZES } from '../src/model/club'
import { users } from '../harness/users'

// The directory and the club pages of the campus site (docs/reference.md §20), in process: `/` is the
// directory for browsers and the API's redirect for programs; cards, search, tag filters and
// paging come from the same list the API answers; pages for nobody in particular are kept per
// data version, and per host, whose logos they show.

const HTML = { accept: 'text/html' }

const page = async (app: Awaited<ReturnType<typeof makeApp>>, path: string, host = 'localhost') => {
  const res = await app.app.handle(new Request(`http://${host}${path}`, { headers: HTML }))
  return { status: res.status, headers: res.headers, html: await res.text() }
}
const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" }
/** The names on the cards of a directory page, in order, as text. */
const cards = (html: string) =>
  [...html.matchAll(/<h3><a href="\/clubs\/[^"]+">([^<]+)<\/a><\/h3>/g)].map((m) =>
    m[1]!.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]!),
  )

describe('the directory at /', () => {
  it('is the directory for a browser and a redirect to /api/ for a program', async () => {
    const app = await makeApp()
    const html = await page(app, '/')
    expect(html.status).toBe(200)
    expect(html.headers.get('content-type')).toContain('text/html')
    expect(html.headers.get('content-security-policy')).toContain("script-src 'self'")
    expect(html.headers.get('content-security-policy')).not.toContain('unsafe-inline')
    expect(html.html).toContain('<title>Student clubs · Club Directory</title>')
    const program = await app.req('/', { headers: { accept: 'application/json' } })
    expect([program.status, program.headers.get('location')]).toEqual([302, 'http://localhost/api/'])
  })

  it('shows the public clubs of the API’s first page, in its order, 24 a page, with paging', async () => {
    const app = await makeApp()
    const api = await readJson(await app.req('/api/clubs/?page=1&page_size=24'))
    expect(cards((await page(app, '/')).html)).toEqual(api.results.map((club: any) => club.name))
    const second = await readJson(await app.req('/api/clubs/?page=2&page_size=24'))
    expect(cards((await page(app, '/?page=2')).html)).toEqual(second.results.map((club: any) => club.name))
  })

  it('searches and filters by tag as the API does', async () => {
    const app = await makeApp()
    const searched = await readJson(await app.req('/api/clubs/?search=chess'))
    const html = (await page(app, '/?search=chess')).html
    expect(cards(html)).toEqual(searched.map((club: any) => club.name))
    expect(html).toContain('value="chess"')
    const tagged = await readJson(await app.req('/api/clubs/?tags=Games&page=1&page_size=24'))
    expect(cards((await page(app, '/?tags=Games')).html)).toEqual(tagged.results.map((club: any) => club.name))
  })

  it('shows a change at once although pages are kept per data version', async () => {
    const app = await makeApp()
    expect((await page(app, '/clubs/penn-chess-society')).html).toContain('Casual games, serious tournaments')
    await app.admin.patch('/api/clubs/penn-chess-society/', { subtitle: 'Now with bughouse' })
    const after = (await page(app, '/clubs/penn-chess-society')).html
    expect(after).toContain('Now with bughouse')
    expect(cards((await page(app, '/?search=bughouse')).html)).toEqual(['Penn Chess Society'])
  })

  it('keeps a page per host: a logo of this service shows on its own host only', async () => {
    const app = await makeApp()
    const url = `http://clubs.example.edu/api/logos/${'ab'.repeat(32)}.webp`
    await app.admin.patch('/api/clubs/penn-chess-society/', { image_url: url })
    const logo = `<img class="logo" src="${url}?size=256"`
    expect((await page(app, '/clubs/penn-chess-society', 'clubs.example.edu')).html).toContain(logo)
    expect((await page(app, '/clubs/penn-chess-society', 'other.example.edu')).html).not.toContain(logo)
  })
})

describe('the directory’s controls', () => {
  const names = async (app: Awaited<ReturnType<typeof makeApp>>, apiQuery: string) =>
    (await readJson(await app.req(`/api/clubs/?page=1&page_size=24&${apiQuery}`))).results.map((c: any) => c.name)

  it('sorts by name, most favorited and newest, as the list orders', async () => {
    const app = await makeApp()
    expect(cards((await page(app, '/?sort=name')).html)).toEqual(await names(app, 'ordering=name'))
    expect(cards((await page(app, '/?sort=newest')).html)).toEqual(await names(app, 'ordering=-created_at,name'))
    const favorites = await names(app, 'ordering=-favorite_count,name')
    expect(cards((await page(app, '/?sort=favorites')).html)).toEqual(favorites)
    expect(cards((await page(app, '/')).html)).toEqual(favorites)
    // Anything else is the list's own order, never an error.
    expect(cards((await page(app, '/?sort=%00nonsense')).html)).toEqual(favorites)
    const html = (await page(app, '/?sort=newest')).html
    expect(html).toContain('<label for="sort">Sort by</label>')
    expect(html).toMatch(/<option value="newest" selected>Newest<\/option>/)
    // The order is kept from page to page.
    expect(html).toContain('href="/?sort=newest&amp;page=2"')
  })

  it('offers best match first with a search, and most favorited as a choice', async () => {
    const app = await makeApp()
    const html = (await page(app, '/?search=society')).html
    expect(html).toMatch(/<option value selected>Best match<\/option>/)
    expect(cards((await page(app, '/?search=society&sort=favorites')).html)).toEqual(
      (await readJson(await app.req('/api/clubs/?search=society&ordering=-favorite_count,name'))).map(
        (c: any) => c.name,
      ),
    )
  })

  it('says that tags combine, all of them, and shows the clubs with every tag chosen', async () => {
    const app = await makeApp()
    const html = (await page(app, '/?tags=Music&tags=Performing+Arts')).html
    expect(html).toContain('a club shows when it has all the tags chosen')
    const both = await names(app, 'tags=Music,Performing%20Arts')
    expect(both.length).toBeGreaterThan(0)
    expect(both.length).toBeLessThan((await names(app, 'tags=Music')).length)
    expect(cards(html)).toEqual(both)
  })

  it('has a link clearing the search, tags and order once any is chosen', async () => {
    const app = await makeApp()
    const clear = '<a href="/">Clear search and filters</a>'
    expect((await page(app, '/')).html).not.toContain(clear)
    for (const path of ['/?search=chess', '/?tags=Games', '/?sort=name'])
      expect((await page(app, path)).html).toContain(clear)
  })

  it('has an icon: /favicon.ico and the one each page names are images', async () => {
    const app = await makeApp()
    const html = (await page(app, '/')).html
    const named = /<link rel="icon" href="([^"]+)"/.exec(html)?.[1]
    expect(named).toBe('/site/favicon.svg')
    for (const path of ['/favicon.ico', named!]) {
      const res = await app.req(path)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^image\//)
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100)
    }
    const ico = new Uint8Array(await (await app.req('/favicon.ico')).arrayBuffer())
    expect([...ico.slice(0, 4)]).toEqual([0, 0, 1, 0])
  })

  it('answers a file it does not have as every unknown path, in the reference error shape (docs/reference.md §8)', async () => {
    const app = await makeApp()
    const res = await app.req('/site/no-such-file.css')
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toStartWith('application/json')
    expect(await res.json()).toEqual({ detail: 'Not found.' })
  })
})

describe('a club’s page', () => {
  it('has the club’s name as its heading and in its title, and a 404 page for no club', async () => {
    const app = await makeApp()
    const club = await page(app, '/clubs/penn-chess-society')
    expect(club.html).toContain('<h1>Penn Chess Society</h1>')
    expect(club.html).toContain('<title>Penn Chess Society · Club Directory</title>')
    const missing = await page(app, '/clubs/no-such-club')
    expect(missing.status).toBe(404)
    expect(missing.html).toContain('<h1>Page not found</h1>')
  })

  it('hides a pending club from the public', async () => {
    const app = await makeApp()
    const { olive: token } = await users(app, 'olive')
    await app.req('/api/clubs/', { method: 'POST', token, json: { name: 'Quiet Circle' } })
    expect((await page(app, '/clubs/quiet-circle')).status).toBe(404)
    expect(cards((await page(app, '/?search=quiet')).html)).toEqual([])
  })

  /** The club page's facts as label → text, from its definition list. */
  const facts = (html: string) =>
    Object.fromEntries(
      [...html.matchAll(/<dt>([^<]+)<\/dt><dd>(.*?)<\/dd>/g)].map((m) => [m[1], m[2]!.replace(/<[^>]+>/g, '')]),
    )

  it('shows every public field, coded values by the labels the API documents', async () => {
    const app = await makeApp()
    const club = await readJson(await app.req('/api/clubs/penn-chess-society/'))
    const html = (await page(app, '/clubs/penn-chess-society')).html
    expect(facts(html)).toEqual({
      Address: club.address,
      Size: `${SIZES[club.size as keyof typeof SIZES]} members`,
      'How to join': APPLICATION_REQUIRED[club.application_required as keyof typeof APPLICATION_REQUIRED],
      'Recruiting cycle': RECRUITING_CYCLES[club.recruiting_cycle as keyof typeof RECRUITING_CYCLES],
      Founded: '14 October 1902',
      'Meets online': 'No',
      'Appointment needed': 'No',
    })
    const docs = await readJson(await app.req('/swagger/json'))
    const size = docs.components.schemas.ClubDetail.properties.size
    const sizeSchema = size.$ref ? docs.components.schemas[size.$ref.split('/').pop()] : size
    expect(sizeSchema['x-enum-descriptions']).toContain(SIZES[club.size as keyof typeof SIZES])
  })

  it('links an address that is a web address, and leaves out a fact the club does not have', async () => {
    const app = await makeApp()
    await app.admin.patch('/api/clubs/penn-chess-society/', {
      address: 'https://meet.example.edu/chess',
      founded: null,
      available_virtually: true,
      appointment_needed: true,
      size: 4,
      application_required: 5,
      recruiting_cycle: 4,
    })
    const html = (await page(app, '/clubs/penn-chess-society')).html
    expect(html).toContain('<a href="https://meet.example.edu/chess" rel="noopener noreferrer">')
    expect(facts(html)).toEqual({
      Address: 'https://meet.example.edu/chess',
      Size: '101+ members',
      'How to join': 'Application and interview required',
      'Recruiting cycle': 'Both',
      'Meets online': 'Yes',
      'Appointment needed': 'Yes',
    })
  })

  it('names the campus time zone beside meeting times, and shows the public officers with their titles', async () => {
    const app = await makeApp({ config: { timezone: 'America/New_York' } })
    await app.admin.patch('/api/clubs/penn-chess-society/', {
      meetings: [{ day: 'tuesday', start: '18:00', end: '20:00', location: 'Houston Hall 201', note: '' }],
    })
    await users(app, 'olive')
    await app.admin.post('/api/clubs/penn-chess-society/members/', {
      username: 'olive',
      role: 'officer',
      title: 'Treasurer',
      public: true,
    })
    const html = (await page(app, '/clubs/penn-chess-society')).html
    expect(html).toContain('Every Tuesday, 18:00–20:00 (America/New_York)')
    expect(html).toMatch(/<strong>olive<\/strong>, Treasurer/)
  })
})
