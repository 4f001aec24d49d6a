import { timingSafeEqual } from 'node:crypto'
import { BadRequest } from '../domain/errors'

/** A campus sign-in begun and not yet finished: what the provider's answer is checked against. */
export interface PendingSignIn {
  readonly state: string
  readonly nonce: string
  /** The PKCE code verifier: only its S256 challenge went to the provider. */
  readonly verifier: string
  /** Where to go once signed in: a path of this site. */
  readonly next: string
  /** The random value in the cookie of the browser that began it: no other browser may finish it. */
  readonly browser: string
}

/** How long a person may take at the provider's pages before a sign-in must begin again. */
export const PENDING_TTL_MS = 10 * 60 * 1000
/** At most this many begun at once: a flood of beginnings pushes out the oldest, not the memory. */
const MAX_PENDING = 10_000

export const EXPIRED_SIGN_IN = 'This sign-in has expired or was already used. Sign in again.'
export const OTHER_BROWSER = 'This sign-in was begun in another browser. Sign in again here.'

/**
 * Sign-ins under way, in memory, by their `state` (they need not survive a restart: one begins
 * again in a click). Each is taken once, by the browser that began it, within ten minutes.
 */
export class PendingSignIns {
  readonly #byState = new Map<string, { readonly signIn: PendingSignIn; readonly at: number }>()

  constructor(private readonly now: () => number) {}

  add(pending: PendingSignIn): void {
    const at = this.now()
    for (const [state, entry] of this.#byState) {
      if (at - entry.at < PENDING_TTL_MS && this.#byState.size < MAX_PENDING) break
      this.#byState.delete(state)
    }
    this.#byState.set(pending.state, { signIn: pending, at })
  }

  /**
   * The sign-in `state` names, taken (so never again); a 400 when there is none alive, or when
   * `browser` is not the one that began it (then it stays, for that browser to finish).
   */
  take(state: string, browser: string | null): PendingSignIn {
    const entry = this.#byState.get(state)
    if (!entry || this.now() - entry.at >= PENDING_TTL_MS) {
      this.#byState.delete(state)
      throw new BadRequest(EXPIRED_SIGN_IN)
    }
    if (browser === null || !sameText(browser, entry.signIn.browser)) throw new BadRequest(OTHER_BROWSER)
    this.#byState.delete(state)
    return entry.signIn
  }

  get size(): number {
    return this.#byState.size
  }
}

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))
