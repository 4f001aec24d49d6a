// safeNext (src/site/safe-next.ts): where the site sends a browser after signing in. Read as the
// browser reads a URL (WHATWG: tabs, CR and LF dropped anywhere, `\` as `/`), `next` must stay on
// this site, or it is `/`; what it answers is fit for a Location header (visible ASCII only).
import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { safeNext } from '../src/site/safe-next'

const SITE = 'https://clubs.example.edu'

describe('safeNext', () => {
  it.each([
    // Kept: a path of this site, with its query and fragment.
    ['/clubs/abc?x=1#y', '/clubs/abc?x=1#y'],
    ['/', '/'],
    ['/clubs/penn-chess-society', '/clubs/penn-chess-society'],
    ['/clubs/abc?tags=a%2Cb', '/clubs/abc?tags=a%2Cb'],
    // Kept as the browser would send it: percent-encoded.
    ['/clubs/café', '/clubs/caf%C3%A9'],
    ['/clubs/a b', '/clubs/a%20b'],
    ['/a\0b', '/a%00b'],
    ['/clubs/\ud800x', '/clubs/%EF%BF%BDx'],
    // A tab, CR or LF is dropped wherever it is.
    ['/clu\tbs/a\r\nbc', '/clubs/abc'],
    ['/x\r\nSet-Cookie: a=b', '/xSet-Cookie:%20a=b'],
    ['/' + 'a'.repeat(2047), '/' + 'a'.repeat(2047)],
  ])('keeps %j as %j', (next, kept) => {
    expect(safeNext(next)).toBe(kept)
  })

  it.each([
    null,
    '',
    // Another host, once the browser has read it.
    '//evil.example',
    '//evil.example/clubs',
    '/\\evil.example',
    '\\\\evil.example',
    '/\t/evil.example', // /%09/evil.example, decoded
    '/\n/evil.example',
    '/\r/evil.example',
    '/\r\n/evil.example',
    '\t//evil.example',
    '/\t\\evil.example',
    '/.//evil.example', // the path `//evil.example`
    '/..//evil.example',
    // Another origin, or no path of this site.
    'https://evil.example',
    'https:evil.example',
    'http://evil.example/clubs',
    'javascript:alert(1)',
    ' javascript:alert(1)',
    'clubs/abc',
    '?x=1',
    '\0/clubs',
    // Past 2,048 characters, before or after percent-encoding.
    '/' + 'a'.repeat(2048),
    '/' + 'é'.repeat(400),
    '/\t/[::',
  ])('sends %j to /', (next) => {
    expect(safeNext(next)).toBe('/')
  })

  it('answers a path of this site in visible ASCII, whatever it is given, and keeps that path as it is', () => {
    const piece = fc.constantFrom(
      '/',
      '\\',
      '\t',
      '\r',
      '\n',
      '\0',
      '.',
      '..',
      ':',
      '@',
      '?',
      '#',
      '%09',
      'evil.example',
      'é',
      '\ud800',
      ' ',
    )
    const rest = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.array(piece, { maxLength: 8 }).map((parts) => parts.join('')),
    )
    const next = fc.tuple(fc.constantFrom('', '/'), rest).map(([lead, tail]) => lead + tail)
    fc.assert(
      fc.property(next, (given) => {
        const kept = safeNext(given)
        expect(kept).toMatch(/^\/(?![/\\])[\x21-\x7e]*$/)
        expect(new URL(kept, SITE).origin).toBe(SITE)
        // The sign-in form sends it back in a hidden field: kept as it is then.
        expect(safeNext(kept)).toBe(kept)
      }),
    )
  })
})
