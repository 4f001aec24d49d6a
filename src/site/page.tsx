/** @jsxImportSource preact */
import type { ComponentChildren } from 'preact'
import { renderToString } from 'preact-render-to-string'
import { acceptsGzip, matchesEtag } from '../edge/conditional'
import { Prepared } from '../edge/prepared'
import { NOSNIFF } from '../edge/respond'
import { Layout, type PageFrame } from './layout'

/**
 * Scripts and styles from this service only, no inline script or style, no other host: a value
 * that escaped escaping still could not run.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ')

const HTML = 'text/html; charset=utf-8'

/** A whole page as HTML text: JSX rendered by Preact, which escapes every value it is given. */
export const pageHtml = (frame: PageFrame, content: ComponentChildren) =>
  `<!doctype html>${renderToString(<Layout frame={frame}>{content}</Layout>)}`

/** A page's content alone, as HTML text: rendered once, it can be framed for each viewer by `framedHtml`. */
export const contentHtml = (content: ComponentChildren) => renderToString(<>{content}</>)

/** A whole page as HTML text, around content `contentHtml` rendered: the same text `pageHtml` makes of it. */
export const framedHtml = (frame: PageFrame, html: string) =>
  `<!doctype html>${renderToString(<Layout frame={frame} html={html} />)}`

/** A page's text, hashed and (when asked) compressed once, so a cached page costs no rendering. */
export const preparedPage = (html: string) => Prepared.file(html, HTML)

/**
 * The answer for a page. A signed-in person's page is theirs alone (`no-store`); anyone else's
 * may be kept but is checked again each time (`no-cache` with its ETag).
 */
export function pageAnswer(
  request: Request,
  page: Prepared,
  status: number,
  signedIn: boolean,
): Response | Promise<Response> {
  const headers: Record<string, string> = {
    'Content-Type': HTML,
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'Cache-Control': signedIn ? 'no-store' : 'no-cache',
    'Referrer-Policy': 'same-origin',
    Vary: 'Accept, Accept-Encoding, Cookie',
    ETag: page.etag,
    ...NOSNIFF,
  }
  return preparedAnswer(request, page, status, headers, status === 200 && !signedIn)
}

/**
 * An answer of a prepared body with its `headers` (its Content-Type, ETag, Cache-Control and Vary
 * among them): gzipped when the client takes it, and, when `conditional`, a 304 for its ETag.
 */
export function preparedAnswer(
  request: Request,
  body: Prepared,
  status: number,
  headers: Record<string, string>,
  conditional: boolean,
): Response | Promise<Response> {
  if (conditional && matchesEtag(request.headers.get('if-none-match'), body.etag))
    return new Response(null, {
      status: 304,
      headers: { ETag: body.etag, Vary: headers.Vary!, 'Cache-Control': headers['Cache-Control']! },
    })
  if (!body.compressible || !acceptsGzip(request.headers.get('accept-encoding')))
    return new Response(body.body, { status, headers })
  const gzip = body.gzip()
  const send = (zipped: Blob) => new Response(zipped, { status, headers: { ...headers, 'Content-Encoding': 'gzip' } })
  return gzip instanceof Blob ? send(gzip) : gzip.then(send)
}
