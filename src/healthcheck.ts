// The container's HEALTHCHECK: exit 0 when this service answers /readyz with 200 (data loaded,
// the last snapshot write landed, not shutting down). The image has no curl; Bun's fetch does the job.
const port = process.env.PORT || '3000'
try {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(4000) })
  process.exit(res.ok ? 0 : 1)
} catch {
  process.exit(1)
}

export {}
