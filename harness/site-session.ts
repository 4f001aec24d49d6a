import { expect } from 'bun:test'
import type { makeApp } from './app'

// A person signed in on the campus site of an app the tests made, with their service token: the
// session's cookie and CSRF token, and GET and POST as their browser sends them.

export const FORM = 'application/x-www-form-urlencoded'
export const ORIGIN = 'http://localhost'

type App = Pick<Awaited<ReturnType<typeof makeApp>>, 'req'>

export async function siteSession(app: App, token: string) {
  const res = await app.req('/sign-in', {
    method: 'POST',
    headers: { 'content-type': FORM, origin: ORIGIN },
    body: new URLSearchParams({ token }),
  })
  expect(res.status).toBe(303)
  const cookie = res.headers.getSetCookie()[0]!.split(';')[0]!
  const home = await (await app.req('/', { headers: { accept: 'text/html', cookie } })).text()
  const csrf = /name="csrf" value="([^"]+)"/.exec(home)![1]!
  const get = (path: string) => app.req(path, { headers: { accept: 'text/html', cookie } })
  /**
   * A form's fields (as a form sends them, or by name), with the session's CSRF token unless
   * `fields` names another (or `csrf: null`, none).
   */
  const post = (
    path: string,
    fields: URLSearchParams | Record<string, string | null> = {},
    headers: Record<string, string> = {},
  ) => {
    const body = new URLSearchParams({ csrf })
    if (fields instanceof URLSearchParams) {
      for (const name of new Set(fields.keys())) body.delete(name)
      for (const [name, value] of fields) body.append(name, value)
    } else
      for (const [name, value] of Object.entries(fields))
        if (value === null) body.delete(name)
        else body.set(name, value)
    return app.req(path, {
      method: 'POST',
      headers: { 'content-type': FORM, origin: ORIGIN, cookie, ...headers },
      body,
    })
  }
  return { cookie, csrf, get, post }
}

export type SiteSession = Awaited<ReturnType<typeof siteSession>>

/** A page's text without its tags, with every run of white space one space. */
export const textOf = (html: string) =>
  html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/\s+/g, ' ')
    .trim()

/**
 * The bytes on the wire (gzip) of the page at `path` and of what it loads — its style sheets,
 * scripts and images — and the addresses of any of those on another host.
 */
export async function pageWeight(
  load: (path: string) => Promise<Response>,
  path: string,
): Promise<{ bytes: number; offHost: string[] }> {
  const size = async (res: Response) => {
    expect(res.status).toBeLessThan(400)
    return (await res.arrayBuffer()).byteLength
  }
  const page = await load(path)
  const gzipped = page.headers.get('content-encoding') === 'gzip'
  const wire = new Uint8Array(await page.arrayBuffer())
  const html = new TextDecoder().decode(gzipped ? Bun.gunzipSync(wire) : wire)
  const addresses = [
    ...html.matchAll(
      /<(?:link\b[^>]*\brel="(?:stylesheet|icon|preload|manifest)"[^>]*\bhref|script\b[^>]*\bsrc|img\b[^>]*\bsrc)="([^"]+)"/g,
    ),
  ].map((match) => new URL(match[1]!.replace(/&amp;/g, '&'), `${ORIGIN}${path}`))
  const offHost = addresses.filter((url) => url.origin !== ORIGIN).map(String)
  let bytes = wire.length
  for (const url of new Set(addresses.filter((one) => one.origin === ORIGIN).map((one) => one.pathname + one.search)))
    bytes += await size(await load(url))
  return { bytes, offHost }
}
