import { Elysia } from 'elysia'
import { Throttled } from './errors'
import { exchangeForError } from './exchange'
import { addressOf } from './request-facts'
import { replyError } from './respond'

const WINDOW_MS = 60_000

interface Bucket {
  tokens: number
  refilled: number
}

/** The probes: never limited, so a container's health checks cannot be throttled. */
const UNLIMITED = new Set(['/health', '/livez', '/readyz'])

/**
 * A token bucket per key: `perMinute` takes a minute, refilled continuously. `take` answers 0 when
 * the key may go on, else how many seconds until it may.
 */
export class TokenBuckets {
  readonly #buckets = new Map<string, Bucket>()
  readonly #perMs: number

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#perMs = perMinute / WINDOW_MS
  }

  take(key: string): number {
    const t = this.now()
    let bucket = this.#buckets.get(key)
    if (!bucket) {
      if (this.#buckets.size > 10_000) this.#prune(t)
      bucket = { tokens: this.perMinute, refilled: t }
      this.#buckets.set(key, bucket)
    }
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (t - bucket.refilled) * this.#perMs)
    bucket.refilled = t
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1
      return 0
    }
    return Math.ceil((1 - bucket.tokens) / this.#perMs / 1000)
  }

  /** Forgets keys whose bucket has filled up again: they are as new. */
  #prune(t: number) {
    for (const [key, bucket] of this.#buckets)
      if ((t - bucket.refilled) * this.#perMs + bucket.tokens >= this.perMinute) this.#buckets.delete(key)
  }
}

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
  const buckets = new TokenBuckets(perMinute, now)
  return new Elysia({ name: 'rate-limit' }).onRequest(({ request }) => {
    if (UNLIMITED.has(new URL(request.url).pathname)) return
    const holder = holderOf(request.headers.get('authorization'))
    const key = holder !== null ? `user ${holder}` : `address ${addressOf(request) ?? 'unknown'}`
    const wait = buckets.take(key)
    if (wait === 0) return
    return replyError(exchangeForError(request), new Throttled(wait))
  })
}
