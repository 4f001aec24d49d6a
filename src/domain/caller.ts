import { NotAuthenticated } from './errors'

/** Who is making a request: resolved once at the edge, read by every policy. */
export interface Caller {
  /** null for anonymous callers. */
  readonly username: string | null
  readonly isAdmin: boolean
}

export const ANONYMOUS: Caller = Object.freeze({ username: null, isAdmin: false })

export const isAuthenticated = (caller: Caller): caller is Caller & { username: string } => caller.username !== null

/** The caller, who must have authenticated (401 otherwise). */
export function requireUser(caller: Caller): Caller & { username: string } {
  if (!isAuthenticated(caller)) throw new NotAuthenticated()
  return caller
}
