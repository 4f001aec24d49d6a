// Property-based fuzzing of the whole service through `app.handle` (in memory), shared by
// test/fuzz.test.ts (bounded for CI) and scripts/fuzz.ts (long runs). Requests are built from
// arbitraries for every part of HTTP the service reads; the properties are docs/reference.md §8's
// (never a 5xx, error bodies in one of two shapes, JSON that parses) and, after random
// sequences of admin writes, the list invariants of docs/reference.md §2, §5 and §6.
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { hasEventHandler } from './html-checks'
import { fold, LIST_FIELDS, LIST_PARAMS, ORDERING_FIELDS, READ_ONLY_FIELDS, WRITABLE_FIELDS } from './contract'
import { ADMIN_TOKEN, makeApp, NOW, SEED_FILE } from './app'

// ---------------------------------------------------------------------------------------------
// Vocabulary
// ---------------------------------------------------------------------------------------------

const SEED = JSON.parse(readFileSync(SEED_FILE, 'utf8')) as {
  clubs: { code: string; name: string }[]
  tags: { id: number; name: string }[]
}
export const SEED_CODES = SEED.clubs.map((c) => c.code)
const TAG_NAMES = SEED.tags.map((t) => t.name)
const TAG_IDS = SEED.tags.map((t) => t.id)

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const

const BOOLEAN_PARAMS = LIST_PARAMS.slice(LIST_PARAMS.indexOf('accepting_members'), LIST_PARAMS.indexOf('active') + 1)
const CODED_PARAMS = ['size', 'application_required', 'recruiting_cycle']

/** Every field a write body may carry: the writable ones, code, and the admin's approval fields. */
const CLUB_FIELDS = [...WRITABLE_FIELDS, 'code', 'approved', 'approved_comment']

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

/** Printable ASCII and Latin-1 (what a header value may hold), any length up to `max`. */
const headerText = (max = 40) =>
  fc.string({
    unit: fc
      .oneof(
        { weight: 9, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
        { weight: 1, arbitrary: fc.integer({ min: 0xa0, max: 0xff }) },
      )
      .map((c) => String.fromCharCode(c)),
    maxLength: max,
  })

/** Well-formed or not (lone surrogates), short, any script. */
const anyText = (max = 20) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'grapheme', maxLength: max }) },
    { weight: 2, arbitrary: fc.string({ maxLength: max }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: max }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '\uD800',
        '\uDFFF',
        'a\uDBFFb',
        '\uDC00\uD800',
        'e\u0301',
        '\u0000',
        '\uFEFF',
        '\u202E',
      ),
    },
  )

/** encodeURIComponent that does not throw on lone surrogates: they become the bytes of an invalid UTF-8 sequence. */
export function encode(text: string): string {
  let out = ''
  for (const ch of text) {
    const code = ch.codePointAt(0)!
    out += code >= 0xd800 && code <= 0xdfff ? '%ED%A0%80' : encodeURIComponent(ch)
  }
  return out
}

const shorten = (text: string, max = 160) => (text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text)

// ---------------------------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------------------------

const validCode = fc.stringMatching(/^[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,2}$/)

/** One path segment: plausible, encoded garbage, traversal, or raw text the URL parser must cope with. */
export const segmentArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: anyText(16).map(encode) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '..',
      '.',
      '%2e%2e',
      '%2E%2E%2F',
      '%2F',
      '%5C',
      '%00',
      '%ff',
      '%fe%ff',
      '%zz',
      '%',
      '%%',
      '%E0%A4%A',
      '%C0%AF',
      '%ED%A0%80',
      '..%2f..%2fetc%2fpasswd',
      '..;',
      'a%20b',
      '+',
      '%3Cscript%3Ealert(1)%3C%2Fscript%3E',
      '%u0041',
      'null',
      'undefined',
      '__proto__',
      'constructor',
      'prototype',
      'hasOwnProperty',
      'NaN',
      '-1',
      '0',
      '1e308',
      '',
      '*',
      '~',
      ':code',
      'HEAD',
    ),
  },
  { weight: 1, arbitrary: anyText(12) },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@-]{1,30}$/) },
)

const codeArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...SEED_CODES) },
  { weight: 2, arbitrary: validCode },
  { weight: 1, arbitrary: fc.constantFrom(...SEED_CODES).map((c) => c.toUpperCase()) },
  { weight: 2, arbitrary: segmentArb },
)

const usernameArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('admin', 'alice', 'bob', 'nobody'),
  fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,10}$/),
  segmentArb,
)

const assetArb = fc.oneof(
  fc.constantFrom('browsable.js', 'browsable.css', 'swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-init.js'),
  fc.constantFrom('..%2f..%2fpackage.json', '..%2Fapp.ts', '%2e%2e', 'constructor', '__proto__', 'toString'),
  segmentArb,
)

const tagIdArb = fc.oneof(
  fc.constantFrom('1', '7', '20', '21', '0', '01', '-1', '1e3', '99999999999999999999'),
  segmentArb,
)

const TEMPLATES = [
  '/api/clubs',
  '/api/clubs/{code}',
  '/api/clubs/{code}/members',
  '/api/clubs/{code}/members/{username}',
  '/api/clubs/{code}/requests',
  '/api/clubs/{code}/requests/{username}',
  '/api/clubs/{code}/requests/{username}/accept',
  '/api/clubs/{code}/resubmit',
  '/api/tags',
  '/api/tags/{id}',
  '/api/favorites',
  '/api/favorites/{code}',
  '/api/subscriptions',
  '/api/subscriptions/{code}',
  '/api/users',
  '/api/users/me',
  '/api/users/me/requests',
  '/health',
  '/swagger',
  '/swagger/json',
  '/static/{asset}',
  '/swagger/assets/{asset}',
  '/',
  '/api',
] as const

const knownPathArb = fc
  .record({
    template: fc.constantFrom(...TEMPLATES),
    code: codeArb,
    username: usernameArb,
    asset: assetArb,
    id: tagIdArb,
    ending: fc.constantFrom('/', '/', '/', '', '//', '/.', '/..'),
  })
  .map(
    ({ template, code, username, asset, id, ending }) =>
      template.replace('{code}', code).replace('{username}', username).replace('{asset}', asset).replace('{id}', id) +
      ending,
  )

const veryLongPathArb = fc
  .tuple(
    fc.constantFrom(300, 5_000, 70_000),
    fc.constantFrom('a', '%ff', 'é', '../', 'a/', '-'),
    fc.constantFrom('/api/clubs/', '/api/favorites/', '/', '/api/clubs/x/members/'),
  )
  .map(([n, unit, prefix]) => prefix + unit.repeat(Math.ceil(n / unit.length)))

export const pathArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: knownPathArb },
  { weight: 2, arbitrary: fc.array(segmentArb, { maxLength: 6 }).map((s) => '/' + s.join('/')) },
  { weight: 2, arbitrary: fc.array(segmentArb, { maxLength: 4 }).map((s) => '/api/clubs/' + s.join('/')) },
  { weight: 1, arbitrary: veryLongPathArb },
)

// ---------------------------------------------------------------------------------------------
// Query strings
// ---------------------------------------------------------------------------------------------

const garbageValue = fc.oneof(
  anyText(20),
  fc.constantFrom(
    '',
    ' ',
    ',',
    ',,,',
    '-',
    '--name',
    '%',
    '%zz',
    '\u0000',
    'true,false',
    'null',
    'undefined',
    'NaN',
    'Infinity',
    '1e308',
    '-0',
    '0x10',
    '99999999999999999999999',
    '<script>alert(1)</script>',
    '"><img src=x onerror=alert(1)>',
    '__proto__',
    '[]',
    '{}',
  ),
)

const orderingValue = fc
  .array(
    fc.tuple(
      fc.constantFrom('', '-', '+', '--', ' '),
      fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...ORDERING_FIELDS) },
        { weight: 1, arbitrary: fc.constantFrom('subtitle', 'NAME', 'name ', '?', '__proto__', '') },
        { weight: 1, arbitrary: anyText(8) },
      ),
    ),
    { maxLength: 4 },
  )
  .map((terms) => terms.map(([sign, field]) => sign + field).join(','))

const intText = fc.oneof(
  fc.integer({ min: -3, max: 120 }).map(String),
  fc.constantFrom('0', '-1', '01', ' 1', '1 ', '1.5', '1e1', '2e308', '99999999999999999999', '', '+2', '0x2', '١'),
)

const valueFor: Record<string, fc.Arbitrary<string>> = {
  ordering: orderingValue,
  search: fc.oneof(fc.constantFrom('chess', 'CHESS', 'échecs', 'the club', '  ', 'tech music'), anyText(30)),
  tags: fc.oneof(
    fc
      .array(fc.oneof(fc.constantFrom(...TAG_NAMES), fc.constantFrom(...TAG_IDS).map(String), anyText(6)), {
        maxLength: 3,
      })
      .map((t) => t.join(',')),
  ),
  page: intText,
  page_size: intText,
  fields: fc
    .array(fc.oneof(fc.constantFrom(...LIST_FIELDS, 'description', 'website', 'nope', ''), anyText(6)), {
      maxLength: 4,
    })
    .map((f) => f.join(',')),
  format: fc.constantFrom('json', 'api', 'JSON', 'html', 'xml', '', 'api ', 'json,api'),
}
for (const name of BOOLEAN_PARAMS)
  valueFor[name] = fc.constantFrom('true', 'false', 'True', '1', '0', 'yes', '', 'null', 'TRUE ', 'tru')
for (const name of CODED_PARAMS) valueFor[name] = fc.oneof(intText, fc.constantFrom('1,2', '1,,2', '4,5', ',', '2,x'))

const paramNameArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...LIST_PARAMS) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('', 'colour', '__proto__', 'constructor', 'format[]', 'page%00', 'PAGE', 'limit'),
  },
  { weight: 1, arbitrary: anyText(8) },
)

/** `?a=b&...`: known parameters with plausible or random values, unknown ones, repeats, raw or encoded. */
export const queryArb: fc.Arbitrary<string> = fc
  .array(
    fc
      .tuple(paramNameArb, fc.boolean(), fc.constantFrom('encoded', 'encoded', 'raw', 'bare'))
      .chain(([name, plausible, mode]) =>
        (plausible && Object.hasOwn(valueFor, name) ? valueFor[name]! : garbageValue).map((value) => ({
          name,
          value,
          mode,
        })),
      ),
    { maxLength: 6 },
  )
  .map((params) => {
    if (!params.length) return ''
    const parts = params.map(({ name, value, mode }) =>
      mode === 'bare' ? encode(name) : mode === 'raw' ? `${name}=${value}` : `${encode(name)}=${encode(value)}`,
    )
    return '?' + parts.join('&')
  })

// ---------------------------------------------------------------------------------------------
// Headers
// ---------------------------------------------------------------------------------------------

const maybe = <T>(arb: fc.Arbitrary<T>, weightOfNone = 1) =>
  fc.oneof({ weight: weightOfNone, arbitrary: fc.constant(undefined) }, { weight: 3, arbitrary: arb })

export const headersArb = fc
  .record({
    accept: maybe(
      fc.oneof(
        fc.constantFrom(
          'application/json',
          'text/html',
          'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
          '*/*',
          'application/json;q=0',
          'text/html;q=abc',
          'text/html;q=1, application/json;q=1',
          'text/*',
          '',
          ';;;q=',
          'application/json, text/html;q=1.1',
          'image/png',
        ),
        headerText(),
      ),
    ),
    'content-type': maybe(
      fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8') },
        {
          weight: 3,
          arbitrary: fc.constantFrom(
            'APPLICATION/JSON',
            'application/json;charset=latin1',
            'application/json;;;',
            'text/plain',
            'text/plain;charset=UTF-8',
            'text/html',
            'multipart/form-data; boundary=x',
            'multipart/form-data',
            'application/x-www-form-urlencoded',
            'application/json-patch+json',
            'application/merge-patch+json',
            'application/jsonx',
            'application/xml',
            ';',
            '',
          ),
        },
        { weight: 1, arbitrary: headerText() },
      ),
    ),
    authorization: maybe(
      fc.oneof(
        { weight: 6, arbitrary: fc.constant(`Bearer ${ADMIN_TOKEN}`) },
        {
          weight: 3,
          arbitrary: fc.constantFrom(
            `bearer ${ADMIN_TOKEN}`,
            `Bearer  ${ADMIN_TOKEN}  `,
            `Bearer ${ADMIN_TOKEN} extra`,
            `Bearer ${ADMIN_TOKEN.toUpperCase()}`,
            `Token ${ADMIN_TOKEN}`,
            'Bearer',
            'Bearer ',
            'Bearer null',
            'Basic YWRtaW46YWRtaW4=',
            ADMIN_TOKEN,
            ' ',
          ),
        },
        { weight: 2, arbitrary: headerText(30).map((t) => `Bearer ${t}`) },
        { weight: 1, arbitrary: headerText(30) },
      ),
      2,
    ),
    'if-none-match': maybe(
      fc.oneof(fc.constantFrom('*', 'W/"abc"', '"x", W/"y"', '""', 'W/', ',,'), headerText(20)),
      4,
    ),
    'accept-encoding': maybe(
      fc.oneof(
        fc.constantFrom('gzip', 'br', 'gzip;q=0', '*', '*;q=0', 'identity', 'gzip, deflate, br', 'GZIP;q=0.5'),
        headerText(20),
      ),
      2,
    ),
    'content-length': maybe(fc.constantFrom('0', '-1', '1', 'abc', '99999999999', '1048577', '2000000'), 12),
  })
  .map((h) => Object.entries(h).filter((e): e is [string, string] => e[1] !== undefined))

// ---------------------------------------------------------------------------------------------
// Bodies (built as JSON *text*, so -0, 1e309, duplicate and "__proto__" keys survive)
// ---------------------------------------------------------------------------------------------

const jsonString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: anyText(30).map((s) => JSON.stringify(s)) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '"\\ud800"',
      '"\\udfff"',
      '"a\\ud83dz"',
      '"\\u0000"',
      '""',
      '"   "',
      '"NaN"',
      '"Infinity"',
      '"true"',
      '"false"',
      '"null"',
      '"3"',
      '"1e308"',
      '"-0"',
      '"<script>alert(1)</script>"',
      '"javascript:alert(1)"',
      '"data:text/html,x"',
      '"https://"',
      '"http://exa mple.com"',
      '"2026-02-30"',
      '"9999-12-31"',
      '"0000-01-01"',
      '"2020-1-1"',
      '"a@b.co"',
      '"@@"',
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(256, 1_001, 10_001, 100_000), fc.constantFrom('x', 'é', '😀', '\\ud800', '<', ' '))
      .map(([n, unit]) => `"${unit.repeat(n)}"`),
  },
)

const jsonNumber: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '0',
    '-0',
    '1',
    '2',
    '3',
    '4',
    '5',
    '6',
    '-1',
    '1e308',
    '-1e308',
    '1e309',
    '1.5',
    '0.1',
    '5e-324',
    '12345678901234567890123',
    '9007199254740993',
    '1E2',
    '1.0',
    '4.0',
    '2e0',
  ),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
)

const jsonLiteral = fc.oneof(fc.constantFrom('null', 'true', 'false'), jsonNumber, jsonString)

const keyArb = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...CLUB_FIELDS) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      ...READ_ONLY_FIELDS,
      'club',
      'username',
      'role',
      'is_admin',
      'id',
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      'hasOwnProperty',
      'valueOf',
      'colour',
      '',
      ' name',
      'NAME',
    ),
  },
  { weight: 1, arbitrary: anyText(10) },
)

const { json: jsonValue } = fc.letrec<{ json: string; array: string; object: string }>((tie) => ({
  json: fc.oneof({ depthSize: 'small', withCrossShrink: true }, jsonLiteral, tie('array'), tie('object')),
  array: fc.array(tie('json'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
  object: fc
    .array(fc.tuple(keyArb, tie('json')), { maxLength: 5 })
    .map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
}))
export { jsonValue }

const dateText = fc
  .date({ min: new Date('1700-01-01T00:00:00Z'), max: NOW, noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10))

const urlText = fc.oneof(
  fc.constantFrom('https://example.com', 'http://example.org/a?b=c#d', 'https://xn--bcher-kva.example/'),
  fc.webUrl(),
)

/** A valid value of each writable field, as JSON text. */
const validValue: Record<string, fc.Arbitrary<string>> = {
  name: anyText(40).map((s) => JSON.stringify(s || 'Club')),
  code: validCode.map((s) => JSON.stringify(s)),
  subtitle: anyText(40).map((s) => JSON.stringify(s)),
  description: anyText(80).map((s) => JSON.stringify(s)),
  email: fc.oneof(
    fc.constant('""'),
    fc.emailAddress().map((s) => JSON.stringify(s)),
  ),
  address: anyText(30).map((s) => JSON.stringify(s)),
  founded: fc.oneof(
    fc.constant('null'),
    dateText.map((s) => JSON.stringify(s)),
  ),
  tags: fc
    .array(
      fc.oneof(
        fc.constantFrom(...TAG_IDS).map((id) => `{"id":${id}}`),
        fc.constantFrom(...TAG_NAMES).map((n) => `{"name":${JSON.stringify(n)}}`),
      ),
      { maxLength: 5 },
    )
    .map((t) => `[${t.join(',')}]`),
  how_to_get_involved: anyText(40).map((s) => JSON.stringify(s)),
  listserv: anyText(20).map((s) => JSON.stringify(s)),
  approved_comment: anyText(20).map((s) => JSON.stringify(s)),
  // docs/reference.md §21: at most 10 weekly meetings, each ending after it starts.
  meetings: fc
    .array(
      fc
        .record({
          day: fc.constantFrom('monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'),
          from: fc.integer({ min: 0, max: 23 * 60 + 58 }),
          length: fc.integer({ min: 1, max: 180 }),
          location: anyText(20),
          note: anyText(30),
        })
        .map(({ day, from, length, location, note }) => {
          const time = (minutes: number) =>
            `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`
          return JSON.stringify({
            day,
            start: time(from),
            end: time(Math.min(from + length, 23 * 60 + 59)),
            location,
            note,
          })
        }),
      { maxLength: 10 },
    )
    .map((meetings) => `[${meetings.join(',')}]`),
}
for (const f of [
  'email_public',
  'accepting_members',
  'appointment_needed',
  'available_virtually',
  'enables_subscription',
  'is_school_unit',
  'active',
  'approved',
])
  validValue[f] = fc.constantFrom('true', 'false')
for (const f of ['application_required', 'recruiting_cycle']) validValue[f] = fc.integer({ min: 1, max: 5 }).map(String)
validValue.size = fc.integer({ min: 1, max: 4 }).map(String)
for (const f of ['image_url', 'website', 'facebook', 'twitter', 'instagram', 'linkedin', 'github', 'youtube'])
  validValue[f] = fc.oneof(
    fc.constant('null'),
    urlText.map((s) => JSON.stringify(s)),
  )

/** A club body that is mostly right: some fields valid, some with a wrong type or value, extra keys. */
export const clubBodyArb: fc.Arbitrary<string> = fc
  .tuple(fc.subarray(CLUB_FIELDS), fc.array(fc.tuple(keyArb, jsonValue), { maxLength: 3 }))
  .chain(([fields, extra]) =>
    fc
      .tuple(
        ...fields.map((f) =>
          fc.oneof(
            { weight: 5, arbitrary: validValue[f]! },
            { weight: 1, arbitrary: jsonLiteral },
            { weight: 1, arbitrary: jsonValue },
          ),
        ),
      )
      .map((values) => {
        const pairs = fields.map((f, i) => `${JSON.stringify(f)}:${values[i]}`)
        for (const [k, v] of extra) pairs.push(`${JSON.stringify(k)}:${v}`)
        return `{${pairs.join(',')}}`
      }),
  )

/** A club body whose every field is valid (it may still clash: a taken name or code). */
export const validClubBodyArb: fc.Arbitrary<string> = fc
  .tuple(fc.subarray(CLUB_FIELDS), fc.nat(3))
  // A code (create only) makes most updates a 400; leave it out of three bodies in four.
  .map(([fields, dice]) => (dice ? fields.filter((f) => f !== 'code') : fields))
  .chain((fields) =>
    fc
      .tuple(...fields.map((f) => validValue[f]!))
      .map((values) => `{${fields.map((f, i) => `${JSON.stringify(f)}:${values[i]}`).join(',')}}`),
  )

const deepArb = fc
  .tuple(
    fc.constantFrom(2_000, 2_000, 10_000, 100_000),
    fc.constantFrom('array', 'object', 'tags', 'name', 'club', 'unclosed', 'mixed'),
  )
  .map(([n, kind]) => {
    switch (kind) {
      case 'array':
        return '['.repeat(n) + ']'.repeat(n)
      case 'object':
        return '{"a":'.repeat(n) + '1' + '}'.repeat(n)
      case 'tags':
        return `{"name":"Deep","tags":${'['.repeat(n)}${']'.repeat(n)}}`
      case 'name':
        return `{"name":${'{"x":'.repeat(n)}null${'}'.repeat(n)}}`
      case 'club':
        return `{"club":${'['.repeat(n)}${']'.repeat(n)},"username":"alice"}`
      case 'unclosed':
        return '['.repeat(n)
      default:
        return '[{"a":'.repeat(n) + '0' + '}]'.repeat(n)
    }
  })

const invalidJsonArb = fc.oneof(
  fc.constantFrom(
    '{',
    '}',
    '{"name": }',
    "{'name': 'x'}",
    '{name: "x"}',
    '{"name": "x",}',
    '[1,2,]',
    'NaN',
    'Infinity',
    '-',
    '01',
    '1.',
    '.5',
    '"unterminated',
    '\uFEFF{"name":"x"}',
    '{"name": "x"} trailing',
    '// comment\n{}',
    '{"a":1}{"b":2}',
    'undefined',
    'True',
    '\u0000',
    ' ',
    '\n\t',
    '"\\x41"',
    '"\\u12"',
    '{"name":"\u0001"}',
    '{"name":"x"',
    '{"__proto__":',
  ),
  fc.tuple(clubBodyArb, fc.nat()).map(([text, cut]) => text.slice(0, text.length ? cut % text.length : 0)),
)

const peopleBodyArb = fc.oneof(
  codeArb.map((code) => JSON.stringify({ club: code })),
  fc
    .tuple(usernameArb, fc.constantFrom('member', 'officer', 'owner', 'OWNER', 'admin', ''))
    .map(([username, role]) => JSON.stringify({ username, role })),
  fc
    .tuple(usernameArb, fc.constantFrom('true', 'false', '1', 'null', '"yes"'))
    .map(([u, a]) => `{"username":${JSON.stringify(u)},"is_admin":${a}}`),
  fc.constantFrom('{"club":"penn-chess-society","__proto__":{"x":1}}', '{"__proto__":[]}', '{"club":null}'),
)

/** A body: as text (JSON or not) or as raw bytes. */
export type FuzzBody = { text: string } | { bytes: Uint8Array<ArrayBuffer> }

export const bodyArb: fc.Arbitrary<FuzzBody> = fc.oneof(
  { weight: 6, arbitrary: clubBodyArb.map((text) => ({ text })) },
  { weight: 5, arbitrary: validClubBodyArb.map((text) => ({ text })) },
  { weight: 3, arbitrary: jsonValue.map((text) => ({ text })) },
  { weight: 2, arbitrary: peopleBodyArb.map((text) => ({ text })) },
  { weight: 1, arbitrary: deepArb.map((text) => ({ text })) },
  { weight: 2, arbitrary: invalidJsonArb.map((text) => ({ text })) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        fc.uint8Array({ maxLength: 64 }),
        fc.constantFrom(
          new Uint8Array([0xff, 0xfe, 0x7b, 0x7d]),
          new Uint8Array([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]), // {"name":"\xC3("}
          new Uint8Array([0x1f, 0x8b, 0x08, 0x00]),
        ),
      )
      .map((bytes) => ({ bytes: new Uint8Array(bytes) })),
  },
)

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

export interface FuzzRequest {
  readonly method: string
  /** Path and query, as sent after `http://localhost`. */
  readonly target: string
  readonly headers: [string, string][]
  readonly body: FuzzBody | null
}

export function describeRequest(r: FuzzRequest): string {
  const body =
    r.body === null
      ? ''
      : 'text' in r.body
        ? ` body=${shorten(JSON.stringify(r.body.text))}`
        : ` bytes=[${r.body.bytes}]`
  const headers = r.headers.map(([k, v]) => `${k}: ${shorten(JSON.stringify(v), 60)}`).join('; ')
  return `${r.method} ${shorten(r.target)}${headers ? ` {${headers}}` : ''}${body}`
}

const withToString = (r: FuzzRequest): FuzzRequest =>
  Object.defineProperty(r, fc.toStringMethod, { value: () => describeRequest(r), enumerable: false })

export const requestArb: fc.Arbitrary<FuzzRequest> = fc
  .record({
    method: fc.constantFrom(...METHODS),
    path: pathArb,
    query: fc.oneof({ weight: 1, arbitrary: fc.constant('') }, { weight: 2, arbitrary: queryArb }),
    headers: headersArb,
    body: maybe(bodyArb, 1),
  })
  .map(({ method, path, query, headers, body }) =>
    withToString({
      method,
      target: path + query,
      headers,
      // A GET or HEAD request cannot carry a body.
      body: method === 'GET' || method === 'HEAD' ? null : (body ?? null),
    }),
  )

/** Requests aimed at the list's query parameters (GET, HEAD) with random headers. */
export const listRequestArb: fc.Arbitrary<FuzzRequest> = fc
  .record({
    method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD'),
    path: fc.constantFrom('/api/clubs/', '/api/clubs', '/api/clubs/penn-chess-society/'),
    query: queryArb,
    headers: headersArb,
  })
  .map(({ method, path, query, headers }) => withToString({ method, target: path + query, headers, body: null }))

/** Writes (POST, PUT, PATCH) of random bodies to the endpoints that take one, mostly as the admin. */
export const writeRequestArb: fc.Arbitrary<FuzzRequest> = fc
  .record({
    target: fc.oneof(
      fc.constant({ methods: ['POST'], path: '/api/clubs/' }),
      fc.constantFrom(...SEED_CODES).map((c) => ({ methods: ['PUT', 'PATCH', 'PATCH'], path: `/api/clubs/${c}/` })),
      fc.constantFrom(...SEED_CODES).map((c) => ({ methods: ['POST'], path: `/api/clubs/${c}/members/` })),
      fc
        .constantFrom('/api/favorites/', '/api/subscriptions/', '/api/users/')
        .map((path) => ({ methods: ['POST'], path })),
    ),
    pick: fc.nat(),
    contentType: fc.oneof(
      { weight: 5, arbitrary: fc.constant('application/json') },
      { weight: 1, arbitrary: fc.constantFrom('application/json; charset=utf-8', 'text/plain', '') },
    ),
    auth: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    body: bodyArb,
  })
  .map(({ target, pick, contentType, auth, body }) => {
    const headers: [string, string][] = []
    if (contentType) headers.push(['content-type', contentType])
    if (auth) headers.push(['authorization', `Bearer ${ADMIN_TOKEN}`])
    return withToString({ method: target.methods[pick % target.methods.length]!, target: target.path, headers, body })
  })

/** The Request, or null when the Fetch API itself refuses to build it (then there is nothing to send). */
export function toRequest(r: FuzzRequest): Request | null {
  try {
    const headers = new Headers()
    for (const [name, value] of r.headers) headers.append(name, value)
    const body = r.body === null ? undefined : 'text' in r.body ? new TextEncoder().encode(r.body.text) : r.body.bytes
    return new Request(`http://localhost${r.target}`, { method: r.method, headers, body })
  } catch {
    return null
  }
}

// ---------------------------------------------------------------------------------------------
// Response properties
// ---------------------------------------------------------------------------------------------

/** docs/reference.md §8: `{"detail": string}`, or an object whose values are non-empty lists of strings. */
export function isErrorBody(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false
  const entries = Object.entries(body)
  if (entries.length === 1 && entries[0]![0] === 'detail' && typeof entries[0]![1] === 'string') return true
  return (
    entries.length > 0 &&
    entries.every(([, v]) => Array.isArray(v) && v.length > 0 && v.every((m) => typeof m === 'string'))
  )
}

/**
 * What is wrong with one response (null when nothing is): no 5xx, JSON that parses, docs/reference.md §8 error
 * bodies, and HTML that runs nothing the request put in it.
 */
export async function problemWith(method: string, res: Response): Promise<string | null> {
  if (res.status >= 500) return `answered ${res.status}: ${shorten(await res.text().catch(() => ''), 300)}`
  let bytes = new Uint8Array(await res.arrayBuffer())
  if (res.headers.get('content-encoding') === 'gzip' && bytes.length) {
    try {
      bytes = Bun.gunzipSync(bytes)
    } catch {
      return `answered ${res.status} with Content-Encoding: gzip but a body that does not decompress`
    }
  }
  const text = new TextDecoder().decode(bytes)
  const type = (res.headers.get('content-type') ?? '').toLowerCase()
  const hasBody = method !== 'HEAD' && res.status !== 204 && res.status !== 304
  if (type.includes('json') && hasBody) {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return `answered ${res.status} with Content-Type ${type} and a body that is not JSON: ${shorten(text)}`
    }
    if (res.status >= 400 && !isErrorBody(parsed))
      return `answered ${res.status} with an error body outside docs/reference.md §8: ${shorten(text, 300)}`
  }
  if (type.startsWith('text/html') && hasBody) {
    // Whatever the request carried, the page runs no script but its own files, and no handler attribute.
    for (const tag of text.match(/<script\b[^>]*>/gi) ?? [])
      if (!/^<script src="\/[^"<>]+"( defer)?>$/.test(tag))
        return `answered ${res.status} with HTML holding ${shorten(tag)}`
    if (hasEventHandler(text)) return `answered ${res.status} with HTML holding an event-handler attribute`
  }
  if (res.status >= 400 && hasBody && !type.startsWith('application/json') && !type.startsWith('text/html'))
    return `answered ${res.status} with Content-Type "${type}", neither JSON nor the browsable HTML`
  return null
}

type Handle = (request: Request) => Promise<Response>

/** A fresh in-memory app per run, so a failing run replays exactly from fast-check's seed and path. */
export async function freshApp(): Promise<Handle> {
  const { app } = await makeApp()
  return (request) => app.handle(request)
}

/** The property: a sequence of requests to a fresh app, each answered within docs/reference.md §8. */
export function requestsProperty(
  arb: fc.Arbitrary<FuzzRequest> = requestArb,
  maxLength = 4,
  record: (status: number) => void = () => {},
) {
  return fc.asyncProperty(fc.array(arb, { minLength: 1, maxLength }), async (requests) => {
    const handle = await freshApp()
    for (const r of requests) {
      const request = toRequest(r)
      if (request === null) continue
      const response = await handle(request)
      record(response.status)
      const problem = await problemWith(r.method, response)
      if (problem) throw new Error(`${describeRequest(r)}\n  → ${problem}`)
    }
  })
}

// ---------------------------------------------------------------------------------------------
// Write sequences and the list invariants
// ---------------------------------------------------------------------------------------------

/** The users a sequence starts with; index 0 is the bootstrap admin. */
const USERS = ['admin', 'fuzz-ann', 'fuzz-ben', 'fuzz-cy']

const NAME_POOL = [
  'Chess',
  'chess',
  'Échecs',
  'echecs',
  'ÉCHECS',
  'Zebra',
  'zebra',
  'Ångström',
  'angstrom',
  'ß club',
  'SS club',
  'ﬁsh',
  'fish',
  'Ⅻ Twelve',
  '① One',
  'Ｆullwidth',
  '😀',
  '😀😀',
  '  spaced  ',
  'a',
  'A',
  'é',
  'e\u0301',
  'Penn Chess Society',
  'penn chess society',
  'Zzz',
  '0 Zero',
  '~tilde',
]

const nameArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NAME_POOL) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
)

const changesArb = fc.record(
  {
    name: nameArb,
    subtitle: fc.string({ maxLength: 20 }),
    founded: fc.oneof(fc.constant(null), dateText),
    size: fc.integer({ min: 1, max: 4 }),
    tags: fc.subarray(TAG_IDS, { maxLength: 4 }).map((ids) => ids.map((id) => ({ id }))),
    approved: fc.boolean(),
    active: fc.boolean(),
  },
  { requiredKeys: [] },
)

export type WriteOp =
  | { kind: 'create'; fields: Record<string, unknown>; withCode: string | null }
  | { kind: 'patch'; target: number; fields: Record<string, unknown> }
  | { kind: 'delete'; target: number }
  | { kind: 'favorite'; user: number; target: number; on: boolean }
  | { kind: 'member'; user: number; target: number; role: 'owner' | 'officer' | 'member'; on: boolean }

// Small indexes often, so that a sequence favorites, unfavorites and patches the same clubs.
const targetArb = fc.oneof(fc.nat(4), fc.nat(10_000))
const userArb = fc.integer({ min: 0, max: USERS.length - 1 })

export const writeOpArb: fc.Arbitrary<WriteOp> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(nameArb, changesArb, fc.option(validCode, { freq: 4 }))
      .map(([name, fields, withCode]) => ({ kind: 'create' as const, fields: { ...fields, name }, withCode })),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('patch' as const), target: targetArb, fields: changesArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), target: targetArb }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('favorite' as const),
      user: userArb,
      target: targetArb,
      on: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('member' as const),
      user: fc.integer({ min: 1, max: USERS.length - 1 }),
      target: targetArb,
      role: fc.constantFrom('owner' as const, 'officer' as const, 'member' as const),
      on: fc.boolean(),
    }),
  },
)

type Json = any

class Client {
  constructor(private readonly handle: Handle) {}

  async send(method: string, path: string, token: string | null, body?: unknown): Promise<Response> {
    const headers = new Headers()
    if (token) headers.set('authorization', `Bearer ${token}`)
    if (body !== undefined) headers.set('content-type', 'application/json')
    const res = await this.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    )
    if (res.status >= 500)
      throw new Error(`${method} ${path} ${JSON.stringify(body)} → ${res.status}: ${await res.text()}`)
    return res
  }

  async json(path: string, token: string | null = ADMIN_TOKEN, expected = 200): Promise<Json> {
    const res = await this.send('GET', path, token)
    const text = await res.text()
    if (res.status !== expected)
      throw new Error(`GET ${path} → ${res.status} (expected ${expected}): ${shorten(text, 300)}`)
    return JSON.parse(text)
  }
}

const fail = (message: string): never => {
  throw new Error(message)
}
const same = (a: unknown, b: unknown) => Bun.deepEquals(a, b, true)

/** docs/reference.md §6: ascending compare of one ordering field; names folded; nulls last. */
function compareField(a: Json, b: Json, field: (typeof ORDERING_FIELDS)[number]): number {
  const va = field === 'name' ? fold(a.name) : a[field]
  const vb = field === 'name' ? fold(b.name) : b[field]
  if (va === vb) return 0
  if (va === null) return 1
  if (vb === null) return -1
  return va < vb ? -1 : 1
}

/** The order `terms` ("-favorite_count", "name") name, ties broken by code. */
export function comparator(terms: string[]): (a: Json, b: Json) => number {
  return (a, b) => {
    for (const term of terms) {
      const descending = term.startsWith('-')
      const c = compareField(a, b, (descending ? term.slice(1) : term) as (typeof ORDERING_FIELDS)[number])
      if (c !== 0) return descending ? -c : c
    }
    return a.code < b.code ? -1 : a.code > b.code ? 1 : 0
  }
}

function assertSorted(list: Json[], terms: string[], label: string) {
  const compare = comparator(terms)
  for (let i = 1; i < list.length; i++) {
    if (compare(list[i - 1], list[i]) >= 0) {
      const show = (c: Json) =>
        JSON.stringify({ code: c.code, name: c.name, ...Object.fromEntries(ORDERING_FIELDS.map((f) => [f, c[f]])) })
      fail(`${label}: items ${i - 1} and ${i} are out of order:\n  ${show(list[i - 1])}\n  ${show(list[i])}`)
    }
  }
}

const codesOf = (list: Json[]) => list.map((c) => c.code as string)

/** What a run checks after its writes: pages, orders, detail = list item, live counts. */
export interface InvariantOptions {
  readonly pageSize: number
  readonly pageOrdering: string
}

/** Applies `ops` as the admin and three users, then checks every list invariant. */
export async function runWriteSequence(
  ops: WriteOp[],
  options: InvariantOptions,
  record: (outcome: string) => void = () => {},
): Promise<void> {
  const client = new Client(await freshApp())
  const tokens: (string | null)[] = [ADMIN_TOKEN]
  for (const username of USERS.slice(1)) {
    const res = await client.send('POST', '/api/users/', ADMIN_TOKEN, { username })
    if (res.status !== 201) fail(`could not create user ${username}: ${res.status}`)
    tokens.push(((await res.json()) as Json).token)
  }
  const start: Json[] = await client.json('/api/clubs/')
  const codes = codesOf(start)
  const favoriteDelta = new Map<string, number>()
  const memberDelta = new Map<string, number>()
  const bump = (map: Map<string, number>, code: string, by: number) => map.set(code, (map.get(code) ?? 0) + by)
  const pick = (target: number) => (codes.length ? codes[target % codes.length]! : 'no-club')
  const log: string[] = []
  const favorites: { user: number; code: string }[] = []
  const members: { user: number; code: string }[] = []

  for (const op of ops) {
    let res: Response
    switch (op.kind) {
      case 'create': {
        const body = op.withCode ? { ...op.fields, code: op.withCode } : op.fields
        res = await client.send('POST', '/api/clubs/', ADMIN_TOKEN, body)
        if (res.status === 201) {
          const club = (await res.json()) as Json
          codes.push(club.code)
          memberDelta.set(club.code, 1) // the creator is its owner; it starts from 0
          favoriteDelta.set(club.code, 0)
        }
        break
      }
      case 'patch':
        res = await client.send('PATCH', `/api/clubs/${pick(op.target)}/`, ADMIN_TOKEN, op.fields)
        break
      case 'delete': {
        const code = pick(op.target)
        res = await client.send('DELETE', `/api/clubs/${code}/`, ADMIN_TOKEN)
        if (res.status === 204) codes.splice(codes.indexOf(code), 1)
        break
      }
      case 'favorite': {
        // A removal undoes one of the favorites added so far, when there are any.
        const held = op.on || !favorites.length ? null : favorites[op.target % favorites.length]!
        const user = held ? held.user : op.user
        const code = held ? held.code : pick(op.target)
        res = op.on
          ? await client.send('POST', '/api/favorites/', tokens[user]!, { club: code })
          : await client.send('DELETE', `/api/favorites/${code}/`, tokens[user]!)
        if (res.status === 201) {
          bump(favoriteDelta, code, 1)
          favorites.push({ user, code })
        }
        if (res.status === 204) {
          bump(favoriteDelta, code, -1)
          favorites.splice(
            favorites.findIndex((f) => f.user === user && f.code === code),
            1,
          )
        }
        break
      }
      case 'member': {
        const held = op.on || !members.length ? null : members[op.target % members.length]!
        const user = held ? held.user : op.user
        const code = held ? held.code : pick(op.target)
        const username = USERS[user]!
        res = op.on
          ? await client.send('POST', `/api/clubs/${code}/members/`, ADMIN_TOKEN, { username, role: op.role })
          : await client.send('DELETE', `/api/clubs/${code}/members/${username}/`, ADMIN_TOKEN)
        if (res.status === 201) {
          bump(memberDelta, code, 1)
          members.push({ user, code })
        }
        if (res.status === 204) {
          bump(memberDelta, code, -1)
          members.splice(
            members.findIndex((m) => m.user === user && m.code === code),
            1,
          )
        }
        break
      }
    }
    log.push(`${op.kind} → ${res.status}`)
    record(
      `${op.kind} ${op.kind === 'favorite' || op.kind === 'member' ? (op.on ? 'add' : 'remove') + ' ' : ''}→ ${res.status}`,
    )
  }

  const context = () => `after: ${log.join(', ')}`
  try {
    await checkInvariants(client, options, start, favoriteDelta, memberDelta)
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${context()}`)
  }
}

async function checkInvariants(
  client: Client,
  { pageSize, pageOrdering }: InvariantOptions,
  start: Json[],
  favoriteDelta: Map<string, number>,
  memberDelta: Map<string, number>,
) {
  const list: Json[] = await client.json('/api/clubs/')
  if (!Array.isArray(list)) fail('the admin list is not an array')

  // Every listed club can be retrieved, and its detail agrees with the list item on every list field.
  for (const item of list) {
    const detail = await client.json(`/api/clubs/${item.code}/`)
    for (const field of LIST_FIELDS)
      if (!same(detail[field], item[field]))
        fail(
          `${item.code}: detail ${field}=${JSON.stringify(detail[field])} but list ${field}=${JSON.stringify(item[field])}`,
        )
  }

  // Live counts follow the writes (docs/reference.md §5).
  const before = new Map(start.map((c) => [c.code, c]))
  for (const item of list) {
    const base = before.get(item.code)
    const favorites = (base?.favorite_count ?? 0) + (favoriteDelta.get(item.code) ?? 0)
    const members = (base?.membership_count ?? 0) + (memberDelta.get(item.code) ?? 0)
    if (item.favorite_count !== favorites)
      fail(`${item.code}: favorite_count ${item.favorite_count}, but the writes make it ${favorites}`)
    if (item.membership_count !== members)
      fail(`${item.code}: membership_count ${item.membership_count}, but the writes make it ${members}`)
  }

  // Without ?ordering=: -favorite_count, name, then code.
  assertSorted(list, ['-favorite_count', 'name'], 'the default order')

  // Pages concatenated are the bare list, in any one order; count is its length; past the end is a 404.
  const ordering = pageOrdering ? `&ordering=${pageOrdering}` : ''
  const whole: Json[] = pageOrdering ? await client.json(`/api/clubs/?ordering=${pageOrdering}`) : list
  if (pageOrdering) assertSorted(whole, pageOrdering.split(','), `?ordering=${pageOrdering}`)
  const pages = Math.max(1, Math.ceil(whole.length / pageSize))
  const concatenated: Json[] = []
  for (let n = 1; n <= pages; n++) {
    const page = await client.json(`/api/clubs/?page=${n}&page_size=${pageSize}${ordering}`)
    if (page.count !== whole.length)
      fail(`page ${n} of ${pageSize}${ordering}: count ${page.count}, the list has ${whole.length}`)
    if ((page.next === null) !== (n === pages)) fail(`page ${n} of ${pages}: next is ${page.next}`)
    if ((page.previous === null) !== (n === 1)) fail(`page ${n} of ${pages}: previous is ${page.previous}`)
    concatenated.push(...page.results)
  }
  if (!same(concatenated, whole))
    fail(
      `pages of ${pageSize}${ordering} concatenated differ from the bare list:\n  pages ${codesOf(concatenated)}\n  list  ${codesOf(whole)}`,
    )
  await client.json(`/api/clubs/?page=${pages + 1}&page_size=${pageSize}${ordering}`, ADMIN_TOKEN, 404)

  // Each ordering field, both ways: the same clubs, sorted, ties by code.
  const expected = [...codesOf(list)].sort()
  for (const field of ORDERING_FIELDS) {
    for (const term of [field, `-${field}`]) {
      const ordered: Json[] = await client.json(`/api/clubs/?ordering=${term}`)
      if (!same([...codesOf(ordered)].sort(), expected)) fail(`?ordering=${term} lists other clubs than the bare list`)
      assertSorted(ordered, [term], `?ordering=${term}`)
    }
  }

  // Anonymous callers see every active club with a public version: approved, or holding an
  // approved version while a change awaits review (docs/reference.md §11), in the default order of what they see.
  const anonymous: Json[] = await client.json('/api/clubs/', null)
  const publicCodes: string[] = []
  for (const club of list) {
    if (!club.active) continue
    if (club.approved || (await client.json(`/api/clubs/${club.code}/`)).approved_version) publicCodes.push(club.code)
  }
  assertSorted(anonymous, ['-favorite_count', 'name'], 'the anonymous list')
  if (!same([...codesOf(anonymous)].sort(), publicCodes.sort()))
    fail(`the anonymous list is not the public part of the admin list:\n  ${codesOf(anonymous)}\n  ${publicCodes}`)
}

export const invariantOptionsArb: fc.Arbitrary<InvariantOptions> = fc.record({
  pageSize: fc.oneof(fc.integer({ min: 1, max: 100 }), fc.constantFrom(1, 2, 7, 15, 100)),
  pageOrdering: fc.oneof(
    fc.constant(''),
    fc
      .subarray([...ORDERING_FIELDS], { minLength: 1, maxLength: 3 })
      .chain((fields) => fc.tuple(...fields.map((f) => fc.constantFrom(f, `-${f}`))).map((terms) => terms.join(','))),
  ),
})

/** The property: any sequence of admin and user writes keeps the list invariants. */
export function writeSequenceProperty(maxOps = 25, record?: (outcome: string) => void) {
  return fc.asyncProperty(fc.array(writeOpArb, { maxLength: maxOps }), invariantOptionsArb, async (ops, options) =>
    runWriteSequence(ops, options, record),
  )
}
