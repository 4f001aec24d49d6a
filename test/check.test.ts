// The checks of write bodies (src/domain/check.ts): TypeBox schemas compiled once, their errors
// turned into the reference's {field: [messages]} (docs/reference.md §3, §8). Each row is a JSON body, what
// checks it, and exactly the errors it must give (none is `{}`), and, where it says, exactly the
// fields that pass.
import { describe, expect, test } from 'bun:test'
import { Type } from '@sinclair/typebox'
import { BodyCheck, checkClubBody, type ClubMode } from '../src/domain/check'
import { MEMBER_BODY } from '../src/domain/members'
import { SAVED_CLUB_BODY } from '../src/domain/saved-clubs'
import { USER_BODY } from '../src/domain/users'
import { PUT_REQUIRED_FIELDS } from '../harness/contract'
import { CLUB_DEFAULTS } from '../src/model/club'

const TODAY = '2026-11-23'
const SMALL = { member: MEMBER_BODY, saved: SAVED_CLUB_BODY, user: USER_BODY }
type Checker = ClubMode | keyof typeof SMALL

interface Row {
  readonly name: string
  readonly check: Checker
  /** The body as a JSON value; or `raw`, JSON text as a client sends it (for "__proto__" keys). */
  readonly body?: unknown
  readonly raw?: string
  readonly errors: Record<string, string[]>
  readonly fields?: Record<string, unknown>
}

const long = (n: number) => 'x'.repeat(n)
const URL_MESSAGE = 'Enter a valid URL (http or https).'
const WRONG_DATE = 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'
const UNREAL_DATE = 'Date is not a real calendar date.'
const NOT_NULL = 'This field may not be null.'
const REQUIRED = 'This field is required.'
/** Every writable field but code, each with a good value: a PUT body. */
const FULL = { name: 'Go Club', ...CLUB_DEFAULTS }
const A = { name: 'Go Club' }

const rows: Row[] = [
  // Each kind of schema error, and its message.
  { name: 'string: wrong type', check: 'create', body: { name: 42 }, errors: { name: ['Not a valid string.'] } },
  { name: 'string: null', check: 'create', body: { name: null }, errors: { name: [NOT_NULL] } },
  {
    name: 'minLength: blank after trimming',
    check: 'create',
    body: { name: '  ' },
    errors: { name: ['This field may not be blank.'] },
  },
  {
    name: 'maxLength',
    check: 'create',
    body: { name: long(256) },
    errors: { name: ['Ensure this field has no more than 255 characters.'] },
  },
  {
    name: 'pattern: the code pattern',
    check: 'create',
    body: { ...A, code: 'Paper_Folders' },
    errors: { code: ['Enter a valid value: lowercase letters, digits and single hyphens.'] },
  },
  {
    name: 'pattern and maxLength: only the first message',
    check: 'create',
    body: { ...A, code: `-${'a'.repeat(100)}` },
    errors: { code: ['Ensure this field has no more than 100 characters.'] },
  },
  {
    name: 'boolean: wrong type',
    check: 'patch',
    body: { active: 1 },
    errors: { active: ['Must be a valid boolean.'] },
  },
  { name: 'boolean: null', check: 'patch', body: { email_public: null }, errors: { email_public: [NOT_NULL] } },
  {
    name: 'integer: a fraction',
    check: 'patch',
    body: { size: 2.5 },
    errors: { size: ['A valid integer is required.'] },
  },
  { name: 'integer: null', check: 'patch', body: { size: null }, errors: { size: [NOT_NULL] } },
  { name: 'coded integer: below', check: 'patch', body: { size: 0 }, errors: { size: ['"0" is not a valid choice.'] } },
  {
    name: 'coded integer: above',
    check: 'patch',
    body: { application_required: 6, recruiting_cycle: 6 },
    errors: { application_required: ['"6" is not a valid choice.'], recruiting_cycle: ['"6" is not a valid choice.'] },
  },
  {
    name: 'array: wrong type',
    check: 'patch',
    body: { tags: 'Academic' },
    errors: { tags: ['Expected a list of items but got type "string".'] },
  },
  {
    name: 'array: an object',
    check: 'patch',
    body: { tags: { id: 1 } },
    errors: { tags: ['Expected a list of items but got type "object".'] },
  },
  { name: 'array: null', check: 'patch', body: { tags: null }, errors: { tags: [NOT_NULL] } },
  {
    name: 'array: maxItems',
    check: 'patch',
    body: { tags: Array.from({ length: 21 }, (_, i) => ({ id: i + 1 })) },
    errors: { tags: ['Ensure this field has no more than 20 elements.'] },
  },
  {
    name: 'array: bad tag references are the service’s to name, not the schema’s',
    check: 'patch',
    body: { tags: [3, {}, { id: 'x' }, null] },
    errors: {},
    fields: { tags: [3, {}, { id: 'x' }, null] },
  },
  { name: 'unknown field', check: 'patch', body: { colour: 'red' }, errors: { colour: ['Unknown field.'] } },
  {
    name: 'body: a list',
    check: 'create',
    body: [A],
    errors: { non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] },
  },
  {
    name: 'body: null',
    check: 'replace',
    body: null,
    errors: { non_field_errors: ['Invalid data. Expected a dictionary, but got null.'] },
  },
  {
    name: 'body: a string',
    check: 'patch',
    body: 'Go Club',
    errors: { non_field_errors: ['Invalid data. Expected a dictionary, but got string.'] },
  },
  {
    name: 'body: a number',
    check: 'create',
    body: 42,
    errors: { non_field_errors: ['Invalid data. Expected a dictionary, but got number.'] },
  },

  // No coercion (docs/reference.md §3.2).
  {
    name: 'no coercion: "3" is not a size',
    check: 'patch',
    body: { size: '3' },
    errors: { size: ['A valid integer is required.'] },
  },
  {
    name: 'no coercion: "true" is not a boolean',
    check: 'patch',
    body: { accepting_members: 'true', approved: 'true' },
    errors: { accepting_members: ['Must be a valid boolean.'], approved: ['Must be a valid boolean.'] },
  },
  {
    name: 'no coercion: 3 is not a string',
    check: 'patch',
    body: { subtitle: 3 },
    errors: { subtitle: ['Not a valid string.'] },
  },

  // Nullable fields: Union([X, Null]) reports what is wrong with X.
  {
    name: 'nullable: null is a value',
    check: 'patch',
    body: { founded: null, website: null, image_url: null },
    errors: {},
    fields: { founded: null, website: null, image_url: null },
  },
  {
    name: 'nullable: a number is not a URL',
    check: 'patch',
    body: { website: 5 },
    errors: { website: ['Not a valid string.'] },
  },
  {
    name: 'nullable: a number is not a date',
    check: 'patch',
    body: { founded: 19990101 },
    errors: { founded: ['Not a valid string.'] },
  },
  {
    name: 'nullable: maxLength inside',
    check: 'patch',
    body: { image_url: `https://example.com/${long(2029)}` },
    errors: { image_url: ['Ensure this field has no more than 2048 characters.'] },
  },

  // Formats.
  {
    name: 'uri: javascript:',
    check: 'patch',
    body: { image_url: 'javascript:alert(1)' },
    errors: { image_url: [URL_MESSAGE] },
  },
  { name: 'uri: ftp', check: 'patch', body: { website: 'ftp://x/y' }, errors: { website: [URL_MESSAGE] } },
  { name: 'uri: no scheme', check: 'patch', body: { github: 'github.com/x' }, errors: { github: [URL_MESSAGE] } },
  {
    name: 'uri: whitespace',
    check: 'patch',
    body: { twitter: 'https://exa mple.com/' },
    errors: { twitter: [URL_MESSAGE] },
  },
  { name: 'uri: no host', check: 'patch', body: { youtube: 'https://' }, errors: { youtube: [URL_MESSAGE] } },
  {
    name: 'uri: http and https pass',
    check: 'patch',
    body: { website: 'http://example.com/club', youtube: 'https://youtube.com/@club' },
    errors: {},
    fields: { website: 'http://example.com/club', youtube: 'https://youtube.com/@club' },
  },
  { name: 'date: wrong format', check: 'patch', body: { founded: '1999-1-1' }, errors: { founded: [WRONG_DATE] } },
  {
    name: 'date: a date-time',
    check: 'patch',
    body: { founded: '1999-01-01T00:00:00Z' },
    errors: { founded: [WRONG_DATE] },
  },
  { name: 'date: not a real day', check: 'patch', body: { founded: '2026-02-30' }, errors: { founded: [UNREAL_DATE] } },
  { name: 'date: no year 0', check: 'patch', body: { founded: '0000-01-01' }, errors: { founded: [UNREAL_DATE] } },
  { name: 'date: month 13', check: 'patch', body: { founded: '1999-13-01' }, errors: { founded: [UNREAL_DATE] } },
  {
    name: 'date: a leap day, and today',
    check: 'patch',
    body: { founded: '2024-02-29' },
    errors: {},
    fields: { founded: '2024-02-29' },
  },
  { name: 'date: today passes', check: 'patch', body: { founded: TODAY }, errors: {}, fields: { founded: TODAY } },
  {
    name: 'date: tomorrow is in the future',
    check: 'patch',
    body: { founded: '2026-11-24' },
    errors: { founded: ['Date may not be in the future.'] },
    fields: {},
  },
  {
    name: 'email: not an address',
    check: 'patch',
    body: { email: 'not-an-email' },
    errors: { email: ['Enter a valid email address.'] },
  },
  { name: 'email: empty passes', check: 'patch', body: { email: '' }, errors: {}, fields: { email: '' } },
  { name: 'email: a number', check: 'patch', body: { email: 5 }, errors: { email: ['Not a valid string.'] } },
  { name: 'email: null', check: 'patch', body: { email: null }, errors: { email: [NOT_NULL] } },
  {
    name: 'email: maxLength before the address',
    check: 'patch',
    body: { email: `${'a'.repeat(243)}@example.com` },
    errors: { email: ['Ensure this field has no more than 254 characters.'] },
  },

  // Unknown keys, one entry each, whatever they are called.
  {
    name: '__proto__ is an unknown field, and smuggles nothing',
    check: 'create',
    raw: '{"name": "Go Club", "__proto__": {"approved": true, "code": "UPPER CASE"}}',
    errors: JSON.parse('{"__proto__": ["Unknown field."]}'),
    fields: { name: 'Go Club' },
  },
  {
    name: '__proto__ alone: unknown, and the name is still required',
    check: 'create',
    raw: '{"__proto__": {"name": 5}}',
    errors: JSON.parse(`{"__proto__": ["Unknown field."], "name": ["${REQUIRED}"]}`),
  },
  {
    name: 'names of Object.prototype members are unknown fields',
    check: 'patch',
    body: { toString: 'x', constructor: 1, hasOwnProperty: null },
    errors: { toString: ['Unknown field.'], constructor: ['Unknown field.'], hasOwnProperty: ['Unknown field.'] },
  },
  {
    name: 'keys with "/" and "~" are named as sent',
    check: 'patch',
    body: { 'a/b': 1, '~0': 2, '': 3 },
    errors: { 'a/b': ['Unknown field.'], '~0': ['Unknown field.'], '': ['Unknown field.'] },
  },

  // Read-only fields are dropped silently; name is trimmed.
  {
    name: 'read-only fields dropped, whatever their values',
    check: 'patch',
    body: {
      favorite_count: 'many',
      membership_count: -1,
      is_favorite: null,
      is_member: 'yes',
      is_subscribe: 1,
      approved_by: 5,
      approved_on: [],
      created_at: {},
      updated_at: 'now',
    },
    errors: {},
    fields: {},
  },
  { name: 'name trimmed', check: 'create', body: { name: '  Go Club \n' }, errors: {}, fields: { name: 'Go Club' } },

  // Every error at once.
  {
    name: 'every bad field in one answer',
    check: 'create',
    body: {
      name: '',
      code: 'Bad Code',
      size: 9,
      founded: '2999-01-01',
      image_url: 'javascript:alert(1)',
      email_public: 'no',
      tags: 'x',
      colour: 'red',
      subtitle: 'fine',
    },
    errors: {
      name: ['This field may not be blank.'],
      code: ['Enter a valid value: lowercase letters, digits and single hyphens.'],
      size: ['"9" is not a valid choice.'],
      founded: ['Date may not be in the future.'],
      image_url: [URL_MESSAGE],
      email_public: ['Must be a valid boolean.'],
      tags: ['Expected a list of items but got type "string".'],
      colour: ['Unknown field.'],
    },
    fields: { subtitle: 'fine' },
  },

  // What each mode requires; no defaults are filled in.
  {
    name: 'create: name required',
    check: 'create',
    body: { size: 2 },
    errors: { name: [REQUIRED] },
    fields: { size: 2 },
  },
  {
    name: 'create: just a name, nothing filled in',
    check: 'create',
    body: A,
    errors: {},
    fields: A,
  },
  {
    name: 'replace: each missing writable field but code, once',
    check: 'replace',
    body: { ...A, colour: 'red' },
    errors: {
      ...Object.fromEntries(PUT_REQUIRED_FIELDS.filter((f) => f !== 'name').map((f) => [f, [REQUIRED]])),
      colour: ['Unknown field.'],
    },
    fields: A,
  },
  {
    name: 'replace: a present but bad field is not "missing"',
    check: 'replace',
    body: { ...FULL, size: '1' },
    errors: { size: ['A valid integer is required.'] },
  },
  {
    name: 'replace: every writable field, no code, no approval',
    check: 'replace',
    body: FULL,
    errors: {},
    fields: FULL,
  },
  { name: 'patch: nothing', check: 'patch', body: {}, errors: {}, fields: {} },
  { name: 'patch: one field, nothing filled in', check: 'patch', body: { size: 2 }, errors: {}, fields: { size: 2 } },
  {
    name: 'patch: approval fields, checked like the rest',
    check: 'patch',
    body: { approved: false, approved_comment: long(1001) },
    errors: { approved_comment: ['Ensure this field has no more than 1000 characters.'] },
    fields: { approved: false },
  },

  // Small bodies, with their services' words.
  {
    name: 'member: not an object',
    check: 'member',
    body: ['alice'],
    errors: { non_field_errors: ['Send an object: {"username": "...", "role": "member"}.'] },
  },
  {
    name: 'member: missing username, bad role, unknown field',
    check: 'member',
    body: { role: 'boss', colour: 1 },
    errors: {
      username: ['Enter a valid username.'],
      role: ['Choose one of owner, officer, member.'],
      colour: ['Unknown field.'],
    },
  },
  {
    name: 'member: username not matching, role null',
    check: 'member',
    body: { username: 'Alice!', role: null },
    errors: { username: ['Enter a valid username.'], role: ['Choose one of owner, officer, member.'] },
  },
  {
    name: 'member: role optional',
    check: 'member',
    body: { username: 'alice' },
    errors: {},
    fields: { username: 'alice' },
  },
  {
    name: 'saved club: not an object',
    check: 'saved',
    body: 'go-club',
    errors: { non_field_errors: ['Send an object: {"club": "<code>"}.'] },
  },
  {
    name: 'saved club: missing',
    check: 'saved',
    raw: '{"__proto__": "go-club"}',
    errors: JSON.parse(
      '{"club": ["Name a club by its code: {\\"club\\": \\"<code>\\"}."], "__proto__": ["Unknown field."]}',
    ),
  },
  {
    name: 'saved club: not a string',
    check: 'saved',
    body: { club: 7 },
    errors: { club: ['Name a club by its code: {"club": "<code>"}.'] },
  },
  { name: 'saved club: a code', check: 'saved', body: { club: 'go-club' }, errors: {}, fields: { club: 'go-club' } },
  {
    name: 'user: not an object',
    check: 'user',
    body: null,
    errors: { non_field_errors: ['Send an object: {"username": "...", "is_admin": false}.'] },
  },
  {
    name: 'user: missing username, is_admin null',
    check: 'user',
    body: { is_admin: null },
    errors: { username: [REQUIRED], is_admin: ['Must be a valid boolean.'] },
  },
  {
    name: 'user: a bad username, is_admin "true"',
    check: 'user',
    body: { username: '-alice', is_admin: 'true' },
    errors: {
      username: ['Use 1 to 64 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit.'],
      is_admin: ['Must be a valid boolean.'],
    },
  },
  {
    name: 'user: username and is_admin',
    check: 'user',
    body: { username: 'alice', is_admin: true },
    errors: {},
    fields: { username: 'alice', is_admin: true },
  },
]

/** Own entries, sorted: compares null-prototype objects and "__proto__" keys exactly. */
const entriesOf = (value: object) => Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))

function run(row: Row) {
  const body = row.raw !== undefined ? JSON.parse(row.raw) : JSON.parse(JSON.stringify(row.body))
  if (row.check in SMALL) return SMALL[row.check as keyof typeof SMALL].check(body)
  return checkClubBody(body, row.check as ClubMode, TODAY)
}

describe('checking write bodies', () => {
  test.each(rows)('$check: $name', (row) => {
    const { fields, errors } = run(row)
    expect(entriesOf(errors)).toEqual(entriesOf(row.errors))
    if (row.fields) expect(entriesOf(fields)).toEqual(entriesOf(row.fields))
  })

  test('every row checks something: each names errors, or fields that pass', () => {
    for (const row of rows) expect(Object.keys(row.errors).length > 0 || row.fields !== undefined).toBe(true)
  })
})

describe('the message table on schemas the services do not use (yet)', () => {
  const check = new BodyCheck(
    Type.Object(
      {
        // Null first: the message still comes from the variant that is not null.
        nullFirst: Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength: 2 })])),
        choice: Type.Optional(Type.Union([Type.Literal('a'), Type.Literal('b')])),
        longer: Type.Optional(Type.String({ minLength: 3 })),
      },
      { additionalProperties: false },
    ),
  )
  const rows: { body: Record<string, unknown>; errors: Record<string, string[]> }[] = [
    { body: { nullFirst: null }, errors: {} },
    { body: { nullFirst: 'abc' }, errors: { nullFirst: ['Ensure this field has no more than 2 characters.'] } },
    { body: { nullFirst: 5 }, errors: { nullFirst: ['Not a valid string.'] } },
    { body: { choice: 'c' }, errors: { choice: ['"c" is not a valid choice.'] } },
    { body: { choice: null }, errors: { choice: [NOT_NULL] } },
    { body: { longer: 'ab' }, errors: { longer: ['Ensure this field has at least 3 characters.'] } },
  ]
  test.each(rows)('$body', ({ body, errors }) => {
    expect(entriesOf(check.check(body).errors)).toEqual(entriesOf(errors))
  })
})
