import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { UserRecord } from '../model/user'

export const sha256 = (token: string): string => createHash('sha256').update(token).digest('hex')

/** A fresh bearer token: 256 random bits, URL-safe. */
export const newToken = (): string => randomBytes(32).toString('base64url')

/** The users, found by name or by the hash of a presented token. */
export class UserDirectory {
  #byName = new Map<string, UserRecord>()
  #byTokenHash = new Map<string, UserRecord>()

  constructor(users: readonly UserRecord[]) {
    for (const user of users) this.put(user)
  }

  get(username: string): UserRecord | undefined {
    return this.#byName.get(username)
  }

  /** The user whose token this is; the stored hash is compared in constant time. */
  byToken(token: string): UserRecord | undefined {
    const hash = sha256(token)
    const user = this.#byTokenHash.get(hash)
    if (!user) return undefined
    return timingSafeEqual(Buffer.from(hash, 'hex'), Buffer.from(user.token_sha256!, 'hex')) ? user : undefined
  }

  /** Adds `user`, or replaces the record of that name: its previous token stops being found at once. */
  put(user: UserRecord): void {
    this.remove(user.username)
    this.#byName.set(user.username, user)
    if (user.token_sha256 !== null) this.#byTokenHash.set(user.token_sha256, user)
  }

  remove(username: string): void {
    const user = this.#byName.get(username)
    if (!user) return
    this.#byName.delete(username)
    if (user.token_sha256 !== null) this.#byTokenHash.delete(user.token_sha256)
  }

  all(): UserRecord[] {
    return [...this.#byName.values()]
  }
}
