import { dirname, join } from 'node:path'
import { swagger } from '@elysiajs/swagger'
import { Elysia } from 'elysia'
import { APPLICATION_REQUIRED, RECRUITING_CYCLES, SIZES } from '../../model/club'
import { NotFound } from '../../domain/errors'
import { NOSNIFF } from '../respond'
import { HEADERS, SCHEMAS } from './components'
import { completed, type OpenApiDocument } from './completed'

const UI_DIR = dirname(Bun.resolveSync('swagger-ui-dist/package.json', import.meta.dir))
/** The Swagger UI files served from the installed package, so the docs work with no internet. */
const ASSETS: Record<string, { file: string; type: string }> = {
  'swagger-ui.css': { file: join(UI_DIR, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: join(UI_DIR, 'swagger-ui-bundle.js'), type: 'text/javascript; charset=utf-8' },
  'swagger-init.js': { file: join(import.meta.dir, 'swagger-init.js'), type: 'text/javascript; charset=utf-8' },
}
const HIDDEN = { detail: { hide: true } }

const codes = (name: string, values: Record<number, string>) =>
  `\`${name}\`: ${Object.entries(values)
    .map(([value, label]) => `${value} ${label}`)
    .join(', ')}`

const DESCRIPTION = `A directory of a university's student clubs.

Reads are open to everyone; writes take \`Authorization: Bearer <token>\`. New clubs await an
admin's approval. Every error is JSON: \`{"field": ["message"]}\` for validation, \`{"detail": "..."}\` otherwise.
Add \`?format=api\` to any API URL in a browser for the browsable view.

Coded values — ${codes('size', SIZES)}; ${codes('application_required', APPLICATION_REQUIRED)}; ${codes('recruiting_cycle', RECRUITING_CYCLES)}.`

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Club Directory API docs</title>
<link rel="stylesheet" href="/swagger/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/swagger/assets/swagger-ui-bundle.js"></script>
<script src="/swagger/assets/swagger-init.js"></script>
</body></html>`

const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  ...NOSNIFF,
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'",
}

/** `/swagger` (the UI, from local assets) and `/swagger/json` (the OpenAPI 3 document); the sandbox's tag when it is on. */
export function docsRoutes(version: string, sandbox = false) {
  return (
    new Elysia({ name: 'docs' })
      // Local to the docs, so the plugin's /swagger/json answer carries it too.
      .onAfterHandle(({ set, path, responseValue }) => {
        set.headers['x-content-type-options'] = 'nosniff'
        if (path === '/swagger/json') return completed(responseValue as OpenApiDocument)
      })
      .use(
        swagger({
          provider: 'swagger-ui',
          path: '/swagger',
          specPath: '/swagger/json',
          // HEAD is no route of its own (each GET answers it): `completed` documents it.
          excludeMethods: ['HEAD'],
          // The plugin takes a path with a dot for a static file; the calendars' .ics paths are operations.
          excludeStaticFile: false,
          documentation: {
            // 3.1: its JSON Schema has `type: null`, which TypeBox writes for nullable fields.
            openapi: '3.1.0',
            info: { title: 'Club Directory API', version, description: DESCRIPTION },
            servers: [{ url: '/', description: 'This service' }],
            tags: [
              { name: 'clubs', description: 'The club collection.' },
              { name: 'members', description: "A club's owners, officers and members." },
              { name: 'requests', description: "Asking to join a club, and its officers' answer." },
              {
                name: 'invites',
                description: "A club's invite links, which expire and run out: whoever opens one and confirms joins.",
              },
              { name: 'favorites', description: "The caller's favorite clubs." },
              { name: 'subscriptions', description: "The caller's club subscriptions." },
              { name: 'tags', description: 'Category labels shared among clubs.' },
              { name: 'users', description: 'Users and their tokens.' },
              {
                name: 'calendars',
                description:
                  "Clubs' weekly meetings as iCalendar feeds for calendar apps, and your own at a secret address.",
              },
              {
                name: 'changes',
                description:
                  'Every change to what the public sees, numbered: a page after a number, or a stream of Server-Sent Events, for programs that keep a copy of the directory.',
              },
              {
                name: 'webhooks',
                description: 'Signed POSTs of every change to what the public sees, retried until delivered (admins).',
              },
              {
                name: 'registration',
                description:
                  'Re-registration rounds: the activities office asks every active club to confirm it, and closes the round (admins); owners and officers confirm their club.',
              },
              { name: 'operations', description: 'The API root, health and readiness probes, and metrics.' },
              // Only when the sandbox is on (CLUBS_SANDBOX=true), as its operations are.
              ...(sandbox
                ? [
                    {
                      name: 'sandbox',
                      description:
                        'The sandbox for prototypes and client tests: a reset to the seed and a log of the requests (admins). Any request may also add _delay=<ms> or _fail=<status>.',
                    },
                  ]
                : []),
            ],
            components: {
              schemas: SCHEMAS,
              headers: HEADERS,
              securitySchemes: {
                bearer: {
                  type: 'http',
                  scheme: 'bearer',
                  description:
                    'A token this service issued, or, with campus sign-in, a JWT from the campus identity provider (a 503 with Retry-After while the provider cannot be reached to check it).',
                },
              },
            },
          },
        }),
      )
      // Registered after the plugin, so it replaces the plugin's page, which loads its scripts from a CDN.
      .get('/swagger', () => new Response(PAGE, { headers: PAGE_HEADERS }), HIDDEN)
      .get(
        '/swagger/assets/:name',
        ({ params }) => {
          const asset = ASSETS[params.name]
          if (!asset || !Object.hasOwn(ASSETS, params.name)) throw new NotFound()
          return new Response(Bun.file(asset.file), {
            headers: { 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=86400', ...NOSNIFF },
          })
        },
        HIDDEN,
      )
  )
}
