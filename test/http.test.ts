import { describe, expect, it } from 'bun:test'
import { makeApp, readJson } from '../harness/app'

// Headers and negotiation (docs/reference.md §2, §7, §8): Allow, Vary, HEAD, OPTIONS and CORS, wrong
// methods, ETag and 304, gzip, the browsable HTML view, error bodies, /health and /api/tags/.

type App = Awaited<ReturnType<typeof makeApp>>
type Json = Record<string, any>

const CHESS = 'penn-chess-society'
const CHESS_URL = `/api/clubs/${CHESS}/`
const LIST_ALLOW = 'GET, POST'
const DETAIL_ALLOW = 'GET, PUT, PATCH, DELETE'
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8'

/** Every status these tests saw, so the last test can say none was a 500. */
const statuses: { request: string; status: number }[] = []

/** makeApp, with every answer's status recorded. */
async function app(options: Parameters<typeof makeApp>[0] = {}): Promise<App> {
  const made = await makeApp(options)
  const record =
    <A extends unknown[]>(label: (...args: A) => string, send: (...args: A) => Promise<Response>) =>
    async (...args: A) => {
      const res = await send(...args)
      statuses.push({ request: label(...args), status: res.status })
      return res
    }
  return {
    ...made,
    req: record((path, init = {}) => `${init.method ?? 'GET'} ${path}`, made.req),
    admin: {
      get: record((path) => `admin GET ${path}`, made.admin.get),
      post: record((path) => `admin POST ${path}`, made.admin.post),
      put: record((path) => `admin PUT ${path}`, made.admin.put),
      patch: record((path) => `admin PATCH ${path}`, made.admin.patch),
      delete: record((path) => `admin DELETE ${path}`, made.admin.delete),
    },
  }
}

/** The comma-separated values of a header, trimmed. */
const listHeader = (res: Response, name: string) =>
  (res.headers.get(name) ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean)

/** The text a person reads in an HTML page: tags dropped, the entities the page uses decoded. */
const pageText = (html: string) =>
  html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#0*39;|&#x0*27;|&apos;/gi, "'")
    .replace(/&amp;/g, '&')

describe('Allow, Content-Type and Vary on JSON answers', () => {
  it('answers the list with Allow: GET, POST, Content-Type: application/json, and Vary naming Accept', async () => {
    const { req } = await app()
    const res = await req('/api/clubs/')
    expect(res.status).toBe(200)
    expect(res.headers.get('allow')).toBe(LIST_ALLOW)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(listHeader(res, 'vary')).toContain('Accept')
    expect(await readJson(res)).toBeArray()
  })

  it('answers a club with Allow: GET, PUT, PATCH, DELETE', async () => {
    const { req } = await app()
    const res = await req(CHESS_URL)
    expect(res.status).toBe(200)
    expect(res.headers.get('allow')).toBe(DETAIL_ALLOW)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(listHeader(res, 'vary')).toContain('Accept')
  })

  it('answers an error with Content-Type: application/json and Vary naming Accept', async () => {
    const { req } = await app()
    const res = await req('/api/clubs/no-such-club/')
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(listHeader(res, 'vary')).toContain('Accept')
  })

  const pairs: [string, string][] = [
    ['/api/clubs/', '/api/clubs'],
    [CHESS_URL, `/api/clubs/${CHESS}`],
    ['/api/clubs/?ordering=name', '/api/clubs?ordering=name'],
    ['/api/tags/', '/api/tags'],
  ]
  for (const [canonical, bare] of pairs) {
    it(`answers ${bare} exactly as ${canonical}`, async () => {
      const { req } = await app()
      const [a, b] = [await req(canonical), await req(bare)]
      expect(b.status).toBe(200)
      expect(b.status).toBe(a.status)
      expect(b.headers.get('allow')).toBe(a.headers.get('allow'))
      expect(b.headers.get('content-type')).toBe(a.headers.get('content-type'))
      expect(await b.text()).toBe(await a.text())
    })
  }

  it('serves writes without the trailing slash too', async () => {
    const { admin } = await app()
    const res = await admin.patch(`/api/clubs/${CHESS}`, { subtitle: 'No slash' })
    expect(res.status).toBe(200)
    expect((await readJson(await admin.get(CHESS_URL))).subtitle).toBe('No slash')
  })
})

describe('HEAD', () => {
  for (const path of ['/api/clubs/', CHESS_URL]) {
    it(`answers HEAD ${path} with 200, the GET headers and an empty body`, async () => {
      const { req } = await app()
      const get = await req(path)
      const head = await req(path, { method: 'HEAD' })
      expect(head.status).toBe(200)
      expect(await head.text()).toBe('')
      for (const name of ['allow', 'content-type', 'etag'])
        expect({ [name]: head.headers.get(name) }).toEqual({ [name]: get.headers.get(name) })
    })
  }
})

describe('OPTIONS and CORS', () => {
  const endpoints = [
    { path: '/api/clubs/', allow: LIST_ALLOW },
    { path: CHESS_URL, allow: DETAIL_ALLOW },
  ]
  for (const { path, allow } of endpoints) {
    it(`answers OPTIONS ${path} with 200, Allow and JSON metadata`, async () => {
      const { req } = await app()
      const res = await req(path, { method: 'OPTIONS' })
      expect(res.status).toBe(200)
      expect(res.headers.get('allow')).toBe(allow)
      expect(res.headers.get('content-type')).toBe('application/json')
      const body = await readJson(res)
      expect(body).toBeObject()
      expect(body.name).toBeString()
      expect(body.name.length).toBeGreaterThan(0)
      expect(body.description).toBeString()
    })

    it(`answers a CORS preflight of ${path} for any origin, allowing its methods`, async () => {
      const { req } = await app()
      const res = await req(path, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://elsewhere.example.com',
          'access-control-request-method': allow.split(', ').at(-1)!,
          'access-control-request-headers': 'authorization, content-type',
        },
      })
      expect(res.status).toBe(200)
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
      const methods = listHeader(res, 'access-control-allow-methods')
      for (const method of allow.split(', ')) expect(methods).toContain(method)
      const allowedHeaders = listHeader(res, 'access-control-allow-headers').map((h) => h.toLowerCase())
      expect(allowedHeaders).toContain('authorization')
      expect(allowedHeaders).toContain('content-type')
    })
  }

  it('answers OPTIONS /api/tags/ with 200, Allow: GET, POST and a CORS preflight', async () => {
    const { req } = await app()
    const res = await req('/api/tags/', { method: 'OPTIONS' })
    expect(res.status).toBe(200)
    expect(res.headers.get('allow')).toBe('GET, POST')
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect((await readJson(res)).name).toBeString()
  })

  it('lets any origin read an ordinary answer', async () => {
    const { req } = await app()
    const res = await req('/api/clubs/', { headers: { origin: 'https://elsewhere.example.com' } })
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
  })
})

describe('wrong methods', () => {
  const rows = [
    { method: 'DELETE', path: '/api/clubs/', allow: LIST_ALLOW },
    { method: 'PUT', path: '/api/clubs/', allow: LIST_ALLOW },
    { method: 'PATCH', path: '/api/clubs/', allow: LIST_ALLOW },
    { method: 'PUT', path: '/api/clubs', allow: LIST_ALLOW },
    { method: 'POST', path: CHESS_URL, allow: DETAIL_ALLOW },
    { method: 'POST', path: `/api/clubs/${CHESS}`, allow: DETAIL_ALLOW },
    { method: 'PUT', path: '/api/tags/', allow: 'GET, POST' },
    { method: 'DELETE', path: '/api/tags/', allow: 'GET, POST' },
  ]
  for (const { method, path, allow } of rows) {
    it(`answers ${method} ${path} with 405 and Allow: ${allow}`, async () => {
      const { req } = await app()
      const res = await req(path, { method })
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe(allow)
      expect(await readJson(res)).toEqual({ detail: `Method "${method}" not allowed.` })
    })
  }

  it('answers a wrong method with 405 even with admin credentials and a body', async () => {
    const { admin } = await app()
    const res = await admin.post(CHESS_URL, { name: 'Anything' })
    expect(res.status).toBe(405)
    expect(await readJson(res)).toEqual({ detail: 'Method "POST" not allowed.' })
  })
})

describe('ETag and If-None-Match', () => {
  for (const path of ['/api/clubs/', CHESS_URL, '/api/tags/']) {
    it(`answers GET ${path} with an ETag, and If-None-Match with it with 304 and no body`, async () => {
      const { req } = await app()
      const first = await req(path)
      const etag = first.headers.get('etag')
      expect(etag).toBeString()
      expect(etag!.length).toBeGreaterThan(2)
      const again = await req(path, { headers: { 'if-none-match': etag! } })
      expect(again.status).toBe(304)
      expect(await again.text()).toBe('')
      expect(again.headers.get('etag')).toBe(etag)
    })
  }

  it('sends on a 304 the same Vary as on the 200', async () => {
    const { req } = await app()
    const first = await req('/api/clubs/')
    const again = await req('/api/clubs/', { headers: { 'if-none-match': first.headers.get('etag')! } })
    expect(again.status).toBe(304)
    expect(again.headers.get('vary')).toBe(first.headers.get('vary'))
  })

  it('answers an If-None-Match that names another version with 200', async () => {
    const { req } = await app()
    const res = await req('/api/clubs/', { headers: { 'if-none-match': 'W/"something-else"' } })
    expect(res.status).toBe(200)
    expect(await readJson(res)).toBeArray()
  })

  for (const path of ['/api/clubs/', CHESS_URL]) {
    it(`answers the old ETag of ${path} with 200 and a new ETag after a change`, async () => {
      const { req, admin } = await app()
      const old = (await req(path)).headers.get('etag')!
      expect((await admin.patch(CHESS_URL, { subtitle: 'A change everyone sees' })).status).toBe(200)
      const res = await req(path, { headers: { 'if-none-match': old } })
      expect(res.status).toBe(200)
      const etag = res.headers.get('etag')
      expect(etag).toBeString()
      expect(etag).not.toBe(old)
      expect(JSON.stringify(await readJson(res))).toContain('A change everyone sees')
    })
  }

  it('gives a different query a different ETag', async () => {
    const { req } = await app()
    const byFavorites = (await req('/api/clubs/')).headers.get('etag')
    const byName = (await req('/api/clubs/?ordering=name')).headers.get('etag')
    expect(byFavorites).toBeString()
    expect(byName).toBeString()
    expect(byName).not.toBe(byFavorites)
  })

  it('does not answer 304 to a caller who sees different data under the same URL', async () => {
    const { req, admin } = await app()
    const anonymous = (await req('/api/clubs/')).headers.get('etag')!
    const res = await admin.get('/api/clubs/')
    expect(res.headers.get('etag')).not.toBe(anonymous)
  })
})

describe('gzip', () => {
  it('compresses the list for a client that accepts gzip, to at most a fifth of its size', async () => {
    const { req } = await app()
    const plain = await req('/api/clubs/')
    const plainBytes = new Uint8Array(await plain.arrayBuffer())
    const zipped = await req('/api/clubs/', { headers: { 'accept-encoding': 'gzip, deflate, br' } })
    expect(zipped.status).toBe(200)
    expect(zipped.headers.get('content-encoding')).toBe('gzip')
    expect(zipped.headers.get('vary')).toBe('Accept, Accept-Encoding')
    expect(zipped.headers.get('content-type')).toBe('application/json')
    const zippedBytes = new Uint8Array(await zipped.arrayBuffer())
    const unzipped = new TextDecoder().decode(Bun.gunzipSync(zippedBytes))
    expect(JSON.parse(unzipped)).toEqual(JSON.parse(new TextDecoder().decode(plainBytes)))
    expect(zippedBytes.length * 5).toBeLessThanOrEqual(plainBytes.length)
  })

  it('does not compress without Accept-Encoding, but still says the answer varies with it', async () => {
    const { req } = await app()
    const res = await req('/api/clubs/')
    expect(res.headers.get('content-encoding')).toBeNull()
    expect(res.headers.get('vary')).toBe('Accept, Accept-Encoding')
    expect(await readJson(res)).toBeArray()
  })

  it('does not compress for a client that accepts only other encodings', async () => {
    const { req } = await app()
    const res = await req('/api/clubs/', { headers: { 'accept-encoding': 'br' } })
    expect(res.headers.get('content-encoding')).toBeNull()
    expect(await readJson(res)).toBeArray()
  })

  it('does not compress for a client that refuses gzip with q=0', async () => {
    const { req } = await app()
    const res = await req('/api/clubs/', { headers: { 'accept-encoding': 'gzip;q=0, identity' } })
    expect(res.headers.get('content-encoding')).toBeNull()
    expect(await readJson(res)).toBeArray()
  })

  it('leaves a small body uncompressed', async () => {
    const { req } = await app()
    const res = await req('/api/clubs/no-such-club/', { headers: { 'accept-encoding': 'gzip' } })
    expect(res.headers.get('content-encoding')).toBeNull()
    expect(await readJson(res)).toEqual({ detail: 'Not found.' })
  })
})

describe('format negotiation', () => {
  it('answers ?format=json with JSON', async () => {
    const { req } = await app()
    const res = await req('/api/clubs/?format=json', { headers: { accept: BROWSER_ACCEPT } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json')
    const [plain, forced] = [await readJson(await req('/api/clubs/')), await readJson(res)]
    expect(forced).toEqual(plain)
  })

  for (const format of ['xml', 'yaml', 'API', '']) {
    it(`answers ?format=${format} with 404`, async () => {
      const { req } = await app()
      const res = await req(`/api/clubs/?format=${format}`)
      expect(res.status).toBe(404)
      expect(await readJson(res)).toEqual({ detail: 'Not found.' })
    })
  }

  it('answers ?format=api with the browsable HTML view, a CSP, and the first page of clubs', async () => {
    const { req } = await app()
    const clubs = (await readJson(await req('/api/clubs/'))) as Json[]
    const { results } = await readJson(await req('/api/clubs/?page=1'))
    const res = await req('/api/clubs/?format=api')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('text/html')
    expect(res.headers.get('content-security-policy')).toBeString()
    const text = pageText(await res.text())
    expect(results).toHaveLength(15)
    for (const club of results) expect(text).toContain(club.name)
    expect(text).not.toContain(clubs.at(-1)!.name)
    expect(text).toContain(`Clubs 1–15 of ${clubs.length}`)
  })

  it('renders one club in the browsable view with its fields', async () => {
    const { req } = await app()
    const res = await req(`${CHESS_URL}?format=api`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('text/html')
    const text = pageText(await res.text())
    expect(text).toContain('Penn Chess Society')
    expect(text).toContain('Drop by any Tuesday night at 7pm, no sign-up needed.')
  })

  const accepts = [
    { accept: BROWSER_ACCEPT, type: 'text/html' },
    { accept: 'text/html', type: 'text/html' },
    { accept: 'application/json', type: 'application/json' },
    { accept: 'application/json, text/html;q=0.5', type: 'application/json' },
    { accept: '*/*', type: 'application/json' },
  ]
  for (const { accept, type } of accepts) {
    it(`answers Accept: ${accept} with ${type}`, async () => {
      const { req } = await app()
      const res = await req('/api/clubs/', { headers: { accept } })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toStartWith(type)
      if (type === 'application/json') expect(await readJson(res)).toBeArray()
      else expect(await res.text()).toContain('<html')
    })
  }

  it('escapes markup in a club name in the HTML view', async () => {
    const { req, admin } = await app()
    const markup = '<script>alert(1)</script>'
    const created = await admin.post('/api/clubs/', { name: markup, subtitle: '<img src=x onerror=alert(2)>' })
    expect(created.status).toBe(201)
    const { code } = await readJson(created)
    expect((await admin.patch(`/api/clubs/${code}/`, { approved: true, approved_comment: 'ok' })).status).toBe(200)
    for (const path of [`/api/clubs/?code=${code}&format=api`, `/api/clubs/${code}/?format=api`]) {
      const res = await req(path)
      expect(res.status).toBe(200)
      const html = await res.text()
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
      expect(html).not.toContain(markup)
      expect(html).not.toContain('<img src=x')
      // The only script is the view's own, from this service.
      expect(html.toLowerCase().match(/<script[^>]*>/g)).toEqual(['<script src="/static/browsable.js">'])
    }
  })
})

describe('error bodies', () => {
  const rows = [
    { path: '/nope', status: 404, body: { detail: 'Not found.' } },
    { path: '/api/nope/', status: 404, body: { detail: 'Not found.' } },
    { path: '/api/clubs/no-such-club/', status: 404, body: { detail: 'Not found.' } },
    { path: '/api/clubs/Penn-Chess-Society/', status: 404, body: { detail: 'Not found.' } },
    { path: '/api/clubs/quadball-club/', status: 404, body: { detail: 'Not found.' } },
  ]
  for (const { path, status, body } of rows) {
    it(`answers GET ${path} with ${status} ${JSON.stringify(body)}`, async () => {
      const { req } = await app()
      const res = await req(path)
      expect(res.status).toBe(status)
      expect(res.headers.get('content-type')).toBe('application/json')
      expect(await readJson(res)).toEqual(body)
    })
  }

  it('renders a 404 for an unknown club as HTML in the browsable view', async () => {
    const { req } = await app()
    const res = await req('/api/clubs/no-such-club/?format=api')
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toStartWith('text/html')
    expect(pageText(await res.text())).toContain('"detail": "Not found."')
  })

  it('answers a malformed ordering parameter with 400, not 500', async () => {
    const { req } = await app()
    const res = await req('/api/clubs/?ordering=colour')
    expect(res.status).toBe(400)
    expect(await readJson(res)).toBeObject()
  })
})

describe('/health and /api/tags/', () => {
  it('answers /health with 200 {"status": "ok", ...}', async () => {
    const { req } = await app()
    const res = await req('/health')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('application/json')
    expect(await readJson(res)).toMatchObject({ status: 'ok' })
  })

  it('lists every tag as {id, name, clubs}, counting the clubs of the anonymous list', async () => {
    const { req } = await app()
    const clubs = (await readJson(await req('/api/clubs/'))) as Json[]
    const expected = new Map<number, { id: number; name: string; clubs: number }>()
    for (const club of clubs)
      for (const tag of club.tags) {
        const entry = expected.get(tag.id) ?? { id: tag.id, name: tag.name, clubs: 0 }
        entry.clubs++
        expected.set(tag.id, entry)
      }
    const res = await req('/api/tags/')
    expect(res.status).toBe(200)
    const tags = (await readJson(res)) as Json[]
    expect(tags.length).toBe(20)
    for (const tag of tags) expect(Object.keys(tag).sort()).toEqual(['clubs', 'id', 'name'])
    const withClubs = tags.filter((tag) => tag.clubs > 0).sort((a, b) => a.id - b.id)
    expect(withClubs).toEqual([...expected.values()].sort((a, b) => a.id - b.id))
    expect(new Set(tags.map((tag) => tag.id)).size).toBe(tags.length)
  })

  it('counts a club in its tags only once it is public', async () => {
    const { req, admin } = await app()
    const count = async () =>
      ((await readJson(await req('/api/tags/'))) as Json[]).find((tag) => tag.name === 'Writing')!.clubs
    const before = await count()
    const created = await admin.post('/api/clubs/', { name: 'Zine Makers', tags: [{ name: 'Writing' }] })
    expect(created.status).toBe(201)
    expect(await count()).toBe(before)
    expect((await admin.patch('/api/clubs/zine-makers/', { approved: true })).status).toBe(200)
    expect(await count()).toBe(before + 1)
  })
})

describe('no 500s', () => {
  it('answered no request in this file with a 500', () => {
    expect(statuses.length).toBeGreaterThan(0)
    expect(statuses.filter(({ status }) => status >= 500)).toEqual([])
  })
})
