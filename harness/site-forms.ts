// Using the site as a browser would for the tests: a session signed in with a service token, its
// pages and forms; entities, attributes, and what a form sends as it stands.

const FORM = 'application/x-www-form-urlencoded'
const ORIGIN = 'http://localhost'

/** An app as harness/app.ts makes it: its requests. */
interface Requests {
  readonly req: (path: string, init?: RequestInit) => Promise<Response>
}

/**
 * Signs the holder of `token` in on the site (the token form): their session's cookie and CSRF
 * token, and their browser's GET of a page and POST of a form (from this site unless `headers` say otherwise).
 */
export async function siteSession(app: Requests, token: string) {
  const res = await app.req('/sign-in', {
    method: 'POST',
    headers: { 'content-type': FORM, origin: ORIGIN },
    body: new URLSearchParams({ token }),
  })
  const cookie = res.headers.getSetCookie()[0]!.split(';')[0]!
  const home = await (await app.req('/', { headers: { accept: 'text/html', cookie } })).text()
  const csrf = /name="csrf" value="([^"]+)"/.exec(home)![1]!
  const get = (path: string) => app.req(path, { headers: { accept: 'text/html', cookie } })
  const post = (path: string, fields: URLSearchParams | Record<string, string>, headers: Record<string, string> = {}) =>
    app.req(path, {
      method: 'POST',
      headers: { 'content-type': FORM, origin: ORIGIN, cookie, ...headers },
      body: new URLSearchParams(fields),
    })
  return { cookie, csrf, get, post }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'" }
export const decoded = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_, name: string) => ENTITIES[name]!)

/** A tag's attributes, whose quoted values may hold ">" (only "<" and "&" are escaped there). */
export const ATTRS = '(?:"[^"]*"|[^>"])*'

/** What a browser would send for the page's edit form as it stands (the fields and boxes it shows). */
export function editFormOf(html: string): URLSearchParams {
  const form = /<form method="post" action="[^"]*\/edit"[^>]*>([\s\S]*?)<\/form>/.exec(html)![1]!
  const sent = new URLSearchParams()
  for (const [tag] of form.matchAll(new RegExp(`<input\\b${ATTRS}>`, 'g'))) {
    const attrs = Object.fromEntries([...tag.matchAll(/\s([a-z-]+)(?:="([^"]*)")?/g)].map(([, k, v]) => [k, v ?? '']))
    if (attrs.type === 'checkbox' && !('checked' in attrs)) continue
    sent.append(attrs.name!, decoded(attrs.value ?? ''))
  }
  for (const [, name, text] of form.matchAll(/<textarea\b[^>]*\sname="([^"]+)"[^>]*>([^<]*)<\/textarea>/g))
    sent.append(name!, decoded(text!))
  for (const [, name, options] of form.matchAll(/<select\b[^>]*\sname="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g))
    sent.append(name!, /<option value(?:="([^"]*)")? selected/.exec(options!)![1] ?? '')
  return sent
}
