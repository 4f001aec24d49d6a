import { timingSafeEqual } from 'node:crypto'
import { ANONYMOUS, type Caller } from '../domain/caller'
import { NotAuthenticated } from '../domain/errors'
import { sha256 } from '../domain/user-directory'
import { ADMIN_USERNAME, type UserService } from '../domain/users'
import { looksLikeJwt, type CampusSignIn } from './oidc'

export interface AuthenticatorOptions {
  /** CLUBS_ADMIN_TOKEN: the bootstrap admin's token. */
  readonly adminToken: string | null
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
    if (user) return { username: user.username, isAdmin: user.is_admin }
    if (this.options.campus && looksLikeJwt(token)) return this.#campusCaller(this.options.campus, token)
    throw new NotAuthenticated('Invalid token.')
  }

  async #campusCaller(campus: CampusSignIn, token: string): Promise<Caller> {
    const { username, isAdmin } = await campus.verify(token)
    const { users, recordsNewUsers } = this.options
    const record = recordsNewUsers ? await users.signedIn(username) : users.directory.get(username)
    // An admin by the group claim for this request, or one this service made an admin.
    return { username, isAdmin: isAdmin || record?.is_admin === true }
  }
}
