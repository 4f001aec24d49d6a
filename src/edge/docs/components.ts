import { t, type TSchema } from 'elysia'
// Elysia's t.Integer documents "an integer or a numeric string"; answers hold integers only.
import { Type, type SchemaOptions, type Static } from '@sinclair/typebox'
import { ClubDetail, ClubListItem } from '../../model/club'
import { TagWithCount } from '../../model/tag'
import { ChangeEvent } from '../../model/change'

// The named parts of the OpenAPI document: schemas that many answers share, and every response
// header, each said once and referenced wherever it is sent.

const pageOf = (items: TSchema, description: string) =>
  t.Object(
    {
      count: Type.Integer({ minimum: 0, description: 'How many clubs match, over every page.' }),
      next: t.Union([t.String({ format: 'uri' }), t.Null()], { description: 'The next page, or null on the last.' }),
      previous: t.Union([t.String({ format: 'uri' }), t.Null()], {
        description: 'The previous page, or null on the first.',
      }),
      results: t.Array(items),
    },
    { additionalProperties: false, description },
  )

/**
 * An object of any keys whose values are `values`: said with additionalProperties, which generators
 * make a map of, not the patternProperties t.Record writes.
 */
export function mapOf<T extends TSchema>(values: T, options: SchemaOptions = {}) {
  return Type.Unsafe<Record<string, Static<T>>>({ ...options, type: 'object', additionalProperties: values })
}

export type SchemaName =
  | 'Error'
  | 'ValidationErrors'
  | 'ClubListItem'
  | 'ClubDetail'
  | 'ClubPage'
  | 'Tag'
  | 'ChangeEvent'
  | 'ChangePage'
  | 'BrowsableView'

export const SCHEMAS: Record<SchemaName, TSchema> = {
  Error: t.Object(
    { detail: t.String() },
    { additionalProperties: false, description: 'An error not tied to a field.' },
  ),
  ValidationErrors: mapOf(Type.Array(Type.String(), { minItems: 1 }), {
    minProperties: 1,
    description: 'Each failing field with its messages; errors not tied to a field under non_field_errors.',
    examples: [{ size: ['"9" is not a valid choice.'] }],
  }),
  ClubListItem: t.Object(ClubListItem.properties, {
    additionalProperties: false,
    description: 'A club in a list: the 23 list fields.',
  }),
  ClubDetail: t.Object(ClubDetail.properties, { additionalProperties: false, description: 'A club: every field.' }),
  ClubPage: pageOf(schemaRef('ClubListItem'), 'A page of clubs (?page=).'),
  Tag: TagWithCount,
  ChangeEvent: t.Object(
    {
      ...ChangeEvent.properties,
      club: t.Union([schemaRef('ClubDetail'), t.Null()], {
        description: 'The club as an anonymous caller sees it after the change; null for club.removed.',
      }),
    },
    {
      additionalProperties: false,
      description:
        'A change to what the public sees: club.added (approved, or active again), club.changed (its public detail changed, counts and tag names included), club.removed (deleted, revoked or made inactive).',
    },
  ),
  ChangePage: t.Object(
    {
      results: t.Array(schemaRef('ChangeEvent')),
      last_seq: Type.Integer({ minimum: 0, description: 'The newest change number.' }),
    },
    { additionalProperties: false, description: 'Changes after since, oldest first.' },
  ),
  BrowsableView: t.String({
    description:
      "The browsable view (?format=api, or an Accept header preferring text/html): this same answer as an HTML page, with its status, headers and body, links, and a form to send requests. Listed under an answer's x-other-media, not its content, so that generated clients type the JSON.",
  }),
}

/** `{"$ref": "#/components/schemas/<name>"}`, as a schema. */
export function schemaRef(name: SchemaName): TSchema {
  return Type.Unsafe({ $ref: `#/components/schemas/${name}` })
}

const header = (description: string, schema: TSchema, required = false) => ({ description, required, schema })

export const HEADERS = {
  'X-Request-Id': header(
    "The request's own X-Request-Id (1-128 visible characters), or a new one; the access log names it.",
    t.String({ examples: ['4f1c2d9e-7a53-4c1b-9e8f-2b6d0a4c8e11'] }),
    true,
  ),
  Allow: header(
    'The methods this path serves (HEAD and OPTIONS are answered too, without being listed).',
    t.String({ examples: ['GET, POST'] }),
    true,
  ),
  ETag: header(
    'On a GET answered with JSON or a spreadsheet: send it back in If-None-Match for a 304 while nothing changed.',
    t.String({ examples: ['W/"3fd48u5nzlkw2"'] }),
  ),
  Location: header(
    'The absolute URL of what was created.',
    t.String({ format: 'uri', examples: ['http://localhost:3000/api/clubs/go-club/'] }),
    true,
  ),
  'X-Total-Count': header('How many clubs match, before paging.', Type.Integer({ minimum: 0, examples: [71] }), true),
  'X-Changes-Seq': header(
    'The newest change number this answer reflects: follow GET /api/changes/?since= from it to miss nothing.',
    Type.Integer({ minimum: 0, examples: [41] }),
    true,
  ),
  Link: header(
    'On a page: the absolute URLs of the first, prev, next and last pages, as they exist (RFC 8288).',
    t.String({
      examples: [
        '<http://localhost:3000/api/clubs/?page=1>; rel="first", <http://localhost:3000/api/clubs/?page=2>; rel="next", <http://localhost:3000/api/clubs/?page=5>; rel="last"',
      ],
    }),
  ),
  'Content-Disposition': header(
    'On a spreadsheet: an attachment, with its file name.',
    t.String({ examples: ['attachment; filename="clubs.csv"'] }),
  ),
  'WWW-Authenticate': header('The scheme to authenticate with.', t.String({ examples: ['Bearer realm="api"'] }), true),
  'Retry-After': header('Seconds to wait before trying again.', Type.Integer({ minimum: 0, examples: [5] }), true),
} satisfies Record<string, ReturnType<typeof header>>

export type HeaderName = keyof typeof HEADERS

/** `{"$ref": "#/components/headers/<name>"}` for each name, as a response's headers. */
export function headerRefs(...names: HeaderName[]): Record<string, { $ref: string }> {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]))
}
