import { HTML_HEADERS, renderBrowsable } from './browsable/render'
import { acceptsGzip, matchesEtag } from './conditional'
import type { BrowsableNotes, Exchange } from './exchange'
import { Prepared } from './prepared'

/**
 * Browsers must take every answer's Content-Type as given. Set per answer: a global hook
 * setting it cost a quarter of the throughput of small answers.
 */
export const NOSNIFF = { 'X-Content-Type-Options': 'nosniff' } as const

const BASE_HEADERS = {
  ...NOSNIFF,
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers':
    'Allow, Content-Disposition, ETag, Link, Location, Retry-After, WWW-Authenticate, X-Total-Count',
} as const

/**
 * The one place that turns a status and a prepared body into a response: the body (JSON, or a
 * spreadsheet the endpoint made) or the browsable view, ETag and 304 on reads, gzip when the
 * client takes it, and the headers every answer carries.
 */
export function reply(
  ex: Exchange,
  status: number,
  body: Prepared | null,
  extra: Record<string, string> = {},
  notes: BrowsableNotes = {},
): Response | Promise<Response> {
  const headers: Record<string, string> = { ...BASE_HEADERS, Vary: 'Accept', ...extra }
  if (ex.page) headers.Allow ??= ex.page.allow
  if (ex.format === 'api') return browsable(ex, status, body, headers, notes)
  if (!body) return new Response(null, { status, headers })
  headers['Content-Type'] = body.type
  if (body.compressible) headers.Vary = 'Accept, Accept-Encoding'
  const method = ex.request.method
  if (status === 200 && (method === 'GET' || method === 'HEAD')) {
    headers.ETag = body.etag
    if (matchesEtag(ex.request.headers.get('if-none-match'), body.etag))
      return new Response(null, { status: 304, headers })
  }
  if (body.compressible && acceptsGzip(ex.request.headers.get('accept-encoding'))) {
    headers['Content-Encoding'] = 'gzip'
    return body.gzip().then((gzip) => new Response(gzip, { status, headers }))
  }
  return new Response(body.body, { status, headers })
}

async function browsable(
  ex: Exchange,
  status: number,
  body: Prepared | null,
  headers: Record<string, string>,
  notes: BrowsableNotes,
) {
  const json = body ? await body.text() : null
  return new Response(renderBrowsable(ex, status, json, headers, notes), {
    // As DRF's browsable renderer does: a 204 can carry no page, so the page that shows it is a 200.
    status: status === 204 ? 200 : status,
    headers: { ...headers, 'Content-Type': 'text/html; charset=utf-8', ...HTML_HEADERS },
  })
}

export function replyJson(ex: Exchange, status: number, value: unknown, extra?: Record<string, string>) {
  return reply(ex, status, Prepared.of(value), extra)
}
