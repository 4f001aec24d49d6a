import type { Server } from 'bun'
import type { createApp } from './app'
import { noteAddress, noteOriginalUrl, usernameOf } from './edge/request-facts'
import type { Logger } from './log'

/** Seconds a connection may stay silent (a stalled upload, an idle keep-alive) before it is closed. */
const IDLE_TIMEOUT_S = 30

/** Serves `app` over HTTP, writing one access-log line a request (never its headers or body). */
export function serve(
  app: ReturnType<typeof createApp>,
  options: { port: number; host: string; log: Logger },
): Server<undefined> {
  const { log } = options
  const logRequests = log.enabled('info')
  return Bun.serve({
    port: options.port,
    hostname: options.host,
    idleTimeout: IDLE_TIMEOUT_S,
    async fetch(request, server) {
      const started = performance.now()
      const address = server.requestIP(request)?.address
      if (address) noteAddress(request, address)
      const response = await app.handle(routable(request))
      if (logRequests) {
        log.info('request', {
          method: request.method,
          path: new URL(request.url).pathname,
          status: response.status,
          duration_ms: Math.round((performance.now() - started) * 100) / 100,
          user: usernameOf(request),
        })
      }
      return response
    },
  })
}

/**
 * Elysia finds the path at `url.indexOf('/', 11)`, so a host of 1–3 characters with no port
 * ("http://api/api/clubs/", a container named "api" behind a proxy) would hide it and every
 * path would be a 404. Such a request is routed under a longer host; the answer's links
 * still use the one the client asked for.
 */
function routable(request: Request): Request {
  // A string scan, not a URL parse: this runs for every request.
  const start = request.url.indexOf('//') + 2
  const end = request.url.indexOf('/', start)
  if ((end < 0 ? request.url.length : end) - start >= 4) return request
  const url = new URL(request.url)
  const rerouted = new Request(`${url.protocol}//localhost${url.pathname}${url.search}`, request)
  noteOriginalUrl(rerouted, request.url)
  return rerouted
}
