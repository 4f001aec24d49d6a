import { errors, jwtVerify, type JWTPayload } from 'jose'
import { ApiError, NotAuthenticated } from '../domain/errors'
import { ADMIN_USERNAME, fitUsername } from '../domain/users'
import { MAX_EMAIL_LENGTH } from '../model/user'
import { ProviderKeys, type ProviderKeysOptions } from './provider-keys'

/** Campus sign-in as configured (CLUBS_OIDC_*, docs/reference.md §13). */
export interface OidcSettings {
  readonly issuer: string
  readonly audience: string
  readonly usernameClaim: string
  readonly groupsClaim: string
  /** Members of this group are admins; null: no group makes one. */
  readonly adminGroup: string | null
  /** The site's client at the provider (CLUBS_OIDC_CLIENT_ID, docs/reference.md §20); the audience when absent. */
  readonly clientId?: string
  /** CLUBS_OIDC_CLIENT_SECRET: the site is a confidential client; absent or null, a public one (PKCE alone). */
  readonly clientSecret?: string | null
}

/** Who a verified token says its bearer is. */
export interface CampusIdentity {
  readonly username: string
  /** From the admin group claim, for this request. */
  readonly isAdmin: boolean
  /** The `email` claim, when the token carries a usable one. */
  readonly email: string | null
}

/** Asymmetric only: `none` and HMAC (which a public key could be made to sign) are never taken. */
const ALGORITHMS = ['RS256', 'ES256']
// Real tokens are a few KiB at most (Entra ID caps its groups claim at 200); a bigger one is not parsed.
const MAX_TOKEN = 16 * 1024
const MAX_HEADER = 2 * 1024
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/

/** Whether a bearer token is shaped like a JWT (three base64url parts), so campus sign-in judges it. */
export const looksLikeJwt = (token: string): boolean => COMPACT_JWS.test(token)

/** Checks the campus identity provider's JWTs: signature by a published key, `iss`, `aud`, `exp`, `nbf`. */
export class CampusSignIn {
  readonly keys: ProviderKeys

  constructor(
    readonly settings: OidcSettings,
    options: ProviderKeysOptions = {},
  ) {
    this.keys = new ProviderKeys(settings.issuer, options)
  }

  /**
   * The token's user; a 401 for any token that is not a valid one, a 503 when the keys cannot be
   * had. `audience`: the site's client id, for the ID tokens of its sign-in (docs/reference.md §20).
   */
  async verify(token: string, audience = this.settings.audience): Promise<CampusIdentity> {
    if (token.length > MAX_TOKEN || token.indexOf('.') > MAX_HEADER)
      throw new NotAuthenticated('The token is too large.')
    let payload: JWTPayload
    try {
      ;({ payload } = await jwtVerify(token, this.keys.getKey, {
        issuer: this.settings.issuer,
        audience,
        algorithms: ALGORITHMS,
        requiredClaims: ['exp'],
      }))
    } catch (error) {
      if (error instanceof ApiError) throw error
      throw new NotAuthenticated(refusal(error))
    }
    return { username: this.#username(payload), isAdmin: this.#isAdmin(payload), email: emailOf(payload) }
  }

  #username(payload: JWTPayload): string {
    const claim = this.settings.usernameClaim
    const value = payload[claim]
    const username = typeof value === 'string' ? fitUsername(value) : null
    if (username === null) throw new NotAuthenticated(`The token has no usable "${claim}" claim.`)
    // The bootstrap admin is the environment's token alone; no identity provider may speak for it.
    if (username === ADMIN_USERNAME) throw new NotAuthenticated(`The username "${ADMIN_USERNAME}" is reserved.`)
    return username
  }

  #isAdmin(payload: JWTPayload): boolean {
    const { adminGroup, groupsClaim } = this.settings
    if (adminGroup === null) return false
    const groups = payload[groupsClaim]
    return Array.isArray(groups) ? groups.includes(adminGroup) : groups === adminGroup
  }
}

/**
 * The token's `email` claim, when it is a string that can be an address (one "@", no control
 * characters, at most 254 characters); anything else is no address, not a refusal.
 */
function emailOf(payload: JWTPayload): string | null {
  const email = payload.email
  if (typeof email !== 'string') return null
  const trimmed = email.trim()
  return trimmed.length <= MAX_EMAIL_LENGTH && /^[^@\s\p{Cc}]+@[^@\s\p{Cc}]+$/u.test(trimmed) ? trimmed : null
}

/** What a refused token is told: enough to fix a configuration, nothing about the keys. */
function refusal(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'The token has expired.'
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return 'The token is not valid yet.'
    if (error.claim === 'iss') return 'The token is not from the configured issuer.'
    if (error.claim === 'aud') return 'The token is not meant for this service (audience).'
    return `The token's "${error.claim}" claim is missing or invalid.`
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'The token is not signed with RS256 or ES256.'
  if (error instanceof errors.JWKSNoMatchingKey) return "The token's signing key is not one the issuer publishes."
  if (error instanceof errors.JWSSignatureVerificationFailed) return "The token's signature does not verify."
  return 'Invalid token.'
}
