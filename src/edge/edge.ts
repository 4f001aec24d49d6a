import type { Caller } from '../domain/caller'
import { ReadOnlyDirectory } from './errors'
import type { Authenticator } from './auth'
import { answerFault, type LogFault } from './error-handler'
import type { Exchange, PageInfo } from './exchange'
import { noteUsername } from './request-facts'

/** What every route needs from the edge: who is calling, whether writes are open, and how errors answer. */
export interface Edge {
  /** The caller at once for a service token; a promise for a campus JWT, whose check is asynchronous. */
  callerOf(request: Request): Caller | Promise<Caller>
  /** Throws the read-only 405 when the directory is published read-only (CLUBS_READ_ONLY). */
  guardWrite(page: PageInfo): void
  /** The error to answer with: a 401 says so when the server has no admin token. */
  explain(error: unknown): unknown
  /** The 500 answer to an error no rule expects, logged. */
  fault(ex: Exchange, error: unknown): Response | Promise<Response>
}

function noted(request: Request, caller: Caller): Caller {
  if (caller.username !== null) noteUsername(request, caller.username)
  return caller
}

export function makeEdge(auth: Authenticator, readOnly: boolean, logFault: LogFault): Edge {
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
    fault: (ex, error) => answerFault(logFault, ex, error),
  }
}
