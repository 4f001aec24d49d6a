import { Elysia } from 'elysia'
import { errorAnswer, FAULT } from './error-answer'
import { exchangeForError, type Exchange } from './exchange'
import { replyError } from './respond'

export type LogFault = (error: unknown, request: Request) => void

/** Every error no route answered, ours or Elysia's, in the reference's body (error-answer.ts). */
export function errorHandler(logFault: LogFault) {
  return new Elysia({ name: 'error-handler' }).onError({ as: 'global' }, ({ code, error, request }) => {
    const ex = exchangeForError(request)
    const answer = errorAnswer(error, code)
    return answer ? replyError(ex, answer) : answerFault(logFault, ex, error)
  })
}

/** An error no rule expects (a bug): logged, and answered with the reference's 500. */
export function answerFault(logFault: LogFault, ex: Exchange, error: unknown) {
  logFault(error, ex.request)
  return replyError(ex, FAULT)
}
