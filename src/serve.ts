import { randomUUID } from 'node:crypto'
import type { Server } from 'bun'
import type { createApp } from './app'
import { forwardedOf, trusts, type TrustProxy } from './edge/forwarded'
import type { Metrics } from './edge/metrics'
import { factsOf } from './edge/request-facts'
import type { Logger } from './log'

/** Seconds a connection may stay silent (a stalled upload, an idle keep-alive) before it is closed. */
const IDLE_TIMEOUT_S = 30
/** A client's own X-Request-Id is kept when it is 1–128 visible characters (docs/reference.md §17). */
const REQUEST_ID = /^[\x21-\x7e]{1,128}$/

export interface ServeOptions {
  readonly port: number
  readonly host: string
  readonly log: Logger
  readonly trustProxy: TrustProxy
  readonly metrics: Metrics | null
}

/**
 * Serves `app` over HTTP: each answer carries X-Request-Id; one access-log line a request
 * (never its headers or body) and its metrics. Behind a trusted proxy, links, the rate limit
 * and the log use the client's scheme, host and address.
 */
export function serve(app: Pick<ReturnType<typeof createApp>, 'fetch'>, options: ServeOptions): Server<undefined> {
  const { log, trustProxy, metrics } = options
  const logRequests = log.enabled('info')
  return Bun.serve({
    port: options.port,
    hostname: options.host,
    idleTimeout: IDLE_TIMEOUT_S,
    fetch(request, server) {
      const started = performance.now()
      // Read once: each read of request.url makes a new string.
      const url = request.url
      const peer = server.requestIP(request)?.address ?? null
      const forwarded = trusts(trustProxy, peer) ? forwardedOf(request, trustProxy) : null
      const handled = routable(request, url)
      const facts = factsOf(handled)
      // The URL the client asked for, which answers link to; the app reads it from here, one
      // string for the request rather than one per read of request.url.
      facts.url = forwarded?.url ?? url
      facts.address = forwarded?.address ?? peer
      const given = request.headers.get('x-request-id')
      const requestId = given !== null && REQUEST_ID.test(given) ? given : randomUUID()
      const finish = (response: Response) => {
        response.headers.set('X-Request-Id', requestId)
        if (!logRequests && !metrics) return response
        const seconds = (performance.now() - started) / 1000
        const path = pathOf(url)
        metrics?.observeRequest(request.method, facts.route ?? routeLabel(path), response.status, seconds)
        if (logRequests)
          log.request({
            method: request.method,
            path,
            status: response.status,
            duration_ms: Math.round(seconds * 100_000) / 100,
            user: facts.username,
            address: facts.address,
            request_id: requestId,
          })
        return response
      }
      // The app's own handler, not app.handle: that adds an async step to every answer.
      const answer = app.fetch(handled)
      return answer instanceof Promise ? answer.then(finish) : finish(answer)
    },
  })
}

/** The path of an absolute URL, by a string scan: a URL parse per request costs more than the rest of the log line. */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start < 0) return '/'
  const query = url.indexOf('?', start)
  return url.slice(start, query < 0 ? url.length : query)
}

/** Routes outside the API, by their fixed paths; anything else matched no route. */
function routeLabel(path: string): string {
  if (['/', '/health', '/livez', '/readyz', '/metrics', '/swagger', '/swagger/json'].includes(path)) return path
  if (path.startsWith('/static/')) return '/static/:name'
  if (path.startsWith('/swagger/assets/')) return '/swagger/assets/:name'
  return 'unmatched'
}

/**
 * The request Elysia routes. Elysia finds the path at `url.indexOf('/', 11)`, so a host of 1–3
 * characters with no port ("http://api/api/clubs/", a container named "api" behind a proxy) would
 * hide it and every path would be a 404: such a request is routed under a longer host. The
 * answer's links still use the client's URL (noted by the caller).
 */
function routable(request: Request, url: string): Request {
  // A string scan, not a URL parse: this runs for every request.
  const start = url.indexOf('//') + 2
  const end = url.indexOf('/', start)
  if ((end < 0 ? url.length : end) - start >= 4) return request
  const parsed = new URL(url)
  // Made from its parts with the body's own stream, not as new Request(url, request): Bun reads a
  // chunked body copied that way to its end before any answer, so one past the size limit never got
  // its 413 while the client kept sending. The signal says when the client has gone (Elysia ends
  // streams by it).
  const { method, headers, body, signal } = request
  const init = { method, headers, body, signal, duplex: 'half' }
  return new Request(`${parsed.protocol}//localhost${parsed.pathname}${parsed.search}`, init as RequestInit)
}
