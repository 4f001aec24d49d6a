import { join } from 'node:path'
import { Elysia } from 'elysia'
import { NotFound } from '../../domain/errors'
import { NOSNIFF } from '../respond'

const STATIC: Record<string, string> = {
  'browsable.js': 'text/javascript; charset=utf-8',
  'browsable.css': 'text/css; charset=utf-8',
}

/** The browsable view's own script and style sheet, served from this package (no external assets). */
export function browsableAssets() {
  return new Elysia({ name: 'browsable-assets' }).get(
    '/static/:name',
    ({ params }) => {
      if (!Object.hasOwn(STATIC, params.name)) throw new NotFound()
      return new Response(Bun.file(join(import.meta.dir, 'static', params.name)), {
        headers: {
          'Content-Type': STATIC[params.name]!,
          'Cache-Control': 'public, max-age=3600',
          ...NOSNIFF,
        },
      })
    },
    { detail: { hide: true } },
  )
}
