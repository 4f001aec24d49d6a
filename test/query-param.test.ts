// queryParam (src/edge/query-param.ts) reads a query parameter without a URLSearchParams: whatever
// it answers must be what URLSearchParams answers, and it must hand over (undefined) exactly when
// the query has something to decode.
import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { queryParam } from '../src/edge/query-param'

const NAMES = ['size', 'format', 's', 'sizes']
// Characters that make query strings hard: separators, escapes, '+', '?', and parts of the names.
const query = fc.stringMatching(/^[sizeformat0-9=&?%+.-]{0,24}$/)
const needsDecoding = (search: string) => /[%+]/.test(search) || search.startsWith('?')

describe('queryParam', () => {
  it('answers what URLSearchParams answers, or hands over when there is something to decode', () => {
    fc.assert(
      fc.property(query, fc.constantFrom(...NAMES), (search, name) => {
        const got = queryParam(`http://localhost/api/logos/x.webp?${search}`, name)
        if (needsDecoding(search)) expect(got).toBeUndefined()
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
    expect(read('/p??size=64', 'size')).toBeUndefined()
  })
})
