// Content negotiation (src/edge/negotiate.ts): ?format= wins and must be json or api (anything
// else is a 404); otherwise an Accept header that prefers HTML to JSON picks the browsable view.
import { describe, expect, test } from 'bun:test'
import { NotFound } from '../src/domain/errors'
import { negotiate } from '../src/edge/negotiate'

const outcome = (url: string, accept: string | null) => {
  try {
    return negotiate(new URL(url, 'http://localhost').searchParams.get('format'), accept)
  } catch (error) {
    if (error instanceof NotFound) return `NotFound ${error.status}`
    throw error
  }
}

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8'

describe('negotiate: the Accept header', () => {
  // `knownBug` rows pin the right answer for what negotiate gets wrong today: they run as
  // test.failing, so they start failing (and want the flag removed) once it is fixed.
  const rows: { accept: string | null; expected: string; knownBug?: string }[] = [
    { accept: null, expected: 'json' },
    { accept: '', expected: 'json' },
    { accept: '*/*', expected: 'json' },
    { accept: 'application/json', expected: 'json' },
    { accept: 'text/html', expected: 'api' },
    { accept: BROWSER, expected: 'api' },
    // A tie between HTML and JSON goes to JSON.
    { accept: 'text/html, application/json', expected: 'json' },
    { accept: 'application/json, text/html', expected: 'json' },
    { accept: 'text/html;q=0.5, application/json', expected: 'json' },
    { accept: 'text/html, application/json;q=0.9', expected: 'api' },
    // HTML as good as "anything", with no JSON named: the browsable view.
    { accept: 'text/html, */*', expected: 'api' },
    { accept: 'application/*, text/html', expected: 'api' },
    { accept: 'text/html;q=0.8, */*', expected: 'json' },
    { accept: 'text/html;q=0.8, */*;q=0.8, application/json;q=0.1', expected: 'json' },
    { accept: 'text/html;q=0', expected: 'json' },
    { accept: 'text/html; q=abc', expected: 'json' }, // an unreadable q counts as 0
    { accept: 'text/html;level=1;q=0.9, application/json;q=0.8', expected: 'api' },
    {
      accept: 'text/html ;q=1',
      expected: 'api',
      knownBug: 'whitespace before ";" is allowed (RFC 9110 OWS), but it stays in the type: "text/html "',
    },
    { accept: ' text/html;q=1 , application/json;q=0.5', expected: 'api' },
    {
      accept: 'Text/Html',
      expected: 'api',
      knownBug: 'media types are case-insensitive, but negotiate looks for a lower-case "html" before it lowercases',
    },
    { accept: 'application/xhtml+xml', expected: 'json' }, // mentions html, but is not text/html
    { accept: 'text/plain, text/htmlx', expected: 'json' },
  ]
  test.each(rows.filter((row) => !row.knownBug))('Accept: $accept', ({ accept, expected }) => {
    expect(outcome('/api/clubs/', accept)).toBe(expected)
  })
  test.failing.each(rows.filter((row) => row.knownBug))(
    'Accept: $accept (known bug: $knownBug)',
    ({ accept, expected }) => {
      expect(outcome('/api/clubs/', accept)).toBe(expected)
    },
  )
})

describe('negotiate: ?format=', () => {
  const rows: { url: string; accept: string | null; expected: string }[] = [
    { url: '/api/clubs/?format=json', accept: 'text/html', expected: 'json' },
    { url: '/api/clubs/?format=json', accept: BROWSER, expected: 'json' },
    { url: '/api/clubs/?format=api', accept: null, expected: 'api' },
    { url: '/api/clubs/?format=api', accept: 'application/json', expected: 'api' },
    { url: '/api/clubs/?page=2&format=api', accept: null, expected: 'api' },
    { url: '/api/clubs/?format=api&format=json', accept: null, expected: 'api' }, // the first one counts
    { url: '/api/clubs/?format=xml', accept: null, expected: 'NotFound 404' },
    { url: '/api/clubs/?format=JSON', accept: null, expected: 'NotFound 404' },
    { url: '/api/clubs/?format=', accept: 'text/html', expected: 'NotFound 404' },
    { url: '/api/clubs/?format', accept: 'text/html', expected: 'NotFound 404' },
    { url: '/api/clubs/?formats=api', accept: null, expected: 'json' },
  ]
  test.each(rows)('$url with Accept: $accept', ({ url, accept, expected }) => {
    expect(outcome(url, accept)).toBe(expected)
  })
})

describe('negotiate: spreadsheets, only where the action offers them (docs/reference.md §15)', () => {
  const rows: { url: string; offered: ('csv' | 'xlsx')[]; expected: string }[] = [
    { url: '/api/clubs/?format=csv', offered: ['csv', 'xlsx'], expected: 'csv' },
    { url: '/api/clubs/?format=xlsx', offered: ['csv', 'xlsx'], expected: 'xlsx' },
    { url: '/api/clubs/?format=xlsx', offered: ['csv'], expected: 'NotFound 404' },
    { url: '/api/clubs/penn-chess-society/?format=csv', offered: [], expected: 'NotFound 404' },
    { url: '/api/clubs/?format=CSV', offered: ['csv', 'xlsx'], expected: 'NotFound 404' },
    { url: '/api/clubs/?format=xls', offered: ['csv', 'xlsx'], expected: 'NotFound 404' },
    { url: '/api/clubs/?format=json', offered: ['csv', 'xlsx'], expected: 'json' },
    { url: '/api/clubs/', offered: ['csv', 'xlsx'], expected: 'json' }, // never from Accept alone
  ]
  test.each(rows)('$url offering $offered', ({ url, offered, expected }) => {
    let got: string
    try {
      got = negotiate(new URL(url, 'http://localhost').searchParams.get('format'), 'text/csv', offered)
    } catch (error) {
      if (!(error instanceof NotFound)) throw error
      got = `NotFound ${error.status}`
    }
    expect(got).toBe(expected)
  })
})
