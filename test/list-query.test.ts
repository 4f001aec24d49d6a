// parseListQuery (src/domain/list-query.ts): a query string either fails as a whole, with every
// bad parameter named in the ValidationFailed body, or gives an order, filters, a page and a
// field selection. Each row is a query string and what it must give.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { Catalog } from '../src/domain/catalog'
import { ValidationFailed } from '../src/domain/errors'
import { parseInstant, parseListQuery, type ListQuery } from '../src/domain/list-query'
import type { ClubRecord, Tag } from '../src/model/club'
import { SEED_FILE } from '../harness/app'

const seed = JSON.parse(readFileSync(SEED_FILE, 'utf8')) as { clubs: ClubRecord[]; tags: Tag[] }
const catalog = new Catalog(seed.clubs, seed.tags)

function parse(query: string): ListQuery | { error: Record<string, unknown> } {
  try {
    return parseListQuery(new URLSearchParams(query), catalog)
  } catch (error) {
    if (error instanceof ValidationFailed) return { error: error.body }
    throw error
  }
}

const ORDER_HELP = 'use one of name, favorite_count, membership_count, founded, code, size, created_at, updated_at.'

describe('parseListQuery: what a query gives', () => {
  const rows: {
    query: string
    orderKey?: string
    page?: ListQuery['page']
    fields?: string[] | null
    predicates?: number
    /** How many of the sample clubs the filters keep. */
    matches?: number
  }[] = [
    { query: '', orderKey: '-favorite_count,name', page: null, fields: null, predicates: 0, matches: 80 },
    { query: 'ordering=name', orderKey: 'name' },
    { query: 'ordering=-founded,code', orderKey: '-founded,code' },
    { query: 'ordering=%20name%20,%20-size%20', orderKey: 'name,-size' },
    { query: 'ordering=,,code,', orderKey: 'code' },
    // An empty ordering is no ordering at all: only the code breaks ties.
    { query: 'ordering=', orderKey: '' },
    { query: 'page=2', page: { number: 2, size: 15 } },
    { query: 'page=1&page_size=7', page: { number: 1, size: 7 } },
    { query: 'page=1&page_size=1000', page: { number: 1, size: 100 } },
    { query: 'page=%203%20', page: { number: 3, size: 15 } },
    // page_size alone is not a page: it is not even read.
    { query: 'page_size=0', page: null },
    { query: 'fields=code,name', fields: ['code', 'name'] },
    { query: 'fields=name,%20code,name', fields: ['name', 'code'] },
    { query: 'fields=description', fields: ['description'] },
    { query: 'fields=', fields: null },
    { query: 'fields=,,', fields: null },
    { query: 'search=%20%20', predicates: 0, matches: 80 },
    { query: 'search=society', predicates: 1, matches: 11 },
    { query: 'search=penn%20society', predicates: 1, matches: 1 },
    { query: 'search=CAF%C3%89', matches: 1 }, // "CAFÉ" finds "Café Português": case and accents fold
    { query: 'search=academic', matches: 15 }, // tag names are searched too
    { query: 'tags=1', predicates: 1, matches: 15 },
    { query: 'tags=academic', matches: 15 },
    { query: 'tags=Academic,14', matches: 4 },
    { query: 'tags=1,9', matches: 0 },
    { query: 'tags=no-such-tag', matches: 0 },
    { query: 'accepting_members=false', predicates: 1, matches: 17 },
    { query: 'accepting_members=true', matches: 63 },
    { query: 'approved=false', matches: 5 },
    { query: 'approved=true', matches: 75 },
    { query: 'size=1,2', predicates: 1, matches: 45 },
    { query: 'size=%201%20,%202', matches: 45 },
    { query: 'active=true&size=4', predicates: 2, matches: 13 },
    // docs/reference.md §16
    { query: 'ordering=-updated_at,created_at', orderKey: '-updated_at,created_at' },
    { query: 'search=intercollegiate', matches: 1 }, // only in the chess society's description
    { query: 'code=penn-chess-society,no-such-club', predicates: 1, matches: 1 },
    { query: 'code=%20penn-chess-society%20,cafe-portugues', matches: 2 },
    { query: 'code=', predicates: 0, matches: 80 },
    { query: 'updated_since=2000-01-01', predicates: 1, matches: 80 },
    { query: 'updated_since=2999-01-01', matches: 0 },
  ]
  test.each(rows)('?$query', ({ query, orderKey, page, fields, predicates, matches }) => {
    const result = parse(query)
    if ('error' in result) throw new Error(`?${query} failed: ${JSON.stringify(result.error)}`)
    if (orderKey !== undefined) expect(result.order.key).toBe(orderKey)
    if (page !== undefined) expect(result.page).toEqual(page)
    if (fields !== undefined) expect(result.fields).toEqual(fields)
    if (predicates !== undefined) expect(result.predicates.length).toBe(predicates)
    if (matches !== undefined)
      expect([...catalog.live()].filter((e) => result.predicates.every((keep) => keep(e))).length).toBe(matches)
  })
})

const SINCE_HELP = 'Enter a date (YYYY-MM-DD) or a date-time (YYYY-MM-DDThh:mm:ss, then Z or an offset).'

describe('parseListQuery: what a query is refused for', () => {
  const rows: { query: string; error: Record<string, string[]> }[] = [
    { query: 'ordering=nope', error: { ordering: [`"nope" is not a field you can order by; ${ORDER_HELP}`] } },
    { query: 'ordering=-nope', error: { ordering: [`"nope" is not a field you can order by; ${ORDER_HELP}`] } },
    {
      query: 'ordering=name,description,-tags',
      error: {
        ordering: [
          `"description" is not a field you can order by; ${ORDER_HELP}`,
          `"tags" is not a field you can order by; ${ORDER_HELP}`,
        ],
      },
    },
    { query: 'ordering=Name', error: { ordering: [`"Name" is not a field you can order by; ${ORDER_HELP}`] } },
    { query: 'active=yes', error: { active: ['"yes" is not a valid boolean; use true or false.'] } },
    { query: 'approved=', error: { approved: ['"" is not a valid boolean; use true or false.'] } },
    // Only true and false, as the API docs offer them (docs/reference.md §6): no other spelling, case or padding.
    ...['1', '0', 'TRUE', 'False', '%20true%20'].map((value) => ({
      query: `accepting_members=${value}`,
      error: { accepting_members: [`"${decodeURIComponent(value)}" is not a valid boolean; use true or false.`] },
    })),
    {
      query: 'size=9',
      error: { size: ['"9" is not a valid choice; use one or more of 1, 2, 3, 4, separated by commas.'] },
    },
    {
      query: 'size=',
      error: { size: ['"" is not a valid choice; use one or more of 1, 2, 3, 4, separated by commas.'] },
    },
    {
      query: 'size=1,',
      error: { size: ['"1," is not a valid choice; use one or more of 1, 2, 3, 4, separated by commas.'] },
    },
    {
      query: 'recruiting_cycle=small',
      error: {
        recruiting_cycle: ['"small" is not a valid choice; use one or more of 1, 2, 3, 4, 5, separated by commas.'],
      },
    },
    { query: 'page=0', error: { page: ['A page number is a whole number from 1.'] } },
    { query: 'page=1.5', error: { page: ['A page number is a whole number from 1.'] } },
    { query: 'page=', error: { page: ['A page number is a whole number from 1.'] } },
    { query: 'page=1&page_size=0', error: { page_size: ['A page size is a whole number from 1 to 100.'] } },
    { query: 'page=1&page_size=-5', error: { page_size: ['A page size is a whole number from 1 to 100.'] } },
    {
      query: 'page=abc&page_size=x',
      error: {
        page: ['A page number is a whole number from 1.'],
        page_size: ['A page size is a whole number from 1 to 100.'],
      },
    },
    { query: 'fields=code,nope,also_nope', error: { fields: ['Unknown field(s): nope, also_nope.'] } },
    ...['yesterday', '', '2024-02-30', '2024-13-01', '2024-1-1', '2024-01-01T25:00', '2024-01-01T10:00+2'].map(
      (since) => ({ query: `updated_since=${encodeURIComponent(since)}`, error: { updated_since: [SINCE_HELP] } }),
    ),
    {
      // Every bad parameter is named at once, not only the first.
      query: 'ordering=x&active=maybe&page=-1&fields=y',
      error: {
        ordering: [`"x" is not a field you can order by; ${ORDER_HELP}`],
        active: ['"maybe" is not a valid boolean; use true or false.'],
        page: ['A page number is a whole number from 1.'],
        fields: ['Unknown field(s): y.'],
      },
    },
  ]
  test.each(rows)('?$query', ({ query, error }) => {
    const result = parse(query)
    expect('error' in result ? result.error : 'no error').toEqual(error)
  })
})

describe('parseInstant: the dates and date-times of ?updated_since=', () => {
  const rows: { text: string; instant: string | null }[] = [
    { text: '2024-06-27', instant: '2024-06-27T00:00:00.000Z' },
    { text: '2024-06-27T23:30:00Z', instant: '2024-06-27T23:30:00.000Z' },
    { text: '2024-06-27t23:30:00z', instant: '2024-06-27T23:30:00.000Z' },
    { text: '2024-06-27T23:30', instant: '2024-06-27T23:30:00.000Z' }, // no offset: UTC
    { text: '2024-06-27 23:30:00', instant: '2024-06-27T23:30:00.000Z' },
    { text: '2024-06-27T23:30:00.123456Z', instant: '2024-06-27T23:30:00.123Z' },
    { text: '2024-06-28T01:30:00+02:00', instant: '2024-06-27T23:30:00.000Z' },
    { text: '2024-06-28T01:30:00+0200', instant: '2024-06-27T23:30:00.000Z' },
    { text: '2024-06-27T20:30:00-03:00', instant: '2024-06-27T23:30:00.000Z' },
    // "?updated_since=2024-06-28T01:30:00+02:00" unencoded: the URL reads its "+" as a space.
    { text: '2024-06-28T01:30:00 02:00', instant: '2024-06-27T23:30:00.000Z' },
    { text: ' 2024-02-29 ', instant: '2024-02-29T00:00:00.000Z' },
    { text: '2023-02-29', instant: null },
    { text: '2024-04-31', instant: null },
    { text: '2024-00-10', instant: null },
    { text: '2024-06-27T24:00:00Z', instant: null },
    { text: '2024-06-27T23:60Z', instant: null },
    { text: '2024-06-27T23:30:00+25:00', instant: null },
    { text: '2024-06-27T', instant: null },
    { text: '27/06/2024', instant: null },
    { text: '1719531000', instant: null },
    { text: 'now', instant: null },
  ]
  test.each(rows)('"$text"', ({ text, instant }) => {
    const at = parseInstant(text)
    expect(at === null ? null : new Date(at).toISOString()).toBe(instant)
  })

  test('keeps the clubs updated at or after the instant, and no others', () => {
    const [first, ...rest] = [...catalog.live()].map((e) => e.record.updated_at).sort()
    for (const since of [first!, rest[20]!, rest.at(-1)!]) {
      const query = parse(`updated_since=${encodeURIComponent(since)}`)
      if ('error' in query) throw new Error(JSON.stringify(query.error))
      const kept = [...catalog.live()].filter((e) => query.predicates.every((keep) => keep(e)))
      expect(kept.length).toBe([first, ...rest].filter((at) => at >= since).length)
      expect(kept.length).toBeGreaterThan(0)
    }
  })
})
