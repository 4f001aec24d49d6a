import { Elysia } from 'elysia'
import { ApiError, NotFound } from '../domain/errors'
import { exchangeForError, type Exchange } from './exchange'
import { replyJson } from './respond'

export type LogFault = (error: unknown, request: Request) => void

/** The one place that turns every error, ours or Elysia's, into the reference's body (docs/reference.md §8). */
export function errorHandler(logFault: LogFault) {
  return new Elysia({ name: 'error-handler' }).onError({ as: 'global' }, ({ code, error, request }) => {
    const ex = exchangeForError(request)
    if (error instanceof ApiError) return replyJson(ex, error.status, error.body, error.headers)
    if (code === 'NOT_FOUND') return replyJson(ex, 404, new NotFound().body)
    if (code === 'PARSE') return replyJson(ex, 400, { detail: 'JSON parse error - the body could not be parsed.' })
    if (code === 'VALIDATION') return replyJson(ex, 400, { detail: 'Invalid request.' })
    return answerFault(logFault, ex, error)
  })
}

/** An error no rule expects (a bug): logged, and answered with the reference's 500. */
export function answerFault(logFault: LogFault, ex: Exchange, error: unknown) {
  logFault(error, ex.request)
  return replyJson(ex, 500, { detail: 'Internal server error.' })
}
