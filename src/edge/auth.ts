import { timingSafeEqual } from 'node:crypto'
import { ANONYMOUS, type Caller } from '../domain/caller'
import { NotAuthenticated } from '../domain/errors'
import { sha256 } from '../domain/user-directory'
import { ADMIN_USERNAME, type UserService } from '../domain/users'
import { looksLikeJwt, type CampusIdentity, type CampusSignIn } from './oidc'

const NO_ADMIN_TOKEN =
  'This server has no admin token (CLUBS_ADMIN_TOKEN is not set): only tokens issued to its users work.'

export interface AuthenticatorOptions {
  /** CLUBS_ADMIN_TOKEN: the bootstrap admin's token. */
  readonly adminToken: string | null
  /**
   * Whether the bootstrap admin's development token, kept in the data file like any user's, opens
   * the API: only outside production and without CLUBS_ADMIN_TOKEN, which replaces it.
   */
  readonly developmentAdmin?: boolean
  readonly users: UserService
  /** Campus sign-in, when configured. */
  readonly campus: CampusSignIn | null
  /** Whether a campus user is recorded on their first request (not in a read-only directory). */
  readonly recordsNewUsers: boolean
}

/**
 * Resolves `Authorization: Bearer <token>` to a caller; a token that names nobody is a 401.
 * Service tokens are looked up in memory on every request (a revoked one is gone at once, so no
 * answer cache can serve it); only a campus JWT makes the answer asynchronous.
 */
export class Authenticator {
  readonly #adminHash: Buffer | null

  constructor(private readonly options: AuthenticatorOptions) {
    this.#adminHash = options.adminToken ? Buffer.from(sha256(options.adminToken), 'hex') : null
  }

  authenticate(authorization: string | null): Caller | Promise<Caller> {
    if (authorization === null || authorization.trim() === '') return ANONYMOUS
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    if (!match) throw new NotAuthenticated('Invalid authorization header. Use "Authorization: Bearer <token>".')
    const token = match[1]!
    if (this.#adminHash && timingSafeEqual(Buffer.from(sha256(token), 'hex'), this.#adminHash))
      return { username: ADMIN_USERNAME, isAdmin: true }
    const user = this.options.users.directory.byToken(token)
    if (user && (user.username !== ADMIN_USERNAME || this.options.developmentAdmin)) {
      this.options.users.checkActive(user.username)
      return { username: user.username, isAdmin: user.is_admin }
    }
    if (this.options.campus && looksLikeJwt(token))
      return this.options.campus.verify(token).then((identity) => this.campusCaller(identity))
    throw new NotAuthenticated('Invalid token.')
  }

  /**
   * Who a service token in `authorization` names, without judging the rest: the rate limit's key.
   * Any spelling of the scheme names the same holder; a wrong token, or a campus JWT (checked only
   * later, at a cost), names nobody.
   */
  tokenHolder(authorization: string | null): string | null {
    const match = authorization === null ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    if (!match) return null
    const token = match[1]!
    if (this.#adminHash && timingSafeEqual(Buffer.from(sha256(token), 'hex'), this.#adminHash)) return ADMIN_USERNAME
    return this.options.users.directory.byToken(token)?.username ?? null
  }

  /** Whether any token opens the bootstrap admin: CLUBS_ADMIN_TOKEN, or a development token in the data file. */
  get hasAdminToken(): boolean {
    if (this.#adminHash) return true
    return this.options.developmentAdmin === true && !!this.options.users.directory.get(ADMIN_USERNAME)?.token_sha256
  }

  /** A 401 from a server that has no admin token says so: then no token a reader could try is an admin's. */
  explain(error: unknown): unknown {
    if (!(error instanceof NotAuthenticated) || this.hasAdminToken) return error
    return new NotAuthenticated(`${error.body.detail} ${NO_ADMIN_TOKEN}`)
  }

  /**
   * Whom a verified campus identity names (a bearer JWT's, or a site sign-in's ID token): recorded
   * as a user the first time (not in a read-only directory), with the e-mail address it names kept
   * up to date, an admin by group or by this service.
   */
  async campusCaller({ username, isAdmin, email }: CampusIdentity): Promise<Caller> {
    const { users, recordsNewUsers } = this.options
    const record = recordsNewUsers ? await users.signedIn(username, email) : users.directory.get(username)
    users.checkActive(username)
    // An admin by the group claim for this request, or one this service made an admin.
    return { username, isAdmin: isAdmin || record?.is_admin === true }
  }
}
