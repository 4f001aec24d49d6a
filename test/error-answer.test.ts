// What an error answers (src/edge/error-answer.ts, docs/reference.md §8): the status, headers and
// body every representation gives it (the API's JSON and browsable view, the site's page), and the
// words a page of the site says of it. The answers through HTTP are held by the endpoint tests.
import { describe, expect, test } from 'bun:test'
import {
  AccountDisabled,
  BadRequest,
  Conflict,
  NotAuthenticated,
  NotFound,
  PermissionDenied,
  StorageUnavailable,
  ValidationFailed,
} from '../src/domain/errors'
import { errorAnswer, FAULT, pageTitle, reasonOf, type ErrorAnswer } from '../src/edge/error-answer'
import {
  MethodNotAllowed,
  PayloadTooLarge,
  ReadOnlyDirectory,
  Throttled,
  UnsupportedMediaType,
} from '../src/edge/errors'

const plain = (answer: ErrorAnswer | null) =>
  answer && { status: answer.status, headers: { ...answer.headers }, body: { ...answer.body } }

describe('errorAnswer: an error to its status, headers and body', () => {
  const rows: { name: string; error: unknown; code?: string | number; expected: ErrorAnswer | null }[] = [
    {
      name: 'a refusal by field',
      error: new ValidationFailed({ name: ['A club with this name already exists.'] }),
      expected: { status: 400, headers: {}, body: { name: ['A club with this name already exists.'] } },
    },
    {
      name: 'no credentials',
      error: new NotAuthenticated(),
      expected: {
        status: 401,
        headers: { 'WWW-Authenticate': 'Bearer realm="api"' },
        body: { detail: 'Authentication credentials were not provided.' },
      },
    },
    {
      name: 'not allowed',
      error: new PermissionDenied(),
      expected: { status: 403, headers: {}, body: { detail: 'You do not have permission to perform this action.' } },
    },
    {
      name: 'not found',
      error: new NotFound(),
      expected: { status: 404, headers: {}, body: { detail: 'Not found.' } },
    },
    {
      name: 'a method the path does not have',
      error: new MethodNotAllowed('PUT', 'GET, POST'),
      expected: { status: 405, headers: { Allow: 'GET, POST' }, body: { detail: 'Method "PUT" not allowed.' } },
    },
    {
      name: 'a write in read-only mode',
      error: new ReadOnlyDirectory('GET'),
      expected: { status: 405, headers: { Allow: 'GET' }, body: { detail: 'This directory is read-only.' } },
    },
    {
      name: 'a body too large',
      error: new PayloadTooLarge(1024),
      expected: { status: 413, headers: {}, body: { detail: 'Request body is larger than 1024 bytes.' } },
    },
    {
      name: 'a body that is not JSON',
      error: new UnsupportedMediaType('text/plain'),
      expected: { status: 415, headers: {}, body: { detail: 'Unsupported media type "text/plain" in request.' } },
    },
    {
      name: 'over the rate limit, one second',
      error: new Throttled(1),
      expected: {
        status: 429,
        headers: { 'Retry-After': '1' },
        body: { detail: 'Request was throttled. Expected available in 1 second.' },
      },
    },
    {
      name: 'over the rate limit, seconds',
      error: new Throttled(12),
      expected: {
        status: 429,
        headers: { 'Retry-After': '12' },
        body: { detail: 'Request was throttled. Expected available in 12 seconds.' },
      },
    },
    {
      name: 'storage unavailable',
      error: new StorageUnavailable(),
      expected: {
        status: 503,
        headers: { 'Retry-After': '5' },
        body: { detail: 'The change could not be saved; storage is unavailable. Try again later.' },
      },
    },
    {
      name: "Elysia's unknown path",
      error: new Error('NOT_FOUND'),
      code: 'NOT_FOUND',
      expected: { status: 404, headers: {}, body: { detail: 'Not found.' } },
    },
    {
      name: "Elysia's body that does not parse",
      error: new Error('Bad JSON'),
      code: 'PARSE',
      expected: { status: 400, headers: {}, body: { detail: 'JSON parse error - the body could not be parsed.' } },
    },
    {
      name: "Elysia's refused body",
      error: new Error('Expected object'),
      code: 'VALIDATION',
      expected: { status: 400, headers: {}, body: { detail: 'Invalid request.' } },
    },
    {
      name: 'ours wins over the code Elysia gives it',
      error: new Conflict('Changed meanwhile.'),
      code: 'NOT_FOUND',
      expected: { status: 409, headers: {}, body: { detail: 'Changed meanwhile.' } },
    },
    { name: 'a fault', error: new TypeError('x is undefined'), expected: null },
    { name: 'a fault Elysia names as unknown', error: new Error('boom'), code: 'UNKNOWN', expected: null },
    { name: 'a fault Elysia calls internal', error: new Error('boom'), code: 'INTERNAL_SERVER_ERROR', expected: null },
    { name: 'a fault with a status for a code', error: new Error('boom'), code: 500, expected: null },
    { name: 'not an error at all', error: 'a string thrown', expected: null },
  ]
  test.each(rows)('$name', ({ error, code, expected }) => {
    expect(plain(errorAnswer(error, code))).toEqual(expected)
  })

  test('a fault is answered as the reference says: 500, no detail of it', () => {
    expect(plain(FAULT)).toEqual({ status: 500, headers: {}, body: { detail: 'Internal server error.' } })
  })
})

describe('the words of a page of the site', () => {
  const titles: { status: number; expected: string }[] = [
    { status: 400, expected: 'That did not work' },
    { status: 401, expected: 'Something went wrong' },
    { status: 403, expected: 'Not allowed' },
    { status: 404, expected: 'Page not found' },
    { status: 409, expected: 'Changed meanwhile' },
    { status: 413, expected: 'Something went wrong' },
    { status: 429, expected: 'Too many tries' },
    { status: 500, expected: 'Something went wrong' },
    { status: 503, expected: 'Try again soon' },
  ]
  test.each(titles)('the title of a $status', ({ status, expected }) => {
    expect(pageTitle(status)).toBe(expected)
  })

  const reasons: { name: string; error: ErrorAnswer; expected: string }[] = [
    { name: 'a detail', error: new AccountDisabled(), expected: 'This account is disabled.' },
    { name: 'a sentence of our own', error: new BadRequest('Choose a file.'), expected: 'Choose a file.' },
    {
      name: 'the messages of each field, in order',
      error: new ValidationFailed({ name: ['Too long.', 'Taken.'], non_field_errors: ['Pick one.'] }),
      expected: 'Too long. Taken. Pick one.',
    },
    { name: 'a refusal that names nothing', error: new ValidationFailed({}), expected: 'Some values are not valid.' },
  ]
  test.each(reasons)('the reason of $name', ({ error, expected }) => {
    expect(reasonOf(error)).toBe(expected)
  })
})
