import { HTML_HEADERS, renderBrowsable } from '../browsable/render'
import type { PageInfo } from './endpoints'
import type { Format } from './negotiate'
import { Prepared } from './prepared'

/** What the edge knows about one request once it has been negotiated. */
export interface Exchange {
  readonly request: Request
  readonly url: URL
  readonly format: Format
  /** The Allow header of the endpoint, when it is an API endpoint. */
  readonly page: PageInfo | null
}

/**
 * Browsers must take every answer's Content-Type as given. Set per answer: a global hook
 * setting it cost a quarter of the throughput of small answers.
 */
export const NOSNIFF = { 'X-Content-Type-Options': 'nosniff' } as const

const BASE_HEADERS = {
  ...NOSNIFF,
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Allow, ETag, Location, Retry-After, WWW-Authenticate',
} as const

/** True when one of the request's If-None-Match tags names `etag` (weak comparison). */
function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false
  const bare = etag.replace(/^W\//, '')
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim()
    return t === '*' || t.replace(/^W\//, '') === bare
  })
}

/** True when Accept-Encoding names gzip (or *) with a q above zero. */
function acceptsGzip(acceptEncoding: string | null): boolean {
  if (!acceptEncoding) return false
  return acceptEncoding.split(',').some((part) => {
    const [coding = '', ...params] = part.trim().toLowerCase().split(';')
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    return (coding.trim() === 'gzip' || coding.trim() === '*') && (q === undefined || Number(q.slice(2)) > 0)
  })
}

/**
 * The one place that turns a status and a JSON body into a response: JSON or the browsable
 * view, ETag and 304 on reads, gzip when the client takes it, and the headers every answer carries.
 */
export function reply(
  ex: Exchange,
  status: number,
  body: Prepared | null,
  extra: Record<string, string> = {},
): Response | Promise<Response> {
  const headers: Record<string, string> = { ...BASE_HEADERS, Vary: 'Accept', ...extra }
  if (ex.page) headers.Allow ??= ex.page.allow
  if (ex.format === 'api') return browsable(ex, status, body, headers)
  if (!body) return new Response(null, { status, headers })
  headers['Content-Type'] = 'application/json'
  if (body.compressible) headers.Vary = 'Accept, Accept-Encoding'
  const method = ex.request.method
  if (status === 200 && (method === 'GET' || method === 'HEAD')) {
    headers.ETag = body.etag
    if (matches(ex.request.headers.get('if-none-match'), body.etag)) return new Response(null, { status: 304, headers })
  }
  if (body.compressible && acceptsGzip(ex.request.headers.get('accept-encoding'))) {
    headers['Content-Encoding'] = 'gzip'
    return body.gzip().then((gzip) => new Response(gzip, { status, headers }))
  }
  return new Response(body.body, { status, headers })
}

async function browsable(ex: Exchange, status: number, body: Prepared | null, headers: Record<string, string>) {
  const json = body ? await body.text() : null
  return new Response(renderBrowsable(ex, status, json, headers), {
    status,
    headers: { ...headers, 'Content-Type': 'text/html; charset=utf-8', ...HTML_HEADERS },
  })
}

export function replyJson(ex: Exchange, status: number, value: unknown, extra?: Record<string, string>) {
  return reply(ex, status, Prepared.of(value), extra)
}
