import type { Snapshot } from '../model/snapshot'
import { ADMIN_USERNAME, userWithToken } from './users'

/**
 * The bootstrap admin's development token: outside production and without CLUBS_ADMIN_TOKEN, a
 * directory nobody can write to yet — no user at all: a new data file from the seed, a first
 * start that never served, or `:memory:` — gets an `admin` user record holding the SHA-256 of a
 * fresh token, like any user's, so that a newcomer can write without inventing a token and no
 * fixed or guessable one exists. The token is shown once, by the caller.
 */
export function needsDevelopmentAdmin(data: Snapshot): boolean {
  return data.users.length === 0
}

/** `data` with the bootstrap admin's record added, and its token. */
export function withDevelopmentAdmin(data: Snapshot, now: Date): { data: Snapshot; token: string } {
  const { record, token } = userWithToken(ADMIN_USERNAME, true, now)
  return { data: { ...data, users: [...data.users, record] }, token }
}
