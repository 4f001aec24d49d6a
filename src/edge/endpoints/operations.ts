import { createHash, timingSafeEqual } from 'node:crypto'
import { Elysia, t } from 'elysia'
import { Type } from '@sinclair/typebox'
import { NotAuthenticated, NotFound } from '../../domain/errors'
import { headerRefs, schemaRef } from '../docs/components'
import { ERRORS, json, negotiatedResponse, plainResponse, type ResponseDoc } from '../docs/openapi'
import { MethodNotAllowed } from '../errors'
import { exchangeForError } from '../exchange'
import type { Metrics } from '../metrics'
import { noteRoute } from '../request-facts'
import { NOSNIFF, replyError } from '../respond'

export interface OperationsDeps {
  readonly health: () => { clubs: number; version: number }
  /** Why the service should not be sent traffic now, or null when it is ready. */
  readonly notReady: () => string | null
  readonly metrics: Metrics | null
  readonly metricsToken: string | null
}

const Status = t.Object({ status: t.Literal('ok') })
const Unavailable = t.Object({ status: t.Literal('unavailable'), reason: t.String() })
const mapValues = <V, W>(record: Record<number, V>, f: (value: V) => W) =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, f(value)]))
/** The rate limit's 429, which every route but the probes (/health, /livez, /readyz) may answer (as JSON or the browsable view). */
const LIMITED = { 429: negotiatedResponse(ERRORS[429]) }
const probe = (summary: string, description: string, responses: Record<number, ResponseDoc>) => ({
  detail: {
    tags: ['operations'],
    summary,
    description,
    security: [] as Record<string, string[]>[],
    responses: mapValues(responses, plainResponse),
  },
})

const PATHS = ['/health', '/livez', '/readyz', '/metrics']

/** Any other method on a probe or the metrics: a 405 naming GET, as every endpoint answers one. */
const wrongMethods = PATHS.reduce(
  (app, path) =>
    app.all(
      path,
      ({ request }) => {
        noteRoute(request, path)
        return replyError(exchangeForError(request), new MethodNotAllowed(request.method, 'GET'))
      },
      { detail: { hide: true } },
    ),
  new Elysia({ name: 'operations-methods' }),
)

/** Probes and metrics for load balancers, orchestrators and Prometheus (docs/reference.md §17); no negotiation, no caches. */
export const operations = (deps: OperationsDeps) => probes(deps).use(wrongMethods)

function probes({ health, notReady, metrics, metricsToken }: OperationsDeps) {
  return new Elysia({ name: 'operations' })
    .get('/health', () => Response.json({ status: 'ok', ...health() }, { headers: NOSNIFF }), {
      detail: {
        tags: ['operations'],
        summary: 'Health check',
        description: 'Answers 200 once the data is loaded, with the number of live clubs and the data version.',
        security: [],
        responses: {
          200: plainResponse(
            json(
              t.Object({ status: t.Literal('ok'), clubs: Type.Integer(), version: Type.Integer() }),
              'Loaded and serving.',
            ),
          ),
        },
      },
    })
    .get(
      '/livez',
      () => Response.json({ status: 'ok' }, { headers: NOSNIFF }),
      probe('Liveness probe', 'Answers 200 while the process serves requests.', { 200: json(Status, 'Alive.') }),
    )
    .get(
      '/readyz',
      () => {
        const reason = notReady()
        if (reason === null) return Response.json({ status: 'ok' }, { headers: NOSNIFF })
        return Response.json(
          { status: 'unavailable', reason },
          { status: 503, headers: { ...NOSNIFF, 'Retry-After': '5' } },
        )
      },
      probe(
        'Readiness probe',
        'Answers 200 when the data is loaded, the last snapshot write succeeded and the service is not stopping; 503 with the reason otherwise.',
        {
          200: json(Status, 'Ready.'),
          503: {
            ...json(Unavailable, 'Not ready: send traffic elsewhere for now.'),
            headers: headerRefs('Retry-After'),
          },
        },
      ),
    )
    .get(
      '/metrics',
      async ({ request }) => {
        noteRoute(request, '/metrics')
        if (!metrics) return replyError(exchangeForError(request), new NotFound())
        if (
          metricsToken !== null &&
          !sameSecret(request.headers.get('authorization') ?? '', `Bearer ${metricsToken}`)
        ) {
          return replyError(exchangeForError(request), new NotAuthenticated('This endpoint needs the metrics token.'))
        }
        return new Response(await metrics.text(), {
          headers: { 'Content-Type': metrics.registry.contentType, ...NOSNIFF },
        })
      },
      {
        detail: {
          tags: ['operations'],
          summary: 'Prometheus metrics',
          description:
            'With CLUBS_METRICS=true: requests by method, route template and status, their durations, clubs by state, snapshot writes, the process. 404 otherwise; 401 without the CLUBS_METRICS_TOKEN bearer token when one is set.',
          security: [{}, { bearer: [] }],
          responses: {
            200: plainResponse({
              description: 'Prometheus text format.',
              content: { 'text/plain': { schema: t.String() } },
            }),
            401: negotiatedResponse({
              ...json(schemaRef('Error'), 'The metrics token is set and was not sent.'),
              headers: headerRefs('WWW-Authenticate'),
            }),
            404: negotiatedResponse(json(schemaRef('Error'), 'Metrics are off.')),
            ...LIMITED,
          },
        },
      },
    )
}

const digest = (text: string) => createHash('sha256').update(text).digest()
/** Compares two secrets in constant time (their digests, so lengths give nothing away either). */
const sameSecret = (given: string, expected: string) => timingSafeEqual(digest(given), digest(expected))
