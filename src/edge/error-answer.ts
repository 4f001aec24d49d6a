// The one place that decides what an error answers (docs/reference.md §8): its status, the headers
// it adds and the reference's body, and the words a person reads of it on the site. The API gives
// that body as JSON or its browsable view (replyError in respond.ts); the site, as a page.
import { ApiError, BadRequest, NotFound } from '../domain/errors'

/** What an error answers, whatever the representation. An ApiError is one. */
export interface ErrorAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: Readonly<Record<string, unknown>>
}

/** Elysia's own refusals, by its error code: an unknown path, a body that does not parse or fit. */
const FRAMEWORK: ReadonlyMap<string | number, ErrorAnswer> = new Map([
  ['NOT_FOUND', new NotFound()],
  ['PARSE', new BadRequest('JSON parse error - the body could not be parsed.')],
  ['VALIDATION', new BadRequest('Invalid request.')],
])

/** The answer to a fault no rule expects (a bug), which is logged: no stack trace, no detail. */
export const FAULT: ErrorAnswer = new ApiError(500, { detail: 'Internal server error.' })

/** What `error` answers (`code`: Elysia's, for its own errors); null for a fault, answered FAULT. */
export function errorAnswer(error: unknown, code?: string | number): ErrorAnswer | null {
  if (error instanceof ApiError) return error
  return (code !== undefined && FRAMEWORK.get(code)) || null
}

const PAGE_TITLES: Readonly<Record<number, string>> = {
  400: 'That did not work',
  403: 'Not allowed',
  404: 'Page not found',
  409: 'Changed meanwhile',
  429: 'Too many tries',
  503: 'Try again soon',
}

/** An error's status in words, as a page of the site titles it. */
export const pageTitle = (status: number) => PAGE_TITLES[status] ?? 'Something went wrong'

/** The reason an error gives, in a sentence: its detail, or a refusal's field messages (a 400), which say what to change. */
export function reasonOf({ body }: ErrorAnswer): string {
  if (typeof body.detail === 'string') return body.detail
  const messages = Object.values(body).flatMap((value) => (Array.isArray(value) ? value.map(String) : []))
  return messages.length ? messages.join(' ') : 'Some values are not valid.'
}
