import { createHash, timingSafeEqual } from 'node:crypto'
import { ANONYMOUS, type Caller } from '../caller'
import { NotAuthenticated } from '../errors'

export const ADMIN_USERNAME = 'admin'

export const hashToken = (token: string): Buffer => createHash('sha256').update(token).digest()

/** Resolves `Authorization: Bearer <token>` to a caller; a token that names nobody is a 401. */
export class Authenticator {
  readonly #adminHash: Buffer | null

  constructor(adminToken: string | null) {
    this.#adminHash = adminToken ? hashToken(adminToken) : null
  }

  get writesEnabled(): boolean {
    return this.#adminHash !== null
  }

  authenticate(authorization: string | null): Caller {
    if (authorization === null || authorization.trim() === '') return ANONYMOUS
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    if (!match) throw new NotAuthenticated('Invalid authorization header. Use "Authorization: Bearer <token>".')
    const presented = hashToken(match[1]!)
    if (this.#adminHash && timingSafeEqual(presented, this.#adminHash))
      return { username: ADMIN_USERNAME, isAdmin: true }
    throw new NotAuthenticated('Invalid token.')
  }
}
