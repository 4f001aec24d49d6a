import { t, type TSchema } from 'elysia'
// Elysia's t.Integer documents "an integer or a numeric string"; answers hold integers only.
import { Type } from '@sinclair/typebox'
import { ClubCreate, ClubDetail, ClubListItem, ClubPatch, ClubReplace, ClubWrite, Tag } from '../clubs/model'
import {
  BOOLEAN_FILTERS,
  CODED_FILTERS,
  DEFAULT_ORDERING,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  ORDERING_FIELDS,
} from '../clubs/query'
import { ROLES, UserCreate, USERNAME_PATTERN } from '../users/model'

// The OpenAPI description of each operation, built from the same TypeBox schemas and
// constants the code validates with, so the document cannot say one thing while the code
// does another. Routes attach these as Elysia's `detail`.

const json = (schema: TSchema, description: string, example?: unknown) => ({
  description,
  content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
})

const Detail = t.Object({ detail: t.String() }, { title: 'Error' })
const FieldErrors = t.Record(t.String(), t.Array(t.String()), {
  title: 'ValidationErrors',
  description: 'Each failing field with its messages; errors not tied to a field under non_field_errors.',
})
const ERRORS = {
  400: json(FieldErrors, 'Invalid input: a field-by-field list, or {"detail"} for malformed JSON.', {
    size: ['"9" is not a valid choice.'],
  }),
  401: json(Detail, 'No or wrong credentials. Carries WWW-Authenticate: Bearer.', { detail: 'Invalid token.' }),
  403: json(Detail, 'Known caller, not allowed.', { detail: 'You do not have permission to perform this action.' }),
  404: json(Detail, 'No such resource, or not visible to the caller.', { detail: 'Not found.' }),
  405: json(Detail, 'Method not allowed (or the directory is read-only). Carries Allow.', {
    detail: 'Method "PATCH" not allowed.',
  }),
  413: json(Detail, 'Body over 1 MiB.', { detail: 'Request body is larger than 1048576 bytes.' }),
  415: json(Detail, 'Body not application/json.', { detail: 'Unsupported media type "text/plain" in request.' }),
  503: json(Detail, 'The change could not be saved; nothing was changed. Carries Retry-After.', {
    detail: 'The change could not be saved; storage is unavailable. Try again later.',
  }),
} as const
type ErrorStatus = keyof typeof ERRORS
const errors = (...statuses: ErrorStatus[]) => Object.fromEntries(statuses.map((s) => [s, ERRORS[s]]))
const WRITE_ERRORS: ErrorStatus[] = [400, 401, 403, 404, 405, 413, 415, 503]

const SECURED = [{ bearer: [] }]
const OPTIONALLY_SECURED = [{}, { bearer: [] }]

const query = (name: string, description: string, schema: TSchema) => ({ name, in: 'query', description, schema })
const path = (name: string, description: string, schema: TSchema = t.String()) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema,
})
const CODE = path('code', 'The club code, e.g. penn-chess-society.', t.String({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' }))
const FORMAT = query('format', '"json" (default) or "api" for the browsable HTML view.', t.Union([t.Literal('json'), t.Literal('api')]))
const FIELDS = query('fields', 'Comma-separated fields to keep in each club, e.g. code,name.', t.String())

const labels = (codes: Record<number, string>) =>
  Object.entries(codes)
    .map(([value, label]) => `${value} = ${label}`)
    .join(', ')

const LIST_PARAMETERS = [
  query(
    'ordering',
    `Comma-separated fields, "-" for descending: ${ORDERING_FIELDS.join(', ')}. Default ${DEFAULT_ORDERING}; ties are broken by code.`,
    t.String({ examples: ['-favorite_count', 'name', 'size,-name'] }),
  ),
  query('search', 'Whitespace-separated terms; each must match the name, subtitle, code or a tag name (case and accents ignored).', t.String()),
  query('tags', 'Tag ids or names, comma-separated; a club must carry all of them.', t.String({ examples: ['Games,Social'] })),
  ...BOOLEAN_FILTERS.map((name) =>
    query(
      name,
      name === 'approved' || name === 'active'
        ? `true or false. Others than admins (and a club's officers) only ever see approved, active clubs; admins find the approval queue with approved=false.`
        : 'true or false.',
      t.Union([t.Literal('true'), t.Literal('false')]),
    ),
  ),
  ...Object.entries(CODED_FILTERS).map(([name, codes]) =>
    query(name, `One value or several, comma-separated: ${labels(codes)}.`, t.String({ pattern: '^[1-5](,[1-5])*$' })),
  ),
  query('page', 'Ask for a page (1-based): the answer becomes {count, next, previous, results}. Without it, a bare array.', Type.Integer({ minimum: 1 })),
  query('page_size', `Clubs per page, default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}.`, Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE })),
  FIELDS,
  FORMAT,
]

const Page = t.Object(
  {
    count: Type.Integer(),
    next: t.Union([t.String({ format: 'uri' }), t.Null()]),
    previous: t.Union([t.String({ format: 'uri' }), t.Null()]),
    results: t.Array(ClubListItem),
  },
  { title: 'ClubPage' },
)
const Member = t.Object({ username: t.String({ pattern: USERNAME_PATTERN }), role: t.Union(ROLES.map((r) => t.Literal(r))) })
const Link = t.Object({ club: ClubListItem })
const LinkCreate = t.Object({ club: t.String({ description: 'The club code.' }) }, { additionalProperties: false })
const User = t.Object({ username: t.String(), is_admin: t.Boolean() })

const body = (schema: TSchema, example: unknown) => ({
  required: true,
  content: { 'application/json': { schema, example } },
})
const CLUB_EXAMPLE = { name: 'Go Club', subtitle: 'Stones on a grid', size: 1, tags: [{ name: 'Games' }] }
/** Every writable field, at its default unless the short example sets it. */
const FULL_EXAMPLE = {
  ...Object.fromEntries(
    Object.entries(ClubWrite.properties)
      .filter(([field]) => field !== 'code')
      .map(([field, schema]) => [field, schema.default]),
  ),
  ...CLUB_EXAMPLE,
}

export const OPERATIONS = {
  listClubs: {
    tags: ['clubs'],
    summary: 'List clubs',
    description:
      'Clubs with partial information (the 23 list fields). Anonymous answers are served from a cache per data version.',
    parameters: LIST_PARAMETERS,
    security: OPTIONALLY_SECURED,
    responses: {
      200: json(t.Union([t.Array(ClubListItem), Page]), 'A bare array, or a page when ?page= is given.'),
      304: { description: 'Not modified (If-None-Match matched the ETag).' },
      ...errors(400, 401, 404),
    },
  },
  createClub: {
    tags: ['clubs'],
    summary: 'Create a club',
    description:
      'Only name is required; code is derived from it when absent. The club starts pending approval (unless CLUBS_AUTO_APPROVE), and its creator becomes its owner.',
    requestBody: body(ClubCreate, CLUB_EXAMPLE),
    security: SECURED,
    responses: { 201: json(ClubDetail, 'The new club; Location names it.'), ...errors(...WRITE_ERRORS) },
  },
  retrieveClub: {
    tags: ['clubs'],
    summary: 'Retrieve a club',
    description: 'Every field of one club. Clubs the caller may not see are 404.',
    parameters: [CODE, FIELDS, FORMAT],
    security: OPTIONALLY_SECURED,
    responses: { 200: json(ClubDetail, 'The club.'), 304: { description: 'Not modified.' }, ...errors(400, 401, 404) },
  },
  updateClub: {
    tags: ['clubs'],
    summary: 'Replace every writable field of a club',
    description:
      'Every writable field is required; read-only fields sent back are ignored; nothing changes unless all are valid. Owners, officers and admins.',
    parameters: [CODE],
    requestBody: body(ClubReplace, FULL_EXAMPLE),
    security: SECURED,
    responses: { 200: json(ClubDetail, 'The updated club.'), ...errors(...WRITE_ERRORS) },
  },
  partialUpdateClub: {
    tags: ['clubs'],
    summary: 'Change some fields of a club',
    description:
      'Only the fields sent change. Admins approve or reject with {"approved": true|false, "approved_comment": "..."}. A non-admin change of name, subtitle, description or image_url sends an approved club back to pending.',
    parameters: [CODE],
    requestBody: body(ClubPatch, { accepting_members: true }),
    security: SECURED,
    responses: { 200: json(ClubDetail, 'The updated club.'), ...errors(...WRITE_ERRORS) },
  },
  destroyClub: {
    tags: ['clubs'],
    summary: 'Delete (archive) a club',
    description:
      'The club disappears from every endpoint but is archived in the data file and its code stays reserved. Setting active to false is the gentler choice. Owners and admins.',
    parameters: [CODE],
    security: SECURED,
    responses: { 204: { description: 'Deleted.' }, ...errors(401, 403, 404, 405, 503) },
  },
  listMembers: {
    tags: ['members'],
    summary: "List a club's members",
    parameters: [CODE],
    security: SECURED,
    responses: { 200: json(t.Array(Member), 'Owners first, then officers, then members.'), ...errors(401, 403, 404) },
  },
  addMember: {
    tags: ['members'],
    summary: 'Add a member, or change their role',
    description: 'Only owners and admins may add or change owners.',
    parameters: [CODE],
    requestBody: body(Member, { username: 'alice', role: 'officer' }),
    security: SECURED,
    responses: {
      200: json(Member, 'The role of an existing member changed.'),
      201: json(Member, 'Added.'),
      ...errors(...WRITE_ERRORS),
    },
  },
  removeMember: {
    tags: ['members'],
    summary: 'Remove a member',
    description: 'Owners and admins remove anyone; anyone may leave. A club keeps at least one owner (400).',
    parameters: [CODE, path('username', 'The member.')],
    security: SECURED,
    responses: { 204: { description: 'Removed.' }, ...errors(400, 401, 403, 404, 405, 503) },
  },
  listTags: {
    tags: ['tags'],
    summary: 'List tags',
    parameters: [FORMAT],
    security: [],
    responses: { 200: json(t.Array(t.Object({ ...Tag.properties, clubs: Type.Integer() })), 'Every tag with its number of visible clubs.'), ...errors(404) },
  },
  favorites: linkOperations('favorites', 'favorite'),
  subscriptions: linkOperations('subscriptions', 'subscription'),
  createUser: {
    tags: ['users'],
    summary: 'Issue a user and their token (admins)',
    requestBody: body(UserCreate, { username: 'alice', is_admin: false }),
    security: SECURED,
    responses: {
      201: json(t.Object({ ...User.properties, token: t.String() }), 'The token is shown this once.'),
      ...errors(400, 401, 403, 405, 413, 415, 503),
    },
  },
  me: {
    tags: ['users'],
    summary: 'Who your token says you are',
    security: SECURED,
    responses: { 200: json(User, 'The caller.'), ...errors(401) },
  },
  health: {
    tags: ['operations'],
    summary: 'Health check',
    security: [],
    responses: { 200: json(t.Object({ status: t.Literal('ok'), clubs: Type.Integer(), version: Type.Integer() }), 'Loaded and serving.') },
  },
}

function linkOperations(plural: 'favorites' | 'subscriptions', noun: string) {
  return {
    list: {
      tags: [plural],
      summary: `Your ${plural}`,
      security: SECURED,
      responses: { 200: json(t.Array(Link), `Your ${plural}, by club code.`), ...errors(401) },
    },
    add: {
      tags: [plural],
      summary: `Add a ${noun}`,
      requestBody: body(LinkCreate, { club: 'penn-chess-society' }),
      security: SECURED,
      responses: { 201: json(Link, 'Added.'), ...errors(400, 401, 405, 413, 415, 503) },
    },
    remove: {
      tags: [plural],
      summary: `Remove a ${noun}`,
      parameters: [CODE],
      security: SECURED,
      responses: { 204: { description: 'Removed.' }, ...errors(401, 404, 405, 503) },
    },
  }
}
