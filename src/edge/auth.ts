import { timingSafeEqual } from 'node:crypto'
import { ANONYMOUS, type Caller } from '../domain/caller'
import { NotAuthenticated } from '../domain/errors'
import { sha256, type UserDirectory } from '../domain/user-directory'
import { ADMIN_USERNAME } from '../domain/users'

/** Resolves `Authorization: Bearer <token>` to a caller; a token that names nobody is a 401. */
export class Authenticator {
  readonly #adminHash: Buffer | null

  constructor(
    adminToken: string | null,
    private readonly users: UserDirectory,
  ) {
    this.#adminHash = adminToken ? Buffer.from(sha256(adminToken), 'hex') : null
  }

  authenticate(authorization: string | null): Caller {
    if (authorization === null || authorization.trim() === '') return ANONYMOUS
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    if (!match) throw new NotAuthenticated('Invalid authorization header. Use "Authorization: Bearer <token>".')
    const token = match[1]!
    if (this.#adminHash && timingSafeEqual(Buffer.from(sha256(token), 'hex'), this.#adminHash))
      return { username: ADMIN_USERNAME, isAdmin: true }
    const user = this.users.byToken(token)
    if (user) return { username: user.username, isAdmin: user.is_admin }
    throw new NotAuthenticated('Invalid token.')
  }
}
