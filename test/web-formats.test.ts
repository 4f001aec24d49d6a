import { afterAll, describe, expect, it } from 'bun:test'
import type { Server } from 'bun'
import { XMLParser, XMLValidator } from 'fast-xml-parser'
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { makeApp, readJson, type TestConfig } from '../harness/app'
import { createLogger } from '../src/log'
import { serve } from '../src/serve'

// The web's own formats (docs/reference.md §24), read by real parsers: the sitemap, the Atom feed and the
// OpenSearch description by fast-xml-parser (well-formed, then element by element), a club page's
// JSON-LD parsed as JSON with its schema.org types checked, robots.txt line by line, and the
// OpenAPI document's webhooks checked against a real event with Ajv.

type App = Awaited<ReturnType<typeof makeApp>>
type Json = any

const CHESS = 'penn-chess-society'
const CHESS_URL = `/api/clubs/${CHESS}/`
const HTML = { accept: 'text/html' }
const TUESDAY = { day: 'tuesday', start: '18:00', end: '20:00', location: 'Houston Hall 202', note: 'Bring a board' }
/** Names and texts that would break XML or HTML if they were not escaped, with a character XML 1.0 cannot hold. */
const AWKWARD = 'Fish & <Chips> "Club" \'s\u0001 ]]> end'
const AWKWARD_IN_XML = 'Fish & <Chips> "Club" \'s ]]> end'

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  isArray: (name) => ['url', 'entry', 'category', 'Url'].includes(name),
})

/** An XML answer: its status and type checked, well-formed, then parsed. */
async function xmlOf(app: App, path: string, type: string, init: RequestInit = {}) {
  const res = await app.req(path, init)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe(type)
  const text = await res.text()
  expect(XMLValidator.validate(text)).toBe(true)
  return { res, text, doc: parser.parse(text) as Json }
}

const atomOf = (app: App, query = '') =>
  xmlOf(app, `/feeds/clubs.atom${query}`, 'application/atom+xml; charset=utf-8').then(({ doc, res }) => ({
    res,
    feed: doc.feed,
    entries: (doc.feed.entry ?? []) as Json[],
  }))

/** A new club, approved: a club.added event. */
async function addClub(app: App, name: string, extra: Record<string, unknown> = {}) {
  const res = await app.admin.post('/api/clubs/', { name, ...extra })
  expect(res.status).toBe(201)
  const { code } = await readJson(res)
  expect((await app.admin.patch(`/api/clubs/${code}/`, { approved: true })).status).toBe(200)
  return code as string
}

/** The JSON-LD documents of a page, parsed. */
function jsonLdOf(html: string): Json[] {
  return [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map((m) => JSON.parse(m[1]!))
}

describe("a club page's JSON-LD", () => {
  it('is an Organization with its meetings as weekly Events, built from the public detail, absolute URLs', async () => {
    const app = await makeApp({ config: { timezone: 'America/New_York' } })
    const logo = 'https://cdn.example.edu/chess.png'
    const patched = await app.admin.patch(CHESS_URL, {
      meetings: [TUESDAY, { day: 'sunday', start: '09:30', end: '11:00', location: '', note: '' }],
      image_url: logo,
      email_public: true,
    })
    expect(patched.status).toBe(200)
    const detail = await readJson(await app.req(CHESS_URL))
    const html = await (await app.req(`/clubs/${CHESS}`, { headers: HTML })).text()
    const [ld, ...others] = jsonLdOf(html)
    expect(others).toEqual([])
    expect(ld['@context']).toBe('https://schema.org')
    expect(ld['@type']).toBe('Organization')
    expect(ld.name).toBe(detail.name)
    expect(ld.description).toBe(detail.description)
    expect(ld.url).toBe(`http://localhost/clubs/${CHESS}`)
    expect(ld.email).toBe(detail.email)
    expect(detail.image_url).toBe(logo)
    expect(ld.logo).toBe(logo)
    expect(ld.keywords).toBe(detail.tags.map((tag: Json) => tag.name).join(', '))
    expect(ld.event.map((event: Json) => event['@type'])).toEqual(['Event', 'Event'])
    const [tuesday, sunday] = ld.event
    expect(tuesday.eventSchedule).toEqual({
      '@type': 'Schedule',
      byDay: 'https://schema.org/Tuesday',
      startTime: '18:00:00',
      endTime: '20:00:00',
      scheduleTimezone: 'America/New_York',
      repeatFrequency: 'P1W',
    })
    expect(tuesday.location).toEqual({ '@type': 'Place', name: 'Houston Hall 202', address: 'Houston Hall 202' })
    expect(tuesday.description).toBe('Bring a board')
    expect(tuesday.organizer).toEqual({ '@id': ld['@id'] })
    expect(sunday.eventSchedule.byDay).toBe('https://schema.org/Sunday')
    expect(sunday.location).toBeUndefined()
  })

  it('leaves out a hidden email, and has no events for a club without meetings', async () => {
    const app = await makeApp()
    expect((await app.admin.patch(CHESS_URL, { email_public: false, meetings: [] })).status).toBe(200)
    const [ld] = jsonLdOf(await (await app.req(`/clubs/${CHESS}`, { headers: HTML })).text())
    expect(ld.email).toBeUndefined()
    expect(ld.logo).toBeUndefined()
    expect(ld.event).toEqual([])
  })

  it('stays valid JSON, and inside its script element, when a field holds </script>, <!-- or line separators', async () => {
    const app = await makeApp()
    const description = 'Hello </script><script>alert(1)</script> <!-- & -->\u2028next </SCRIPT >'
    const note = '</script>'
    expect((await app.admin.patch(CHESS_URL, { description, meetings: [{ ...TUESDAY, note }] })).status).toBe(200)
    const html = await (await app.req(`/clubs/${CHESS}`, { headers: HTML })).text()
    const script = html.match(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/i)![1]!
    // Nothing in it the HTML parser reads as markup: the element ends where the JSON does.
    expect(script).not.toMatch(/[<>]/)
    const ld = JSON.parse(script)
    expect(ld.description).toBe(description)
    expect(ld.event[0].description).toBe(note)
    expect(html).not.toContain('<script>alert(1)</script>')
  })
})

describe('the sitemap and robots.txt', () => {
  it('lists the directory and every public club page, absolute, with the date each last changed', async () => {
    const app = await makeApp()
    const pending = await app.admin.post('/api/clubs/', { name: 'Not Yet Approved' })
    expect(pending.status).toBe(201)
    const { doc, res } = await xmlOf(app, '/sitemap.xml', 'application/xml; charset=utf-8')
    expect(res.headers.get('etag')).toMatch(/^W\//)
    const urls = doc.urlset.url as { loc: string; lastmod: string }[]
    expect(doc.urlset['@xmlns']).toBe('http://www.sitemaps.org/schemas/sitemap/0.9')
    const list = await readJson(await app.req('/api/clubs/?ordering=code&page_size=1000&page=1'))
    expect(urls[0]!.loc).toBe('http://localhost/')
    expect(urls.slice(1).map((url) => url.loc)).toEqual(
      list.results.map((club: Json) => `http://localhost/clubs/${club.code}`),
    )
    const stamps: string[] = []
    for (const [i, club] of (list.results as Json[]).entries()) {
      const { updated_at } = await readJson(await app.req(`/api/clubs/${club.code}/`))
      expect(urls[i + 1]!.lastmod).toBe(`${updated_at.slice(0, 19)}Z`)
      stamps.push(updated_at)
    }
    expect(urls.map((url) => url.loc)).not.toContain('http://localhost/clubs/not-yet-approved')
    expect(urls[0]!.lastmod).toBe(`${stamps.sort().at(-1)!.slice(0, 19)}Z`)
  })

  it('moves with the data: a new public club is listed, with a new ETag; the old one is a 304 until then', async () => {
    const app = await makeApp()
    const first = await app.req('/sitemap.xml')
    const etag = first.headers.get('etag')!
    expect((await app.req('/sitemap.xml', { headers: { 'if-none-match': etag } })).status).toBe(304)
    const code = await addClub(app, 'Kite Makers')
    const after = await app.req('/sitemap.xml', { headers: { 'if-none-match': etag } })
    expect(after.status).toBe(200)
    expect(await after.text()).toContain(`<loc>http://localhost/clubs/${code}</loc>`)
  })

  it('robots.txt allows the public site, keeps crawlers off the API and personal pages, and names the sitemap', async () => {
    const app = await makeApp()
    const res = await app.req('/robots.txt')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    const lines = (await res.text()).split('\n')
    expect(lines[0]).toBe('User-agent: *')
    expect(lines).toContain('Allow: /')
    for (const path of ['/api/', '/my-clubs', '/review', '/sign-in']) expect(lines).toContain(`Disallow: ${path}`)
    expect(lines).toContain('Sitemap: http://localhost/sitemap.xml')
  })
})

describe('the Atom feed', () => {
  it('holds the newest public additions and changes, newest first, each linking the club page', async () => {
    const app = await makeApp()
    expect((await app.admin.patch(CHESS_URL, { subtitle: 'Blitz on Tuesdays' })).status).toBe(200)
    const code = await addClub(app, AWKWARD, { subtitle: 'Frying & <b>tasting</b>' })
    const { feed, entries, res } = await atomOf(app)
    expect(res.headers.get('etag')).toMatch(/^W\//)
    expect(feed['@xmlns']).toBe('http://www.w3.org/2005/Atom')
    expect(feed.id).toBe('http://localhost/feeds/clubs.atom')
    expect(feed.title['#text']).toBe('Club Directory: new and updated clubs')
    expect(feed.author.name).toBe('Club Directory')
    expect(feed.link.find((link: Json) => link['@rel'] === 'self')['@href']).toBe('http://localhost/feeds/clubs.atom')
    const changes = (await readJson(await app.req('/api/changes/?since=0'))).results as Json[]
    expect(feed.updated).toBe(`${changes.at(-1).at.slice(0, 19)}Z`)
    expect(entries.map((entry) => entry.title['#text'])).toEqual([
      `New club: ${AWKWARD_IN_XML}`,
      'Updated: Penn Chess Society',
    ])
    const [added, changed] = entries
    expect(added.link['@href']).toBe(`http://localhost/clubs/${code}`)
    expect(added.link['@rel']).toBe('alternate')
    expect(added.summary['#text']).toBe('Frying & <b>tasting</b>')
    expect(changed.summary['#text']).toBe('Blitz on Tuesdays')
    expect(changed.link['@href']).toBe(`http://localhost/clubs/${CHESS}`)
    const [chessEvent] = changes.filter((event) => event.code === CHESS)
    expect(changed.id).toBe(`http://localhost/api/changes/?since=${chessEvent.seq - 1}&limit=1`)
    expect(changed.updated).toBe(`${chessEvent.at.slice(0, 19)}Z`)
    expect(changed.category.map((category: Json) => category['@term'])).toEqual(
      chessEvent.club.tags.map((tag: Json) => tag.name),
    )
  })

  it('sums up a club without a subtitle by the start of its description', async () => {
    const app = await makeApp()
    const description = `${'Long talks about kites. '.repeat(20)}The end.`
    await addClub(app, 'Long Talkers', { subtitle: '', description })
    const [entry] = (await atomOf(app)).entries
    const summary: string = entry.summary['#text']
    // At most 300 characters, the ellipsis included (a space before it trimmed).
    expect([...summary].length).toBeLessThanOrEqual(300)
    expect([...summary].length).toBeGreaterThan(290)
    expect(summary).toEndWith('…')
    expect(description.startsWith(summary.slice(0, -1))).toBe(true)
  })

  it('keeps the newest 50, and leaves out removed clubs and their earlier changes', async () => {
    const app = await makeApp()
    for (let i = 1; i <= 52; i++) expect((await app.admin.patch(CHESS_URL, { subtitle: `Week ${i}` })).status).toBe(200)
    const gone = await addClub(app, 'Short Lived')
    expect((await app.admin.delete(`/api/clubs/${gone}/`)).status).toBe(204)
    const { entries } = await atomOf(app)
    expect(entries).toHaveLength(50)
    expect(entries[0].summary['#text']).toBe('Week 52')
    expect(entries[49].summary['#text']).toBe('Week 3')
    expect(entries.map((entry) => entry.link['@href'])).not.toContain(`http://localhost/clubs/${gone}`)
  })

  it('narrows to clubs with every tag of ?tags= (ids or names), as the list does', async () => {
    const app = await makeApp()
    const list = async (query: string) =>
      ((await readJson(await app.req(`/api/clubs/?${query}&page_size=1000&page=1`))).results as Json[]).map(
        (c) => c.code,
      )
    const games = await list('tags=Games')
    const notGames = (await list('ordering=code')).find((code) => !games.includes(code))!
    for (const code of [CHESS, notGames])
      expect((await app.admin.patch(`/api/clubs/${code}/`, { subtitle: `New: ${code}` })).status).toBe(200)
    const links = (entries: Json[]) => entries.map((entry) => entry.link['@href'])
    const { entries, feed } = await atomOf(app, '?tags=Games')
    expect(links(entries)).toEqual([`http://localhost/clubs/${CHESS}`])
    expect(feed.id).toBe('http://localhost/feeds/clubs.atom?tags=Games')
    expect(links((await atomOf(app, '?tags=7')).entries)).toEqual([`http://localhost/clubs/${CHESS}`])
    expect((await atomOf(app, '?tags=No%20such%20tag')).entries).toEqual([])
    expect(links((await atomOf(app)).entries)).toEqual([
      `http://localhost/clubs/${notGames}`,
      `http://localhost/clubs/${CHESS}`,
    ])
  })

  it('is a 304 for its ETag until something public changes', async () => {
    const app = await makeApp()
    const etag = (await app.req('/feeds/clubs.atom')).headers.get('etag')!
    expect((await app.req('/feeds/clubs.atom', { headers: { 'if-none-match': etag } })).status).toBe(304)
    expect((await app.admin.patch(CHESS_URL, { subtitle: 'Changed' })).status).toBe(200)
    expect((await app.req('/feeds/clubs.atom', { headers: { 'if-none-match': etag } })).status).toBe(200)
    const gzipped = await app.req('/feeds/clubs.atom', {
      headers: { 'accept-encoding': 'gzip' },
      decompress: false,
    } as RequestInit)
    expect(gzipped.status).toBe(200)
  })
})

describe('the OpenSearch description, and the links on every page', () => {
  it("describes the directory's search, escaped, its ShortName at most 16 characters", async () => {
    const app = await makeApp({ config: { site: { title: 'Fish & <Chips> University' } } as TestConfig })
    const { doc } = await xmlOf(app, '/opensearch.xml', 'application/opensearchdescription+xml; charset=utf-8')
    const description = doc.OpenSearchDescription
    expect(description['@xmlns']).toBe('http://a9.com/-/spec/opensearch/1.1/')
    expect(description.ShortName).toBe('Fish & <Chips> U')
    expect(description.Description).toBe('Search the student clubs of Fish & <Chips> University')
    expect(description.InputEncoding).toBe('UTF-8')
    const html = description.Url.find((url: Json) => url['@type'] === 'text/html')
    expect(html['@template']).toBe('http://localhost/?search={searchTerms}')
    // The template works: the directory answers it.
    const page = await app.req(html['@template'].replace('http://localhost', '').replace('{searchTerms}', 'chess'), {
      headers: HTML,
    })
    expect(await page.text()).toContain('Penn Chess Society')
  })

  it('is linked, with the feed, from the directory and a club page', async () => {
    const app = await makeApp()
    for (const path of ['/', `/clubs/${CHESS}`, '/sign-in']) {
      const html = await (await app.req(path, { headers: HTML })).text()
      expect(html).toMatch(
        /<link rel="alternate" type="application\/atom\+xml" title="[^"]+" href="\/feeds\/clubs.atom"\/?>/,
      )
      expect(html).toMatch(
        /<link rel="search" type="application\/opensearchdescription\+xml" title="[^"]+" href="\/opensearch.xml"\/?>/,
      )
    }
  })
})

describe('without the site', () => {
  it('serves none of them (CLUBS_SITE=false): they describe the site', async () => {
    const app = await makeApp({ config: { site: null } as TestConfig })
    for (const path of ['/sitemap.xml', '/robots.txt', '/feeds/clubs.atom', '/opensearch.xml'])
      expect([path, (await app.req(path)).status]).toEqual([path, 404])
    expect((await app.req('/api/clubs/')).status).toBe(200)
  })
})

describe('behind a reverse proxy', () => {
  const servers: Server<undefined>[] = []
  afterAll(() => {
    for (const server of servers) server.stop(true)
  })

  it('writes the public scheme and host the trusted proxy forwards into every absolute URL', async () => {
    const app = await makeApp()
    expect((await app.admin.patch(CHESS_URL, { subtitle: 'Forwarded' })).status).toBe(200)
    const server = serve(app.app, {
      port: 0,
      host: '127.0.0.1',
      log: createLogger('silent'),
      trustProxy: ['127.0.0.1'],
      metrics: null,
    })
    servers.push(server)
    const base = `http://127.0.0.1:${server.port}`
    const headers = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'clubs.example.edu' }
    const text = async (path: string, extra: Record<string, string> = {}) =>
      (await fetch(`${base}${path}`, { headers: { ...headers, ...extra } })).text()
    const sitemap = parser.parse(await text('/sitemap.xml'))
    expect(sitemap.urlset.url[0].loc).toBe('https://clubs.example.edu/')
    expect(await text('/robots.txt')).toContain('Sitemap: https://clubs.example.edu/sitemap.xml')
    const feed = parser.parse(await text('/feeds/clubs.atom')).feed
    expect(feed.id).toBe('https://clubs.example.edu/feeds/clubs.atom')
    expect(feed.entry[0].link['@href']).toBe(`https://clubs.example.edu/clubs/${CHESS}`)
    const search = parser.parse(await text('/opensearch.xml')).OpenSearchDescription
    expect(search.Url[0]['@template']).toBe('https://clubs.example.edu/?search={searchTerms}')
    const [ld] = jsonLdOf(await text(`/clubs/${CHESS}`, HTML))
    expect(ld.url).toBe(`https://clubs.example.edu/clubs/${CHESS}`)
    // Reached directly, the service's own address: each kept by its own origin.
    expect(parser.parse(await (await fetch(`${base}/sitemap.xml`)).text()).urlset.url[0].loc).toBe(`${base}/`)
  })
})

describe('the webhook deliveries in the OpenAPI document', () => {
  it('declares a POST per event type with the Standard Webhooks headers, whose body schema a real event meets', async () => {
    const app = await makeApp()
    const doc = await readJson(await app.req('/swagger/json'))
    expect(doc.openapi).toStartWith('3.1')
    expect(Object.keys(doc.webhooks)).toEqual(['club.added', 'club.changed', 'club.removed'])
    const ajv = new Ajv2020({ strict: false })
    addFormats(ajv)
    ajv.addSchema(doc, 'openapi.json')
    const bodyOf = (type: string) => {
      const post = doc.webhooks[type].post
      expect(post.parameters.filter((p: Json) => p.in === 'header' && p.required).map((p: Json) => p.name)).toEqual([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ])
      const schema = post.requestBody.content['application/json'].schema
      return ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/')))
    }
    expect((await app.admin.patch(CHESS_URL, { subtitle: 'Hooked' })).status).toBe(200)
    const code = await addClub(app, 'Kite Makers')
    expect((await app.admin.delete(`/api/clubs/${code}/`)).status).toBe(204)
    const events = (await readJson(await app.req('/api/changes/?since=0'))).results as Json[]
    expect(events.map((event) => event.type)).toEqual(['club.changed', 'club.added', 'club.removed'])
    for (const event of events) {
      const validate = bodyOf(event.type)
      expect(`${event.type} ${validate(event)} ${JSON.stringify(validate.errors)}`).toBe(`${event.type} true null`)
      // Each type's schema says its own type: another's event does not meet it.
      const other = events.find((e) => e.type !== event.type)
      expect(validate(other)).toBe(false)
    }
  })
})
