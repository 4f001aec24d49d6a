import { randomBytes } from 'node:crypto'
import * as oidc from 'openid-client'
import { ApiError, BadRequest } from '../domain/errors'
import type { CampusIdentity, CampusSignIn } from '../edge/oidc'
import { PendingSignIns } from './pending-sign-ins'

/** What the site asks the provider for: the ID token, with the username, groups and email claims. */
const SCOPE = 'openid profile email'
/** The site's side of a sign-in, below this service's own timeouts. */
const PROVIDER_TIMEOUT_SECONDS = 10

/** The provider could not be asked (down, slow, or answering nonsense): not the person's fault. */
class ProviderUnreachable extends ApiError {
  constructor() {
    super(503, {
      detail: 'The campus sign-in service cannot be reached. Try again in a moment, or sign in with a token.',
    })
  }
}

/** What a provider's refusal, or a check of its answer that failed, tells the person. */
const REFUSED = 'The campus sign-in did not complete, so you are not signed in. Sign in again.'

/** Failures of openid-client's checks of the provider's answer (state, nonce, audience, times...): a refusal. */
const REFUSAL_CODES = new Set([
  'OAUTH_PARSE_ERROR',
  'OAUTH_INVALID_RESPONSE',
  'OAUTH_INVALID_REQUEST',
  'OAUTH_JWT_TIMESTAMP_CHECK_FAILED',
  'OAUTH_JWT_CLAIM_COMPARISON_FAILED',
  'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED',
])

/** A sign-in begun: where to send the browser, and the value its cookie must carry back. */
export interface Begun {
  readonly location: URL
  readonly browser: string
}

/** A sign-in finished: who, and where they were going. */
export interface Finished {
  readonly identity: CampusIdentity
  readonly next: string
}

/**
 * The site's campus sign-in (docs/reference.md §20): the authorization code flow with PKCE (S256), `state`
 * and `nonce`, through openid-client. The ID token is then checked as a bearer JWT is (docs/reference.md §13: the
 * issuer's published keys, RS256 or ES256, `iss`, `exp`, `nbf`), for the site's client id.
 */
export class CampusFlow {
  readonly clientId: string
  readonly #pending: PendingSignIns
  #configuration: Promise<oidc.Configuration> | null = null

  constructor(
    private readonly campus: CampusSignIn,
    private readonly options: {
      /** Records a campus user on their first sign-in, as their first bearer request would. */
      readonly record: (identity: CampusIdentity) => Promise<unknown>
      readonly now: () => number
    },
  ) {
    this.clientId = campus.settings.clientId ?? campus.settings.audience
    this.#pending = new PendingSignIns(options.now)
  }

  /** Begins a sign-in for the browser whose cookie holds `browser` (a new value when null), back at `redirectUri`. */
  async begin(redirectUri: string, next: string, browser: string | null): Promise<Begun> {
    const configuration = await this.#configured()
    const [state, nonce, verifier] = [oidc.randomState(), oidc.randomNonce(), oidc.randomPKCECodeVerifier()]
    const location = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: SCOPE,
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    })
    const holder = browser ?? randomBytes(32).toString('base64url')
    this.#pending.add({ state, nonce, verifier, next, browser: holder })
    return { location, browser: holder }
  }

  /**
   * Finishes the sign-in the provider sent the browser back with (`callback`: the URL it asked
   * for), and records its user; a 400 for anything amiss, a 503 when the provider cannot be asked.
   */
  async finish(callback: URL, browser: string | null): Promise<Finished> {
    const state = callback.searchParams.get('state')
    if (state === null) throw new BadRequest(REFUSED)
    const pending = this.#pending.take(state, browser)
    const configuration = await this.#configured()
    let idToken: string | undefined
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, callback, {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
      })
      idToken = tokens.id_token
    } catch (error) {
      throw isRefusal(error) ? new BadRequest(REFUSED) : new ProviderUnreachable()
    }
    if (idToken === undefined) throw new BadRequest(REFUSED)
    const identity = await this.#verified(idToken)
    await this.options.record(identity)
    return { identity, next: pending.next }
  }

  async #verified(idToken: string): Promise<CampusIdentity> {
    try {
      return await this.campus.verify(idToken, this.clientId)
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) throw new BadRequest(`${REFUSED} (${error.message})`)
      throw error
    }
  }

  /** The provider's metadata, discovered on first use; asked again after a failure. */
  #configured(): Promise<oidc.Configuration> {
    this.#configuration ??= this.#discover().catch((error) => {
      this.#configuration = null
      throw error
    })
    return this.#configuration
  }

  async #discover(): Promise<oidc.Configuration> {
    const { issuer, clientSecret } = this.campus.settings
    try {
      return await oidc.discovery(
        new URL(issuer),
        this.clientId,
        clientSecret ? { client_secret: clientSecret } : undefined,
        clientSecret ? oidc.ClientSecretBasic(clientSecret) : oidc.None(),
        {
          // Plain http only for an issuer configured so (a provider on loopback in development and tests).
          execute: new URL(issuer).protocol === 'http:' ? [oidc.allowInsecureRequests] : [],
          timeout: PROVIDER_TIMEOUT_SECONDS,
        },
      )
    } catch {
      throw new ProviderUnreachable()
    }
  }
}

/** Whether the provider refused (a wrong or replayed code, a denial) or its answer failed a check: not an outage. */
function isRefusal(error: unknown): boolean {
  if (error instanceof oidc.AuthorizationResponseError) return true
  if (error instanceof oidc.ResponseBodyError) return error.status < 500
  return error instanceof oidc.ClientError && REFUSAL_CODES.has(error.code ?? '')
}
