import type { Caller } from '../domain/caller'
import { ReadOnlyDirectory } from './errors'
import type { Authenticator } from './auth'
import type { PageInfo } from './exchange'
import { noteUsername } from './request-facts'

/** What every route needs from the edge: who is calling, and whether writes are open. */
export interface Edge {
  /** The caller at once for a service token; a promise for a campus JWT, whose check is asynchronous. */
  callerOf(request: Request): Caller | Promise<Caller>
  /** Throws the read-only 405 when the directory is published read-only (CLUBS_READ_ONLY). */
  guardWrite(page: PageInfo): void
  /** The error to answer with: a 401 says so when the server has no admin token. */
  explain(error: unknown): unknown
}

function noted(request: Request, caller: Caller): Caller {
  if (caller.username !== null) noteUsername(request, caller.username)
  return caller
}

export function makeEdge(auth: Authenticator, readOnly: boolean): Edge {
  return {
    callerOf: (request) => {
      const caller = auth.authenticate(request.headers.get('authorization'))
      return caller instanceof Promise ? caller.then((known) => noted(request, known)) : noted(request, caller)
    },
    guardWrite: (page) => {
      // What a read-only directory allows here: the reading methods only.
      if (readOnly) throw new ReadOnlyDirectory(page.allow.includes('GET') ? 'GET' : '')
    },
    explain: (error) => auth.explain(error),
  }
}
