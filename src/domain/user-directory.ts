import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { UserRecord } from '../model/user'
import { Touched } from './change-set'

export const sha256 = (token: string): string => createHash('sha256').update(token).digest('hex')

/** A fresh bearer token: 256 random bits, URL-safe. */
export const newToken = (): string => randomBytes(32).toString('base64url')

/** The record `hash` names in `index`, when the stored hash is the same (compared in constant time). */
function found(
  index: ReadonlyMap<string, UserRecord>,
  hash: string,
  stored: (user: UserRecord) => string | null | undefined,
) {
  const user = index.get(hash)
  if (!user) return undefined
  return timingSafeEqual(Buffer.from(hash, 'hex'), Buffer.from(stored(user)!, 'hex')) ? user : undefined
}

/** The users, found by name or by the hash of a presented token or calendar token. */
export class UserDirectory {
  #byName = new Map<string, UserRecord>()
  #byTokenHash = new Map<string, UserRecord>()
  #byCalendarHash = new Map<string, UserRecord>()
  /** Grows on every change of a user's record. */
  version = 0
  /** Names of the users changed since last taken. */
  readonly touched = new Touched()

  constructor(users: readonly UserRecord[]) {
    for (const user of users) this.put(user)
  }

  get(username: string): UserRecord | undefined {
    return this.#byName.get(username)
  }

  /** The user whose token this is; the stored hash is compared in constant time. */
  byToken(token: string): UserRecord | undefined {
    return found(this.#byTokenHash, sha256(token), (user) => user.token_sha256)
  }

  /** The user whose calendar's secret address holds this token (docs/reference.md §21). */
  byCalendarToken(token: string): UserRecord | undefined {
    return found(this.#byCalendarHash, sha256(token), (user) => user.calendar_sha256)
  }

  /** Adds `user`, or replaces the record of that name: its previous tokens stop being found at once. */
  put(user: UserRecord): void {
    this.remove(user.username)
    this.version++
    this.touched.mark(user.username)
    this.#byName.set(user.username, user)
    if (user.token_sha256 !== null) this.#byTokenHash.set(user.token_sha256, user)
    if (user.calendar_sha256) this.#byCalendarHash.set(user.calendar_sha256, user)
  }

  remove(username: string): void {
    const user = this.#byName.get(username)
    if (!user) return
    this.version++
    this.touched.mark(username)
    this.#byName.delete(username)
    if (user.token_sha256 !== null) this.#byTokenHash.delete(user.token_sha256)
    if (user.calendar_sha256) this.#byCalendarHash.delete(user.calendar_sha256)
  }

  all(): UserRecord[] {
    return [...this.#byName.values()]
  }
}
