import { t, type TSchema } from 'elysia'
import { Type } from '@sinclair/typebox'
import { CODE_PATTERN } from '../../model/club'
import { USERNAME_PATTERN } from '../../model/user'
import { headerRefs, schemaRef, type HeaderName } from './components'

// The pieces every endpoint's OpenAPI operation is made of: error answers, parameters and
// security, described once from the same schemas the code validates with.

/** An OpenAPI response, as the operations here declare them. */
export interface ResponseDoc {
  readonly description: string
  readonly headers?: Readonly<Record<string, { $ref: string }>>
  readonly content?: Readonly<Record<string, MediaDoc>>
  /**
   * The other forms a JSON answer comes in when asked for (the browsable view, spreadsheets), as
   * `content` would list them. Kept out of `content`: generated clients type an answer as the
   * union of its content, so a JSON operation's answers would come out as `string | Blob | ...`.
   */
  readonly 'x-other-media'?: Readonly<Record<string, MediaDoc>>
}

export interface MediaDoc {
  readonly schema: TSchema
  readonly example?: unknown
}

export const json = (schema: TSchema, description: string, example?: unknown): ResponseDoc => ({
  description,
  content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
})

const withHeaders = (response: ResponseDoc, ...names: HeaderName[]): ResponseDoc => ({
  ...response,
  headers: { ...response.headers, ...headerRefs(...names) },
})

const error = (description: string, example: { detail: string }) => json(schemaRef('Error'), description, example)

export const ERRORS = {
  400: json(
    t.Union([schemaRef('ValidationErrors'), schemaRef('Error')]),
    'Invalid input: a field-by-field list, or {"detail"} for a body that is not JSON or a request that cannot be taken.',
    { size: ['"9" is not a valid choice.'] },
  ),
  401: withHeaders(
    error('No or wrong credentials: a token is needed, or the one sent is not known.', { detail: 'Invalid token.' }),
    'WWW-Authenticate',
  ),
  403: error('Known caller, not allowed; or a disabled account, whatever it sends.', {
    detail: 'You do not have permission to perform this action.',
  }),
  404: error('No such resource, one the caller may not see, or an unknown ?format=.', { detail: 'Not found.' }),
  405: error('Method not allowed, or a write while the directory is read-only (CLUBS_READ_ONLY).', {
    detail: 'Method "PATCH" not allowed.',
  }),
  409: error('The club is not in a state that allows this: e.g. a resubmission of a club that is not rejected.', {
    detail: '“Go Club” already awaits review.',
  }),
  413: error('Body over 1 MiB (over 10 MiB for an import).', { detail: 'Request body is larger than 1048576 bytes.' }),
  415: error('Body not application/json (for an import: nor text/csv, or a charset other than UTF-8).', {
    detail: 'Unsupported media type "text/plain" in request.',
  }),
  429: withHeaders(
    error(
      "Too many requests from this token or address (only with CLUBS_RATE_LIMIT set), or more than 8 of the caller's logo uploads waiting.",
      {
        detail: 'Request was throttled. Expected available in 3 seconds.',
      },
    ),
    'Retry-After',
  ),
  503: withHeaders(
    error(
      'Try again after Retry-After: a change could not be saved (nothing was changed), more than 64 logo uploads are waiting, or, with campus sign-in, the identity provider could not be reached to check a token.',
      { detail: 'The change could not be saved; storage is unavailable. Try again later.' },
    ),
    'Retry-After',
  ),
} as const satisfies Record<number, ResponseDoc>
export type ErrorStatus = keyof typeof ERRORS

/** The errors any write can meet, besides its own. */
export const WRITE_ERRORS: readonly ErrorStatus[] = [400, 401, 403, 404, 405, 413, 415, 503]

/**
 * What the edge itself may answer for any action, whatever the action does: a wrong token (401),
 * a disabled account's (403), an unknown ?format= (404), the rate limit (429), a campus token that cannot be checked now
 * (503); for a body, one that is too large, not JSON or not parsable; for a write, a read-only
 * directory (405).
 */
export function edgeErrors(method: string, takesBody: boolean): ErrorStatus[] {
  const always: ErrorStatus[] = [401, 403, 404, 429, 503]
  const body: ErrorStatus[] = takesBody ? [400, 413, 415] : []
  const write: ErrorStatus[] = method === 'GET' ? [] : [405]
  return [...always, ...body, ...write]
}

const NOT_MODIFIED: ResponseDoc = { description: 'Not modified: If-None-Match named the current ETag.' }

const BROWSABLE = { 'text/html': { schema: schemaRef('BrowsableView') } }

/** Also answered as `media`, besides its content (see `x-other-media`). */
const alsoAs = (response: ResponseDoc, media: Readonly<Record<string, MediaDoc>>): ResponseDoc => ({
  ...response,
  'x-other-media': { ...response['x-other-media'], ...media },
})

/**
 * A response that is JSON or, for a browser, the browsable view of the same answer; with
 * X-Request-Id. A JSON answer's other forms (a spreadsheet ?format= asks for) go with the browsable
 * view under `x-other-media`, leaving JSON alone in `content`.
 */
export function negotiatedResponse(response: ResponseDoc): ResponseDoc {
  const { content, ...rest } = withHeaders(response, 'X-Request-Id')
  if (!content) return rest
  const { 'application/json': json, ...others } = content
  if (!json) return alsoAs({ ...rest, content }, BROWSABLE)
  return alsoAs({ ...rest, content: { 'application/json': json } }, { ...others, ...BROWSABLE })
}

/** A response of an endpoint as it is sent: negotiated, with its path's Allow, and an ETag on a GET's 200 or 304. */
export function endpointResponse(
  status: number,
  response: ResponseDoc,
  method: string,
  negotiated = true,
): ResponseDoc {
  const headers: HeaderName[] = status === 429 ? [] : ['Allow']
  if (method === 'GET' && (status === 200 || status === 304)) headers.push('ETag')
  return withHeaders(negotiated ? negotiatedResponse(response) : plainResponse(response), ...headers)
}

/**
 * An action's responses as the edge sends them: on a GET also a 304 for an If-None-Match that names
 * the current ETag; for a 204, the browsable view's page showing it, which is a 200 (a 204 has no
 * body), named beside the 204 so that a client's success type stays "no content".
 */
export function withEdgeResponses(method: string, responses: Readonly<Record<number, ResponseDoc>>) {
  const out = { ...responses }
  if (method === 'GET') out[304] ??= NOT_MODIFIED
  const done = out[204]
  if (done)
    out[204] = alsoAs(
      { ...done, description: `${done.description} (The browsable view answers a 200 page showing it.)` },
      BROWSABLE,
    )
  return out
}

/** A response of the probes and metrics, which answer JSON or text only. */
export const plainResponse = (response: ResponseDoc) => withHeaders(response, 'X-Request-Id')

/** What OPTIONS answers on an endpoint's path. */
export const ENDPOINT_METADATA = t.Object(
  {
    name: t.String(),
    description: t.String(),
    renders: t.Array(t.String(), { description: 'The media types its answers come in.' }),
    parses: t.Array(t.String(), { description: 'The media types its bodies may be sent in.' }),
    allowed_methods: t.Array(t.String(), { description: 'As Allow lists them.' }),
    actions: t.Optional(
      Type.Unsafe<Record<string, object>>({
        type: 'object',
        additionalProperties: { type: 'object', description: 'A JSON schema.' },
        description: 'The JSON schema of the body each method takes, by method.',
      }),
    ),
  },
  { additionalProperties: false },
)

export const SECURED: Record<string, string[]>[] = [{ bearer: [] }]
/**
 * Anonymous, or with a token (which changes what one sees). Swagger UI shows a padlock for it as
 * for SECURED; our page's plugin (swagger-init.js) shows none, and still sends the token when set.
 */
export const OPTIONALLY_SECURED: Record<string, string[]>[] = [{}, { bearer: [] }]

export interface Parameter {
  readonly name: string
  readonly in: 'query' | 'path'
  readonly description: string
  readonly schema: TSchema
  readonly required?: boolean
  /** What Swagger UI fills in when one tries the operation (a path parameter's, not a filter's). */
  readonly example?: unknown
}

export const query = (name: string, description: string, schema: TSchema): Parameter => ({
  name,
  in: 'query',
  description,
  schema,
})

/** One of `values`, as a string schema Swagger UI offers as a choice. */
export const choice = (values: readonly string[], options: { description?: string } = {}) =>
  Type.Unsafe<string>({ type: 'string', enum: [...values], ...options })

/** Every path parameter the API uses, described once; an endpoint's come from its path. */
export const PATH_PARAMETERS: Record<string, Parameter> = {
  code: {
    name: 'code',
    in: 'path',
    required: true,
    description: 'The club code.',
    schema: t.String({ pattern: CODE_PATTERN, examples: ['penn-chess-society'] }),
    example: 'penn-chess-society',
  },
  username: {
    name: 'username',
    in: 'path',
    required: true,
    description: 'A username.',
    schema: t.String({ pattern: USERNAME_PATTERN, examples: ['alice'] }),
    example: 'alice',
  },
  token: {
    name: 'token',
    in: 'path',
    required: true,
    description: "The secret token of a user's calendar address, as GET /api/users/me/calendar-url/ shows it.",
    schema: t.String({ pattern: '^[A-Za-z0-9_-]+$', examples: ['q3ZfJx0y8Vw2nQm5KkT1bA7sLrE9uHcD4pGiWoYvNz0'] }),
    example: 'q3ZfJx0y8Vw2nQm5KkT1bA7sLrE9uHcD4pGiWoYvNz0',
  },
  file: {
    name: 'file',
    in: 'path',
    required: true,
    description:
      "A logo's file name: the SHA-256 of its WebP bytes in hex, then .webp (as a club's image_url names it).",
    schema: t.String({ pattern: '^[0-9a-f]{64}\\.webp$', examples: [`${'3f'.repeat(32)}.webp`] }),
    example: `${'3f'.repeat(32)}.webp`,
  },
  entry: {
    name: 'entry',
    in: 'path',
    required: true,
    description: "The id of an interested student's entry, as GET /api/clubs/{code}/interested/ lists it.",
    schema: t.String({ minLength: 1, examples: ['0b8f6f2e-5d0c-4f43-9a57-3f5d2a1c9e10'] }),
    example: '0b8f6f2e-5d0c-4f43-9a57-3f5d2a1c9e10',
  },
  id: {
    name: 'id',
    in: 'path',
    required: true,
    description: 'The tag id, or the webhook id.',
    schema: Type.Integer({ minimum: 1, examples: [7] }),
    example: 7,
  },
  invite: {
    name: 'invite',
    in: 'path',
    required: true,
    description: "An invite link's id, as the club's list of invite links shows it (16 hex digits).",
    schema: t.String({ examples: ['3f9c1a0b7d2e4c68'] }),
    example: '3f9c1a0b7d2e4c68',
  },
}

export const FORMAT = query(
  'format',
  '"json" (default), or "api" for the browsable HTML view (which a browser gets anyway: it prefers text/html).',
  choice(['json', 'api']),
)
/** What a `?fields=` answer is, said where clients read it: it is no longer the typed default. */
export const FIELDS_ANSWER =
  'The answer then holds only those fields: its schema, the full representation, says what each is, and no other field is required (a typed client may take it as a Pick of that type).'
export const FIELDS = query(
  'fields',
  `Comma-separated fields to keep in the club, e.g. code,name. ${FIELDS_ANSWER}`,
  t.String({ examples: ['code,name'] }),
)

/** The labels of coded values as one line: "1 = 1-20, 2 = 21-50, ...". */
export const labels = (codes: Record<number, string>) =>
  Object.entries(codes)
    .map(([value, label]) => `${value} = ${label}`)
    .join(', ')
