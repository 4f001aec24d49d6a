// queryParam (src/edge/query-param.ts) reads a query parameter without a URLSearchParams: whatever
// it answers must be what URLSearchParams answers, and it may hand over (undefined) only when the
// query has something to decode; a query with nothing to decode it always reads itself.
import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { queryParam } from '../src/edge/query-param'

const NAMES = ['size', 'format', 's', 'sizes']
// Queries made of pairs whose keys are often the names asked for, with values that are hard to
// read: escapes (good and bad), '+', '=', '?' and empty parts.
const part = fc.constantFrom(
  ...NAMES,
  '',
  'si%7Ae',
  'size+',
  'S',
  '64',
  '256',
  '+',
  '%20',
  '%',
  '%zz',
  '=',
  '?',
  '.',
  '-',
)
const pair = fc
  .tuple(fc.array(part, { maxLength: 3 }), fc.option(fc.array(part, { maxLength: 3 })))
  .map(([key, value]) => key.join('') + (value === null ? '' : `=${value.join('')}`))
const query = fc
  .tuple(fc.constantFrom('', '?', '&'), fc.array(pair, { maxLength: 5 }))
  .map(([lead, pairs]) => lead + pairs.join('&'))
const needsDecoding = (search: string) => /[%+]/.test(search) || search.startsWith('?')

describe('queryParam', () => {
  it('answers what URLSearchParams answers, or hands over when there is something to decode', () => {
    fc.assert(
      fc.property(query, fc.constantFrom(...NAMES), (search, name) => {
        const got = queryParam(`http://localhost/api/logos/x.webp?${search}`, name)
        if (got === undefined) expect(needsDecoding(search)).toBe(true)
        else expect(got).toBe(new URLSearchParams(search).get(name))
      }),
      { numRuns: 5000 },
    )
  })

  it('reads the cases that matter by name', () => {
    const read = (url: string, name: string) => queryParam(`http://localhost${url}`, name)
    expect(read('/p', 'size')).toBeNull()
    expect(read('/p?', 'size')).toBeNull()
    expect(read('/p?size=64', 'size')).toBe('64')
    expect(read('/p?size=64&size=256', 'size')).toBe('64')
    expect(read('/p?sizes=1&size=256', 'size')).toBe('256')
    expect(read('/p?size', 'size')).toBe('')
    expect(read('/p?size=&format=json', 'format')).toBe('json')
    expect(read('/p?size=6=4', 'size')).toBe('6=4')
    expect(read('/p?&&size=64&', 'size')).toBe('64')
    expect(read('/p?size=6%34', 'size')).toBeUndefined()
    expect(read('/p?%73ize=1&size=64', 'size')).toBeUndefined()
    expect(read('/p?size=64&x=%20', 'size')).toBe('64')
    expect(read('/p??size=64', 'size')).toBeUndefined()
  })
})
