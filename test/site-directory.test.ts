import { describe, expect, it } from 'bun:test'
import { makeApp, readJson } from '../harness/app'

// The directory and the club pages of the campus site (CONTRACT §20), in process: `/` is the
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
    const { token } = await readJson(await app.admin.post('/api/users/', { username: 'olive' }))
    await app.req('/api/clubs/', { method: 'POST', token, json: { name: 'Quiet Circle' } })
    expect((await page(app, '/clubs/quiet-circle')).status).toBe(404)
    expect(cards((await page(app, '/?search=quiet')).html)).toEqual([])
  })
})
