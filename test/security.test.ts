import { afterEach, describe, expect, it } from 'bun:test'
import type { Subprocess } from 'bun'
import { randomBytes } from 'node:crypto'
import { ADMIN_TOKEN, makeApp, readJson } from '../harness/app'
import { hasEventHandler } from '../harness/html-checks'
import { freePort, spawnService, waitForHealth } from '../harness/service'
import { LIST_PARAMS } from '../harness/contract'
import { users } from '../harness/users'

// Security properties of every answer: the headers that stop sniffing and script injection,
// no internals in error bodies, stored and reflected markup escaped in the browsable view,
// and tokens kept out of the logs.

type App = Awaited<ReturnType<typeof makeApp>>
type Json = any

const CHESS = 'penn-chess-society'
const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }
const WRONG = { authorization: 'Bearer not-a-real-token-123' }

// ---------------------------------------------------------------------------------------------
// Security headers
// ---------------------------------------------------------------------------------------------

interface Case {
  readonly label: string
  readonly status: number
  readonly send: (app: App) => Promise<Response>
}

const JSON_ANSWERS: Case[] = [
  { label: 'GET the list', status: 200, send: ({ req }) => req('/api/clubs/') },
  { label: 'GET a club', status: 200, send: ({ req }) => req(`/api/clubs/${CHESS}/`) },
  { label: 'GET a page of the list', status: 200, send: ({ req }) => req('/api/clubs/?page=1') },
  { label: 'GET the tags', status: 200, send: ({ req }) => req('/api/tags/') },
  { label: 'OPTIONS the list', status: 200, send: ({ req }) => req('/api/clubs/', { method: 'OPTIONS' }) },
  { label: 'POST a club', status: 201, send: ({ admin }) => admin.post('/api/clubs/', { name: 'Nosniff Club' }) },
  { label: 'PATCH a club', status: 200, send: ({ admin }) => admin.patch(`/api/clubs/${CHESS}/`, { subtitle: 'x' }) },
  { label: 'a validation error', status: 400, send: ({ admin }) => admin.post('/api/clubs/', { name: 5 }) },
  {
    label: 'malformed JSON',
    status: 400,
    send: ({ req }) => req('/api/clubs/', { method: 'POST', headers: admin, body: '{' }),
  },
  { label: 'a bad query parameter', status: 400, send: ({ req }) => req('/api/clubs/?ordering=colour') },
  { label: 'no credentials', status: 401, send: ({ req }) => req('/api/users/me/') },
  { label: 'a wrong token', status: 401, send: ({ req }) => req('/api/clubs/', { headers: WRONG }) },
  {
    label: 'a forbidden write',
    status: 403,
    send: async (app) =>
      app.req(`/api/clubs/${CHESS}/`, { method: 'DELETE', token: (await users(app, 'mallory')).mallory }),
  },
  { label: 'an unknown club', status: 404, send: ({ req }) => req('/api/clubs/no-such-club/') },
  { label: 'an unknown path', status: 404, send: ({ req }) => req('/no/such/path') },
  { label: 'an unknown static asset', status: 404, send: ({ req }) => req('/static/nope.js') },
  { label: 'a page past the end', status: 404, send: ({ req }) => req('/api/clubs/?page=999') },
  { label: 'a wrong method', status: 405, send: ({ req }) => req('/api/tags/', { method: 'DELETE' }) },
  {
    label: 'a body over 1 MiB',
    status: 413,
    send: ({ req }) => req('/api/clubs/', { method: 'POST', headers: admin, body: 'x'.repeat(1024 * 1024 + 1) }),
  },
  {
    label: 'a body that is not JSON',
    status: 415,
    send: ({ req }) =>
      req('/api/clubs/', { method: 'POST', headers: { ...admin, 'content-type': 'text/plain' }, body: 'name=x' }),
  },
]

describe('X-Content-Type-Options: nosniff on JSON answers', () => {
  for (const { label, status, send } of JSON_ANSWERS) {
    it(`answers ${label} (${status}) with nosniff`, async () => {
      const res = await send(await makeApp())
      expect(res.status).toBe(status)
      expect(res.headers.get('content-type')).toStartWith('application/json')
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    })
  }

  it('answers /health with nosniff', async () => {
    const { req } = await makeApp()
    const res = await req('/health')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('application/json')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
  })

  it('answers /swagger/json with nosniff', async () => {
    const { req } = await makeApp()
    const res = await req('/swagger/json')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('application/json')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
  })
})

/** The directives of a Content-Security-Policy header, by name. */
function parseCsp(header: string | null): Map<string, string[]> {
  const directives = new Map<string, string[]>()
  for (const part of (header ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/)
    if (name && !directives.has(name.toLowerCase())) directives.set(name.toLowerCase(), values)
  }
  return directives
}

function expectStrictCsp(res: Response) {
  const header = res.headers.get('content-security-policy')
  expect(header).toBeString()
  const csp = parseCsp(header)
  expect(csp.get('default-src')).toEqual(["'none'"])
  const scripts = csp.get('script-src') ?? csp.get('default-src')!
  for (const unsafe of ["'unsafe-inline'", "'unsafe-eval'", '*', 'data:', 'http:', 'https:'])
    expect(scripts).not.toContain(unsafe)
  // Nothing may frame the view, and <base> cannot move its relative URLs.
  expect(csp.get('frame-ancestors')).toEqual(["'none'"])
  expect(csp.get('base-uri')).toEqual(["'none'"])
}

const HTML_ANSWERS: Case[] = [
  { label: 'the browsable list', status: 200, send: ({ req }) => req('/api/clubs/?format=api') },
  { label: 'a browsable club', status: 200, send: ({ req }) => req(`/api/clubs/${CHESS}/?format=api`) },
  {
    label: 'the list for a browser Accept header',
    status: 200,
    send: ({ req }) => req('/api/clubs/', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } }),
  },
  { label: 'a browsable 400', status: 400, send: ({ req }) => req('/api/clubs/?format=api&page=abc') },
  { label: 'a browsable 401', status: 401, send: ({ req }) => req('/api/users/me/?format=api') },
  { label: 'a browsable 404 of a club', status: 404, send: ({ req }) => req('/api/clubs/nope/?format=api') },
  { label: 'a browsable 404 of a path', status: 404, send: ({ req }) => req('/nope/?format=api') },
  {
    label: 'a browsable 405',
    status: 405,
    send: ({ req }) => req('/api/tags/?format=api', { method: 'PUT', headers: admin, body: '{}' }),
  },
  { label: 'the API docs (/swagger)', status: 200, send: ({ req }) => req('/swagger') },
  { label: "a club's page on the site", status: 200, send: ({ req }) => req(`/clubs/${CHESS}`) },
]

describe('Content-Security-Policy on HTML answers', () => {
  for (const { label, status, send } of HTML_ANSWERS) {
    it(`answers ${label} (${status}) with default-src 'none' and no inline script`, async () => {
      const res = await send(await makeApp())
      expect(res.status).toBe(status)
      expect(res.headers.get('content-type')).toStartWith('text/html')
      expectStrictCsp(res)
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      // The page itself holds no inline script the policy would have to allow: a club page's
      // JSON-LD (docs/reference.md §24) is data, which browsers neither run nor ask the policy about.
      const html = await res.text()
      for (const tag of html.match(/<script\b[^>]*>/gi) ?? [])
        expect(tag).toMatch(/\ssrc="\/[^"]+"|^<script type="application\/ld\+json">$/)
      expect(hasEventHandler(html)).toBe(false)
    })
  }
})

// ---------------------------------------------------------------------------------------------
// No stack traces or internal paths
// ---------------------------------------------------------------------------------------------

const STACK_LIKE: [string, RegExp][] = [
  ['"at " (a stack frame)', /(^|[^A-Za-z])at [^\s]/],
  ['".ts:"', /\.ts:/],
  ['".js:"', /\.js:\d/],
  ['"/work/"', /\/work\//],
  ['"node_modules"', /node_modules/],
  ['"Error:"', /Error:/],
  ['an error class name', /\b(TypeError|RangeError|SyntaxError|ReferenceError|URIError)\b/],
  ['a file URL', /file:\/\//],
  ['the source folder', /\/src\//],
]

interface Bad {
  readonly label: string
  readonly method?: string
  readonly path: string
  readonly headers?: Record<string, string>
  readonly body?: string | Uint8Array<ArrayBuffer>
}

const BAD_INPUTS: Bad[] = [
  { label: 'truncated JSON', method: 'POST', path: '/api/clubs/', headers: admin, body: '{"name": "x"' },
  { label: 'JSON with a bare word', method: 'POST', path: '/api/clubs/', headers: admin, body: '{name: undefined}' },
  { label: 'single-quoted JSON', method: 'PATCH', path: `/api/clubs/${CHESS}/`, headers: admin, body: "{'a': 1}" },
  {
    label: 'wrong types',
    method: 'POST',
    path: '/api/clubs/',
    headers: admin,
    body: '{"name": 5, "size": "3", "active": "true", "tags": {"id": 1}, "founded": 20200101}',
  },
  {
    label: 'unknown fields',
    method: 'PATCH',
    path: `/api/clubs/${CHESS}/`,
    headers: admin,
    body: '{"colour": "red", "__proto__": {"isAdmin": true}, "constructor": {"prototype": {"x": 1}}}',
  },
  { label: 'an array body', method: 'PUT', path: `/api/clubs/${CHESS}/`, headers: admin, body: '[1, 2, 3]' },
  { label: 'a null body', method: 'POST', path: '/api/favorites/', headers: admin, body: 'null' },
  {
    label: 'a body over 1 MiB',
    method: 'POST',
    path: '/api/clubs/',
    headers: admin,
    body: `{"name": "${'x'.repeat(1_100_000)}"}`,
  },
  {
    label: 'a 100 KB name',
    method: 'POST',
    path: '/api/clubs/',
    headers: admin,
    body: `{"name": "${'é'.repeat(100_000)}"}`,
  },
  {
    label: '100,000 levels of nesting',
    method: 'POST',
    path: '/api/clubs/',
    headers: admin,
    body: '['.repeat(100_000) + ']'.repeat(100_000),
  },
  {
    label: 'invalid UTF-8',
    method: 'POST',
    path: '/api/clubs/',
    headers: admin,
    body: new Uint8Array([0x7b, 0x22, 0x6e, 0xff, 0xfe, 0x22, 0x3a, 0xc3, 0x28, 0x7d]),
  },
  {
    label: 'a lone surrogate',
    method: 'PATCH',
    path: `/api/clubs/${CHESS}/`,
    headers: admin,
    body: '{"name": "\\ud800", "founded": "2026-02-30"}',
  },
  {
    label: 'a body that is not JSON',
    method: 'POST',
    path: '/api/clubs/',
    headers: { ...admin, 'content-type': 'application/xml' },
    body: '<club/>',
  },
  {
    label: 'a lying Content-Length',
    method: 'POST',
    path: '/api/clubs/',
    headers: { ...admin, 'content-length': '99999999999' },
    body: '{}',
  },
  {
    label: 'an object as a club code',
    method: 'POST',
    path: '/api/favorites/',
    headers: admin,
    body: '{"club": {"$ne": null}}',
  },
  {
    label: 'a path-like username',
    method: 'POST',
    path: '/api/users/',
    headers: admin,
    body: '{"username": "../../etc"}',
  },
  { label: 'an invalid percent-encoding', path: '/api/clubs/%ff%fe/' },
  { label: 'a broken percent-encoding', path: '/api/clubs/%E0%A4%A/members/', headers: admin },
  { label: 'an encoded traversal', path: '/static/..%2f..%2fpackage.json' },
  { label: 'an encoded traversal to the docs assets', path: '/swagger/assets/..%2F..%2Fsrc%2Fapp.ts' },
  { label: 'a NUL in a path', method: 'DELETE', path: '/api/clubs/x/members/%00/', headers: admin },
  { label: 'a 70,000-character path', path: `/api/clubs/${'a'.repeat(70_000)}/` },
  { label: 'an unknown ordering', path: '/api/clubs/?ordering=-colour,,--name' },
  { label: 'bad paging', path: '/api/clubs/?page=-1&page_size=1e3' },
  { label: 'an unknown format', path: '/api/clubs/?format=xml' },
  { label: 'an unknown field selection', path: `/api/clubs/${CHESS}/?fields=__proto__,constructor` },
  { label: 'a Basic authorization', path: '/api/users/me/', headers: { authorization: 'Basic YWRtaW46YWRtaW4=' } },
  {
    label: 'a wrong bearer token',
    method: 'POST',
    path: '/api/clubs/',
    headers: { ...WRONG, 'content-type': 'application/json' },
    body: '{}',
  },
]

describe('no stack traces or internal paths in answers to bad input', () => {
  for (const bad of BAD_INPUTS) {
    for (const view of ['json', 'api'] as const) {
      it(`answers ${bad.label}${view === 'api' ? ' (browsable view)' : ''} with no internals`, async () => {
        const { app } = await makeApp()
        const headers = new Headers(bad.headers)
        if (view === 'api') headers.set('accept', 'text/html')
        const res = await app.handle(
          new Request(`http://localhost${bad.path}`, { method: bad.method ?? 'GET', headers, body: bad.body }),
        )
        expect(res.status).toBeGreaterThanOrEqual(400)
        expect(res.status).toBeLessThan(500)
        let text = await res.text()
        // The browsable view's own chrome is not an answer to the input: judge only the response it shows.
        if (view === 'api' && res.headers.get('content-type')?.startsWith('text/html'))
          text = /<pre class="response"[^>]*>([\s\S]*?)<\/pre>/.exec(text)?.[1] ?? text
        for (const [name, pattern] of STACK_LIKE) {
          if (pattern.test(text)) throw new Error(`the answer (${res.status}) contains ${name}: ${text.slice(0, 500)}`)
        }
      })
    }
  }
})

// ---------------------------------------------------------------------------------------------
// Stored and reflected markup in the browsable view
// ---------------------------------------------------------------------------------------------

/** Payloads, with what their escaped form shows in the page. */
const PAYLOADS: { raw: string; escaped: string }[] = [
  { raw: '<script>alert(1)</script>', escaped: '&lt;script&gt;alert(1)&lt;/script&gt;' },
  { raw: '"><img src=x onerror=alert(1)>', escaped: '&lt;img src=x onerror=alert(1)&gt;' },
  { raw: '</pre><script>alert(1)</script>', escaped: '&lt;/pre&gt;&lt;script&gt;' },
  { raw: '</textarea><svg onload=alert(1)>', escaped: '&lt;/textarea&gt;&lt;svg onload=alert(1)&gt;' },
  { raw: "'><iframe src=javascript:alert(1)>", escaped: '&lt;iframe src=javascript:alert(1)&gt;' },
]

/** The page holds `raw` only escaped: not verbatim, no script but the view's own, no event-handler attribute. */
function expectInert(html: string, raw: string) {
  expect(html).not.toContain(raw)
  expect(html.match(/<script\b[^>]*>/gi) ?? []).toEqual(['<script src="/static/browsable.js">'])
  expect(hasEventHandler(html)).toBe(false)
  expect(html).not.toMatch(/<(img|svg|iframe)\b/i)
  expect(html).not.toMatch(/<\/(pre|textarea)><(script|svg)/i)
}

/** Text fields of docs/reference.md §1.2, and whether the list representation shows them too. */
const TEXT_FIELDS: { field: string; inList: boolean }[] = [
  { field: 'name', inList: true },
  { field: 'subtitle', inList: true },
  { field: 'description', inList: false },
  { field: 'address', inList: true },
  { field: 'how_to_get_involved', inList: false },
  { field: 'listserv', inList: false },
  { field: 'approved_comment', inList: false },
  { field: 'email', inList: true },
]

describe('stored markup is escaped in the browsable view', () => {
  for (const { field, inList } of TEXT_FIELDS) {
    it(`shows markup stored in ${field} only escaped, on the club page and in the list`, async () => {
      const { req, admin: asAdmin } = await makeApp()
      const stored: { code: string; raw: string; escaped: string }[] = []
      for (const [i, { raw, escaped }] of PAYLOADS.entries()) {
        // An address holds no spaces: the markup goes in its local part, written without them.
        const value = field === 'email' ? `${raw.replaceAll(' ', '/')}@example.com` : raw
        const body: Record<string, unknown> = { name: `Markup ${field} ${i}`, email_public: true }
        if (field !== 'approved_comment') body[field] = value
        const created = await asAdmin.post('/api/clubs/', body)
        if (field === 'email' && created.status === 400) {
          // The address was refused as invalid: then it cannot be stored at all, which is as safe.
          expect(Object.keys(await readJson(created))).toEqual(['email'])
          continue
        }
        expect(created.status).toBe(201)
        const { code } = await readJson(created)
        const approval = { approved: true, approved_comment: field === 'approved_comment' ? value : 'ok' }
        expect((await asAdmin.patch(`/api/clubs/${code}/`, approval)).status).toBe(200)
        stored.push({ code, raw: value, escaped: escaped.replaceAll(' ', field === 'email' ? '/' : ' ') })
      }
      // The browsable list shows a page at a time: these clubs, on the first.
      const list = await req(`/api/clubs/?code=${stored.map(({ code }) => code).join(',')}&format=api`)
      expect(list.status).toBe(200)
      const listHtml = await list.text()
      for (const { code, raw, escaped } of stored) {
        const page = await req(`/api/clubs/${code}/?format=api`)
        expect(page.status).toBe(200)
        const html = await page.text()
        expectInert(html, raw)
        expect(html).toContain(escaped)
        expectInert(listHtml, raw)
        if (inList) expect(listHtml).toContain(escaped)
      }
    })
  }

  it('shows markup inside an accepted http(s) URL only escaped', async () => {
    const { req, admin: asAdmin } = await makeApp()
    const urls = [
      'https://example.com/?q=<script>alert(1)</script>',
      'https://example.com/#"><img/src=x/onerror=alert(1)>',
      "https://example.com/'onmouseover='alert(1)",
    ]
    for (const [i, url] of urls.entries()) {
      const created = await asAdmin.post('/api/clubs/', { name: `Markup URL ${i}`, website: url, image_url: url })
      if (created.status === 400) continue // refused outright: nothing stored
      expect(created.status).toBe(201)
      const { code } = await readJson(created)
      expect((await asAdmin.patch(`/api/clubs/${code}/`, { approved: true })).status).toBe(200)
      for (const path of [`/api/clubs/${code}/?format=api`, `/api/clubs/?code=${code}&format=api`]) {
        const html = await (await req(path)).text()
        expectInert(html, url)
        expect(html).not.toContain('<script>alert')
        // Every link the view makes of a URL stays one attribute value, with nothing that could end it.
        for (const [, href] of html.matchAll(/\shref="([^"]*)"/g)) expect(href).not.toMatch(/[<>'`]/)
      }
    }
  })
})

const URL_FIELDS = ['image_url', 'website', 'facebook', 'twitter', 'instagram', 'linkedin', 'github', 'youtube']
const BAD_SCHEMES = [
  'javascript:alert(1)',
  'JavaScript:alert(document.cookie)',
  ' javascript:alert(1)',
  'java\tscript:alert(1)',
  'javascript://example.com/%0Aalert(1)',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)',
  'file:///etc/passwd',
]

describe('URLs other than http(s) are refused', () => {
  for (const field of URL_FIELDS) {
    it(`refuses javascript:, data:, vbscript: and file: URLs in ${field}, on create and on update`, async () => {
      const { admin: asAdmin } = await makeApp()
      for (const [i, url] of BAD_SCHEMES.entries()) {
        const created = await asAdmin.post('/api/clubs/', { name: `Scheme ${field} ${i}`, [field]: url })
        expect(created.status).toBe(400)
        expect(Object.keys(await readJson(created))).toEqual([field])
        const patched = await asAdmin.patch(`/api/clubs/${CHESS}/`, { [field]: url })
        expect(patched.status).toBe(400)
        expect(Object.keys(await readJson(patched))).toEqual([field])
      }
      const detail = await readJson(await asAdmin.get(`/api/clubs/${CHESS}/`))
      expect(String(detail[field] ?? '')).not.toMatch(/^\s*(javascript|data|vbscript|file|java\s)/i)
    })
  }
})

/** Pages whose URL a link could carry markup into: the list, a club, a 404, a 401. */
const REFLECTING_PATHS = ['/api/clubs/', `/api/clubs/${CHESS}/`, '/api/clubs/no-such-club/', '/api/users/me/']

describe('reflected markup in query parameters never reaches the HTML', () => {
  for (const param of LIST_PARAMS) {
    it(`escapes markup in ?${param}= on the list, a club, a 404 and a 401`, async () => {
      const { app } = await makeApp()
      for (const { raw } of PAYLOADS) {
        for (const path of REFLECTING_PATHS) {
          for (const query of [
            `format=api&${param}=${encodeURIComponent(raw)}`,
            `${param}=${encodeURIComponent(raw)}&format=api`,
            `format=api&${param}=${raw}`, // raw: the URL parser encodes what it must
            `format=api&${param}=1&${param}=${encodeURIComponent(raw)}`,
          ]) {
            for (const accept of ['text/html', 'application/json']) {
              const res = await app.handle(new Request(`http://localhost${path}?${query}`, { headers: { accept } }))
              expect(res.status).toBeLessThan(500)
              const text = await res.text()
              if (res.headers.get('content-type')?.startsWith('text/html')) expectInert(text, raw)
              else expect(text).not.toContain(raw)
            }
          }
        }
      }
    })
  }

  it('escapes markup that an error message repeats from the body or a header', async () => {
    const { app } = await makeApp()
    for (const { raw } of PAYLOADS) {
      const sends: [string, string, Record<string, string>, string][] = [
        ['POST', '/api/favorites/', admin, JSON.stringify({ club: raw })],
        ['POST', '/api/subscriptions/', admin, JSON.stringify({ club: raw })],
        ['POST', '/api/clubs/', admin, JSON.stringify({ name: 'Tagged', tags: [{ name: raw }] })],
        ['POST', '/api/clubs/', admin, JSON.stringify({ name: 'Keyed', [raw]: 1 })],
        ['POST', `/api/clubs/${CHESS}/members/`, admin, JSON.stringify({ username: raw, role: raw })],
        ['POST', '/api/users/', admin, JSON.stringify({ username: raw })],
        ['POST', '/api/clubs/', { ...admin, 'content-type': `text/${raw.replace(/[^\x20-\x7e]/g, '')}` }, '{}'],
        ['POST', '/api/clubs/', admin, `{"name": ${JSON.stringify(raw)}`],
      ]
      for (const [method, path, headers, body] of sends) {
        const res = await app.handle(
          new Request(`http://localhost${path}?format=api`, {
            method,
            headers: { ...headers, accept: 'text/html' },
            body,
          }),
        )
        expect(res.status).toBeGreaterThanOrEqual(400)
        expect(res.status).toBeLessThan(500)
        expect(res.headers.get('content-type')).toStartWith('text/html')
        expectInert(await res.text(), raw)
      }
    }
  })

  it('escapes markup in the path on a 404 and a 401', async () => {
    const { app } = await makeApp()
    for (const { raw } of PAYLOADS) {
      for (const path of [
        `/api/clubs/${raw}/`,
        `/api/clubs/${encodeURIComponent(raw)}/`,
        `/api/clubs/${encodeURIComponent(raw)}/members/`,
        `/${encodeURIComponent(raw)}`,
      ]) {
        const res = await app.handle(new Request(`http://localhost${path}?format=api`))
        expect([401, 404]).toContain(res.status)
        expectInert(await res.text(), raw)
      }
    }
  })
})

// ---------------------------------------------------------------------------------------------
// Prototype keys in bodies
// ---------------------------------------------------------------------------------------------

/** Every endpoint that reads a JSON object, with a body that is valid but for one extra key. */
const OBJECT_BODIES: { label: string; method: string; path: string; valid: string }[] = [
  { label: 'a club create', method: 'POST', path: '/api/clubs/', valid: '"name": "Proto Club"' },
  { label: 'a club update', method: 'PATCH', path: `/api/clubs/${CHESS}/`, valid: '"subtitle": "proto"' },
  { label: 'a favorite', method: 'POST', path: '/api/favorites/', valid: `"club": "${CHESS}"` },
  { label: 'a subscription', method: 'POST', path: '/api/subscriptions/', valid: `"club": "${CHESS}"` },
  { label: 'a member', method: 'POST', path: `/api/clubs/${CHESS}/members/`, valid: '"username": "mallory"' },
  { label: 'a user', method: 'POST', path: '/api/users/', valid: '"username": "proto-user"' },
]

/** Where a body's "__proto__" key is taken for a prototype, not refused as an unknown field. */

describe('prototype keys in bodies', () => {
  it('never pollute Object.prototype nor grant anything, on any endpoint', async () => {
    const app = await makeApp()
    await users(app, 'mallory')
    for (const { method, path, valid } of OBJECT_BODIES) {
      for (const extra of [
        '"__proto__": {"polluted": 1, "is_admin": true, "role": "owner", "approved": true}',
        '"constructor": {"prototype": {"polluted": 1}}',
        '"__proto__": []',
      ]) {
        const res = await app.req(path, { method, headers: admin, body: `{${valid}, ${extra}}` })
        expect(res.status).toBeLessThan(500)
        const body = await readJson(res)
        if (res.status < 300) {
          expect(body.is_admin ?? false).toBe(false)
          expect(body.role ?? 'member').toBe('member')
          expect(body.approved ?? false).toBe(path.includes(CHESS) && method === 'PATCH')
        }
      }
    }
    expect(({} as Json).polluted).toBeUndefined()
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false)
  })

  for (const { label, method, path, valid } of OBJECT_BODIES) {
    it(`refuses a "__proto__" key in ${label} as an unknown field`, async () => {
      const app = await makeApp()
      await users(app, 'mallory')
      const res = await app.req(path, { method, headers: admin, body: `{${valid}, "__proto__": {"x": 1}}` })
      expect(res.status).toBe(400)
      const body = await readJson(res)
      // (An object literal cannot say this: `{__proto__: ...}` would set a prototype.)
      expect(Object.keys(body)).toEqual(['__proto__'])
      expect(Object.getOwnPropertyDescriptor(body, '__proto__')?.value).toEqual(['Unknown field.'])
    })
  }
})

// ---------------------------------------------------------------------------------------------
// Tokens never logged
// ---------------------------------------------------------------------------------------------

describe('tokens never logged', () => {
  let proc: Subprocess<'ignore', 'pipe', 'pipe'> | null = null
  afterEach(() => {
    if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL')
    proc = null
  })

  it('writes neither a right nor a wrong token to stdout or stderr, at CLUBS_LOG_LEVEL=debug', async () => {
    const adminToken = `sec-admin-${randomBytes(16).toString('hex')}`
    const wrongToken = `sec-wrong-${randomBytes(16).toString('hex')}`
    const port = freePort()
    const base = `http://127.0.0.1:${port}`
    proc = spawnService(
      port,
      {
        CLUBS_DATA_FILE: ':memory:',
        CLUBS_ADMIN_TOKEN: adminToken,
        CLUBS_LOG_LEVEL: 'debug',
      },
      {
        stdin: 'ignore',
        stdout: 'pipe',
        stderr: 'pipe',
      },
    )
    // Read both streams as they come, so a full pipe never blocks the service.
    const stdout = new Response(proc.stdout).text()
    const stderr = new Response(proc.stderr).text()
    await waitForHealth(base, proc)

    const send = (path: string, authorization: string | null, init: RequestInit = {}) => {
      const headers = new Headers(init.headers)
      if (authorization !== null) headers.set('authorization', authorization)
      if (init.body !== undefined) headers.set('content-type', 'application/json')
      return fetch(`${base}${path}`, { ...init, headers })
    }
    const bearer = (token: string) => `Bearer ${token}`

    // The admin: reads, writes, issues a user (whose new token must not be logged either).
    expect((await send('/api/users/me/', bearer(adminToken))).status).toBe(200)
    const created = await send('/api/clubs/', bearer(adminToken), { method: 'POST', body: '{"name": "Log Test Club"}' })
    expect(created.status).toBe(201)
    const { code } = (await created.json()) as Json
    expect(
      (await send(`/api/clubs/${code}/`, bearer(adminToken), { method: 'PATCH', body: '{"approved": true}' })).status,
    ).toBe(200)
    const issued = await send('/api/users/', bearer(adminToken), { method: 'POST', body: '{"username": "logged"}' })
    expect(issued.status).toBe(201)
    const userToken = ((await issued.json()) as Json).token as string
    expect(userToken).toBeString()
    expect(
      (await send('/api/favorites/', bearer(userToken), { method: 'POST', body: `{"club": "${code}"}` })).status,
    ).toBe(201)
    expect((await send(`/api/clubs/${code}/`, bearer(userToken), { method: 'DELETE' })).status).toBe(403)
    expect((await send('/api/clubs/?format=api', bearer(adminToken))).status).toBe(200)

    // Wrong and malformed credentials, on reads and writes, and a failing write with the right token.
    expect((await send('/api/clubs/', bearer(wrongToken))).status).toBe(401)
    expect((await send('/api/clubs/', bearer(wrongToken), { method: 'POST', body: '{"name": "x"}' })).status).toBe(401)
    expect((await send('/api/users/me/', `Token ${wrongToken}`)).status).toBe(401)
    expect((await send('/api/users/me/', `Bearer ${wrongToken} ${adminToken}`)).status).toBe(401)
    expect((await send('/api/clubs/', bearer(adminToken), { method: 'POST', body: '{"name": ' })).status).toBe(400)
    expect((await send('/api/nope/', bearer(adminToken))).status).toBe(404)

    proc.kill('SIGTERM')
    expect(await proc.exited).toBe(0)
    const logs = (await stdout) + (await stderr)
    expect(logs).toContain('club directory started') // the logs were captured at all
    for (const [name, token] of [
      ['the admin token', adminToken],
      ['the wrong token', wrongToken],
      ["the issued user's token", userToken],
    ] as const) {
      if (logs.includes(token)) throw new Error(`${name} appears in the logs:\n${logs}`)
    }
  }, 30_000)
})

describe('answers to credentials are kept by no shared cache (Cache-Control)', () => {
  it.each([
    ['/api/clubs/', 'private'],
    ['/api/clubs/penn-chess-society/', 'private'],
    ['/api/users/me/', 'private'],
    ['/api/favorites/', 'private'],
    ['/api/clubs/?format=api', 'no-store'],
    ['/api/nothing-here/', 'private'],
  ])('GET %s with a token: %s', async (path, expected) => {
    const { req } = await makeApp()
    const res = await req(path, { token: ADMIN_TOKEN })
    expect(res.headers.get('cache-control')).toBe(expected)
  })

  it('keeps no-store where an answer shows a token, and says nothing for anonymous reads', async () => {
    const { req } = await makeApp()
    const issued = await req('/api/users/', { method: 'POST', token: ADMIN_TOKEN, json: { username: 'cachey' } })
    expect(issued.headers.get('cache-control')).toBe('no-store')
    expect((await req('/api/clubs/')).headers.get('cache-control')).toBeNull()
  })
})
