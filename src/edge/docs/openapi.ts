import { t, type TSchema } from 'elysia'
import { Type } from '@sinclair/typebox'

// The pieces every endpoint's OpenAPI operation is made of: error answers, parameters and
// security, described once from the same schemas the code validates with.

export const json = (schema: TSchema, description: string, example?: unknown) => ({
  description,
  content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
})

const Detail = t.Object({ detail: t.String() }, { title: 'Error' })
const FieldErrors = t.Record(t.String(), t.Array(t.String()), {
  title: 'ValidationErrors',
  description: 'Each failing field with its messages; errors not tied to a field under non_field_errors.',
})

export const ERRORS = {
  400: json(FieldErrors, 'Invalid input: a field-by-field list, or {"detail"} for malformed JSON.', {
    size: ['"9" is not a valid choice.'],
  }),
  401: json(Detail, 'No or wrong credentials. Carries WWW-Authenticate: Bearer.', { detail: 'Invalid token.' }),
  403: json(Detail, 'Known caller, not allowed.', { detail: 'You do not have permission to perform this action.' }),
  404: json(Detail, 'No such resource, or not visible to the caller.', { detail: 'Not found.' }),
  405: json(Detail, 'Method not allowed (or the directory is read-only). Carries Allow.', {
    detail: 'Method "PATCH" not allowed.',
  }),
  413: json(Detail, 'Body over 1 MiB (over 10 MiB for an import).', {
    detail: 'Request body is larger than 1048576 bytes.',
  }),
  415: json(Detail, 'Body not application/json (for an import: nor text/csv, or a charset other than UTF-8).', {
    detail: 'Unsupported media type "text/plain" in request.',
  }),
  503: json(Detail, 'The change could not be saved; nothing was changed. Carries Retry-After.', {
    detail: 'The change could not be saved; storage is unavailable. Try again later.',
  }),
} as const
export type ErrorStatus = keyof typeof ERRORS

/** The errors any write can meet, besides its own. */
export const WRITE_ERRORS: readonly ErrorStatus[] = [400, 401, 403, 404, 405, 413, 415, 503]

export const SECURED: Record<string, string[]>[] = [{ bearer: [] }]
export const OPTIONALLY_SECURED: Record<string, string[]>[] = [{}, { bearer: [] }]

export interface Parameter {
  readonly name: string
  readonly in: 'query' | 'path'
  readonly description: string
  readonly schema: TSchema
  readonly required?: boolean
}

export const query = (name: string, description: string, schema: TSchema): Parameter => ({
  name,
  in: 'query',
  description,
  schema,
})

/** Every path parameter the API uses, described once; an endpoint's come from its path. */
export const PATH_PARAMETERS: Record<string, Parameter> = {
  code: {
    name: 'code',
    in: 'path',
    required: true,
    description: 'The club code, e.g. penn-chess-society.',
    schema: t.String({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' }),
  },
  username: { name: 'username', in: 'path', required: true, description: 'A username.', schema: t.String() },
  id: { name: 'id', in: 'path', required: true, description: 'The tag id.', schema: Type.Integer({ minimum: 1 }) },
}

export const FORMAT = query(
  'format',
  '"json" (default) or "api" for the browsable HTML view.',
  t.Union([t.Literal('json'), t.Literal('api')]),
)
export const FIELDS = query('fields', 'Comma-separated fields to keep in each club, e.g. code,name.', t.String())

/** The labels of coded values as one line: "1 = 1-20, 2 = 21-50, ...". */
export const labels = (codes: Record<number, string>) =>
  Object.entries(codes)
    .map(([value, label]) => `${value} = ${label}`)
    .join(', ')
