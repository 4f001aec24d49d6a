import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Elysia } from 'elysia'
import { acceptsGzip, matchesEtag } from '../edge/conditional'
import { Prepared } from '../edge/prepared'
import { NOSNIFF } from '../edge/respond'

const TYPES: Record<string, string> = {
  'site.css': 'text/css; charset=utf-8',
  'site.js': 'text/javascript; charset=utf-8',
}

/** The site's style sheet and script, read and compressed once; revalidated by ETag, so a new release shows at once. */
export function siteAssets() {
  const assets = new Map(
    Object.entries(TYPES).map(([name, type]) => [
      name,
      Prepared.file(readFileSync(join(import.meta.dir, 'static', name), 'utf8'), type),
    ]),
  )
  return new Elysia({ name: 'site-assets' }).get(
    '/site/:name',
    async ({ params, request }) => {
      const asset = assets.get(params.name)
      if (!asset) return new Response('Not found.', { status: 404, headers: NOSNIFF })
      const headers = { ETag: asset.etag, 'Cache-Control': 'public, max-age=300', Vary: 'Accept-Encoding', ...NOSNIFF }
      if (matchesEtag(request.headers.get('if-none-match'), asset.etag))
        return new Response(null, { status: 304, headers })
      const gzip = asset.compressible && acceptsGzip(request.headers.get('accept-encoding'))
      return new Response(gzip ? await asset.gzip() : asset.body, {
        headers: { ...headers, 'Content-Type': asset.type, ...(gzip ? { 'Content-Encoding': 'gzip' } : {}) },
      })
    },
    { detail: { hide: true } },
  )
}
