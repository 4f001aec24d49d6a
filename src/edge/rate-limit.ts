import { Elysia } from 'elysia'
import { exchangeForError } from './exchange'
import { addressOf } from './request-facts'
import { replyJson } from './respond'

const WINDOW_MS = 60_000

interface Bucket {
  tokens: number
  refilled: number
}

/** The probes: never limited, so a container's health checks cannot be throttled. */
const UNLIMITED = new Set(['/health', '/livez', '/readyz'])

/**
 * A token bucket per caller: the user their service token names, else their address (no token,
 * a wrong one, a campus JWT), so guessing tokens spends the guesser's own bucket. `perMinute`
 * requests a minute, refilled continuously; past it, 429 with Retry-After.
 */
export function rateLimit(
  perMinute: number,
  holderOf: (authorization: string | null) => string | null,
  now: () => number = Date.now,
) {
  const buckets = new Map<string, Bucket>()
  const perMs = perMinute / WINDOW_MS

  function take(key: string): number {
    const t = now()
    let bucket = buckets.get(key)
    if (!bucket) {
      if (buckets.size > 10_000) prune(t)
      bucket = { tokens: perMinute, refilled: t }
      buckets.set(key, bucket)
    }
    bucket.tokens = Math.min(perMinute, bucket.tokens + (t - bucket.refilled) * perMs)
    bucket.refilled = t
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1
      return 0
    }
    return Math.ceil((1 - bucket.tokens) / perMs / 1000)
  }

  /** Forgets callers whose bucket has filled up again: they are as new. */
  function prune(t: number) {
    for (const [key, bucket] of buckets)
      if ((t - bucket.refilled) * perMs + bucket.tokens >= perMinute) buckets.delete(key)
  }

  return new Elysia({ name: 'rate-limit' }).onRequest(({ request }) => {
    if (UNLIMITED.has(new URL(request.url).pathname)) return
    const holder = holderOf(request.headers.get('authorization'))
    const key = holder !== null ? `user ${holder}` : `address ${addressOf(request) ?? 'unknown'}`
    const wait = take(key)
    if (wait === 0) return
    return replyJson(
      exchangeForError(request),
      429,
      { detail: `Request was throttled. Expected available in ${wait} second${wait === 1 ? '' : 's'}.` },
      { 'Retry-After': String(wait) },
    )
  })
}
