import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose'
import { ApiError } from '../domain/errors'

/** A JWT whose key cannot be had because the identity provider does not answer: not the caller's fault. */
export class ProviderUnavailable extends ApiError {
  constructor(retryAfterSeconds: number) {
    super(
      503,
      { detail: 'The campus identity provider cannot be reached to check this token. Try again later.' },
      { 'Retry-After': String(retryAfterSeconds) },
    )
  }
}

export interface ProviderKeysOptions {
  /** The least time between two fetches of the keys: a token naming an unknown key waits for the next one. */
  readonly refetchIntervalMs?: number
  /** Keys older than this are fetched again in the background, so that a key the provider dropped goes too. */
  readonly maxAgeMs?: number
  readonly timeoutMs?: number
  readonly now?: () => number
  readonly fetch?: (url: string, init: RequestInit) => Promise<Response>
  /** Called after each fetch of the keys: how many there are, or why there are none. */
  readonly onLoad?: (outcome: { readonly keys: number } | { readonly problem: string }) => void
}

const DISCOVERY = '/.well-known/openid-configuration'

/**
 * An issuer's signing keys, found through its discovery document (`jwks_uri`) and kept in
 * memory. A token naming a key not yet known makes them be fetched again — at most once per
 * refetch interval, however many such tokens come — so checking a token costs no round trip.
 */
export class ProviderKeys {
  #keys: JWTVerifyGetKey | null = null
  #jwksUri: string | null = null
  #attemptedAt = -Infinity
  #loadedAt = -Infinity
  #problem: string | null = 'not fetched yet'
  #pending: Promise<void> | null = null
  readonly #interval: number
  readonly #maxAge: number
  readonly #timeout: number
  readonly #now: () => number
  readonly #fetch: (url: string, init: RequestInit) => Promise<Response>
  readonly #onLoad: NonNullable<ProviderKeysOptions['onLoad']>

  constructor(
    readonly issuer: string,
    options: ProviderKeysOptions = {},
  ) {
    this.#interval = options.refetchIntervalMs ?? 10_000
    this.#maxAge = options.maxAgeMs ?? 10 * 60_000
    this.#timeout = options.timeoutMs ?? 5_000
    this.#now = options.now ?? Date.now
    this.#fetch = options.fetch ?? fetch
    this.#onLoad = options.onLoad ?? (() => {})
  }

  /** Fetches the keys now (at start-up); a fault is reported through `onLoad`, never thrown. */
  load(): Promise<void> {
    return this.#refresh()
  }

  /** jose's key lookup: from the keys in memory; a key not among them makes them be fetched again (rate-limited). */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    if (this.#keys && this.#now() - this.#loadedAt > this.#maxAge && !this.#pending) void this.#refresh()
    if (this.#keys) {
      try {
        return await this.#keys(header, token)
      } catch (error) {
        if (!(error instanceof errors.JWKSNoMatchingKey)) throw error
      }
    }
    if (!this.#pending && this.#now() - this.#attemptedAt >= this.#interval) void this.#refresh()
    if (this.#pending) await this.#pending
    // A key still unknown after a good fetch (now, or within the interval) is not the issuer's: jose's
    // 401 below. After a failed fetch we cannot tell, and say so.
    if (this.#problem !== null || !this.#keys) throw new ProviderUnavailable(this.#retryAfterSeconds())
    return this.#keys(header, token)
  }

  #retryAfterSeconds(): number {
    return Math.max(1, Math.ceil((this.#attemptedAt + this.#interval - this.#now()) / 1000))
  }

  #refresh(): Promise<void> {
    this.#attemptedAt = this.#now()
    this.#pending ??= this.#fetchKeys()
      .then(
        ({ keys, count }) => {
          this.#keys = keys
          this.#loadedAt = this.#now()
          this.#problem = null
          this.#onLoad({ keys: count })
        },
        (error: unknown) => {
          // The next attempt asks the discovery document again: the jwks_uri may have moved.
          this.#jwksUri = null
          this.#problem = error instanceof Error ? error.message : String(error)
          this.#onLoad({ problem: this.#problem })
        },
      )
      .finally(() => {
        this.#pending = null
      })
    return this.#pending
  }

  async #fetchKeys(): Promise<{ keys: JWTVerifyGetKey; count: number }> {
    this.#jwksUri ??= await this.#discover()
    const jwks = (await this.#json(this.#jwksUri)) as JSONWebKeySet
    try {
      return { keys: createLocalJWKSet(jwks), count: jwks.keys.length }
    } catch {
      throw new Error(`${this.#jwksUri} is not a JSON Web Key Set`)
    }
  }

  async #discover(): Promise<string> {
    const url = this.issuer.replace(/\/$/, '') + DISCOVERY
    const document = (await this.#json(url)) as { issuer?: unknown; jwks_uri?: unknown }
    if (document.issuer !== this.issuer)
      throw new Error(`${url} names the issuer ${JSON.stringify(document.issuer)}, not ${JSON.stringify(this.issuer)}`)
    if (typeof document.jwks_uri !== 'string') throw new Error(`${url} has no jwks_uri`)
    return document.jwks_uri
  }

  async #json(url: string): Promise<unknown> {
    let response: Response
    try {
      response = await this.#fetch(url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.#timeout),
      })
    } catch (error) {
      throw new Error(`${url} did not answer (${error instanceof Error ? error.message : String(error)})`)
    }
    if (!response.ok) throw new Error(`${url} answered ${response.status}`)
    const body: unknown = await response.json().catch(() => null)
    if (body === null || typeof body !== 'object') throw new Error(`${url} did not answer with a JSON object`)
    return body
  }
}
