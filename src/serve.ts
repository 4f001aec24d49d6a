import type { Server } from 'bun'
import type { createApp } from './app'
import { noteAddress, usernameOf } from './http/request-facts'
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
      const response = await app.handle(request)
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
