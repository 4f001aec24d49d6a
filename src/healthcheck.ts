// The container's HEALTHCHECK: exit 0 when this service answers /readyz with 200 (data loaded,
// the last snapshot write landed, not shutting down). The image has no curl; Bun's fetch does the job.
import { isIP } from 'node:net'

/** Where the server listens, as a URL host: every address (0.0.0.0, ::) is asked on loopback. */
export function probeHost(host: string | undefined): string {
  if (!host || host === '0.0.0.0') return '127.0.0.1'
  if (host === '::') return '[::1]'
  return isIP(host) === 6 ? `[${host}]` : host
}

if (import.meta.main) {
  const port = process.env.PORT || '3000'
  try {
    const res = await fetch(`http://${probeHost(process.env.HOST)}:${port}/readyz`, {
      signal: AbortSignal.timeout(4000),
    })
    process.exit(res.ok ? 0 : 1)
  } catch {
    process.exit(1)
  }
}
