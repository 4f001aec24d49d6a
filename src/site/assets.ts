import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Elysia } from 'elysia'
import { NotFound } from '../domain/errors'
import { acceptsGzip, matchesEtag } from '../edge/conditional'
import { Prepared } from '../edge/prepared'
import { NOSNIFF } from '../edge/respond'

const TYPES: Record<string, string> = {
  'site.css': 'text/css; charset=utf-8',
  'site.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
  // favicon.svg drawn at 32 px, as a PNG in an ICO: for what asks /favicon.ico without reading the page.
  'favicon.ico': 'image/x-icon',
}

/** Texts are compressed like JSON; an image is sent as it is. */
const read = (name: string, type: string) => {
  const file = join(import.meta.dir, 'static', name)
  return Prepared.file(type.startsWith('text/') ? readFileSync(file, 'utf8') : readFileSync(file), type)
}

/**
 * The site's style sheet, script and icon, read and compressed once; revalidated by ETag, so a new
 * release shows at once. The icon is at /favicon.ico too, where browsers look without being told.
 */
export function siteAssets() {
  const assets = new Map(Object.entries(TYPES).map(([name, type]) => [name, read(name, type)]))
  return new Elysia({ name: 'site-assets' })
    .get('/site/:name', ({ params, request }) => answer(assets.get(params.name), request), { detail: { hide: true } })
    .get('/favicon.ico', ({ request }) => answer(assets.get('favicon.ico'), request), { detail: { hide: true } })
}

async function answer(asset: Prepared | undefined, request: Request): Promise<Response> {
  if (!asset) throw new NotFound()
  const headers = { ETag: asset.etag, 'Cache-Control': 'public, max-age=300', Vary: 'Accept-Encoding', ...NOSNIFF }
  if (matchesEtag(request.headers.get('if-none-match'), asset.etag)) return new Response(null, { status: 304, headers })
  const gzip = asset.compressible && acceptsGzip(request.headers.get('accept-encoding'))
  return new Response(gzip ? await asset.gzip() : asset.body, {
    headers: { ...headers, 'Content-Type': asset.type, ...(gzip ? { 'Content-Encoding': 'gzip' } : {}) },
  })
}
