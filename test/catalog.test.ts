// The kept-sorted orders of Catalog (src/domain/catalog.ts): sortedBy(order) sorts the live
// clubs once and then keeps that array in order on every put, change and revert, instead of
// sorting per request; at most 16 orders are kept, the least recently used one goes first.
// Orders come from the list query (parseListQuery(params, catalog).order), as the service
// builds them. After every step of every row, each kept order must be the very array sortedBy
// gave before and equal a fresh sort of the live clubs.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { Catalog, type Entry, type Order } from '../src/domain/catalog'
import { parseListQuery } from '../src/domain/list-query'
import type { ClubRecord, Tag } from '../src/model/club'
import { SEED_FILE } from '../harness/app'

const seed = JSON.parse(readFileSync(SEED_FILE, 'utf8')) as { clubs: ClubRecord[]; tags: Tag[] }
const byCode = new Map(seed.clubs.map((c) => [c.code, c]))
const club = (code: string, changes: Partial<ClubRecord> = {}): ClubRecord => {
  const record = byCode.get(code)
  if (!record) throw new Error(`no sample club ${code}`)
  return { ...record, ...changes }
}
const codes = (entries: readonly Entry[]) => entries.map((e) => e.record.code)
const orderFor = (catalog: Catalog, ordering: string): Order =>
  parseListQuery(new URLSearchParams({ ordering }), catalog).order
const freshSort = (catalog: Catalog, order: Order) => codes([...catalog.live()].sort(order.compare))

/** The orders every row keeps: the default, each field both ways, ties broken by later keys, and none. */
const KEPT = [
  '-favorite_count,name',
  'name',
  '-name',
  'founded',
  '-founded,name',
  'size,-membership_count',
  'membership_count',
  'code',
  '-code',
  '',
]

/** The first three sample codes in code order. */
const [FIRST, SECOND, THIRD] = seed.clubs.map((c) => c.code).sort()
const TOP = [...seed.clubs].sort((a, b) => b.favorite_count - a.favorite_count)[0]!
const NEW: ClubRecord = {
  ...club(FIRST!),
  code: 'zz-new-club',
  name: 'Aardvark Appreciation',
  favorite_count: TOP.favorite_count + 1,
  founded: null,
  archived_at: null,
}
const ARCHIVED = '2026-11-01T00:00:00.000Z'

type Step =
  | { put: ClubRecord }
  | { change: ClubRecord; as: string }
  | { revert: string }
  /** The code must be at this place (0 first, -1 last) in the order, or absent (null). */
  | { expect: { ordering: string; code: string; at: number | null } }

describe('Catalog: kept orders stay sorted', () => {
  const rows: { name: string; steps: Step[] }[] = [
    {
      name: 'a new club goes to its place in every order',
      steps: [
        { change: NEW, as: 'new' },
        { expect: { ordering: '-favorite_count,name', code: NEW.code, at: 0 } },
        { expect: { ordering: 'name', code: NEW.code, at: 0 } },
        { expect: { ordering: '-code', code: NEW.code, at: 0 } },
        { expect: { ordering: 'founded', code: NEW.code, at: -1 } }, // no date sorts last
      ],
    },
    {
      name: 'a renamed club moves',
      steps: [
        { change: club(SECOND!, { name: 'AAAA First by name' }), as: 'a' },
        { expect: { ordering: 'name', code: SECOND!, at: 0 } },
        { change: club(SECOND!, { name: 'zzzz Last by name' }), as: 'b' },
        { expect: { ordering: 'name', code: SECOND!, at: -1 } },
        { expect: { ordering: '-name', code: SECOND!, at: 0 } },
      ],
    },
    {
      name: 'ties on every key are broken by the code',
      steps: [
        { put: { ...club(THIRD!), code: 'aaa-twin' } },
        { put: { ...club(THIRD!), code: 'zzz-twin' } },
        { change: club(THIRD!, { favorite_count: 143 }), as: 'tie' },
      ],
    },
    {
      name: 'a date set to none and back',
      steps: [
        { change: club(FIRST!, { founded: null, name: 'AAAA' }), as: 'none' },
        { expect: { ordering: '-founded,name', code: FIRST!, at: 0 } },
        { change: club(FIRST!, { founded: '1740-01-01' }), as: 'old' },
        { expect: { ordering: 'founded', code: FIRST!, at: 0 } },
      ],
    },
    {
      name: 'an archived club leaves every order, and comes back when restored',
      steps: [
        { change: club(SECOND!, { archived_at: ARCHIVED }), as: 'archive' },
        { expect: { ordering: 'name', code: SECOND!, at: null } },
        { expect: { ordering: '', code: SECOND!, at: null } },
        { change: club(SECOND!, { archived_at: null, membership_count: 0 }), as: 'restore' },
        { expect: { ordering: 'membership_count', code: SECOND!, at: 0 } },
      ],
    },
    {
      name: 'a change to an archived club stays out of every order',
      steps: [
        { change: club(THIRD!, { archived_at: ARCHIVED }), as: 'archive' },
        { put: club(THIRD!, { archived_at: ARCHIVED, name: 'AAAA Archived' }) },
        { expect: { ordering: 'name', code: THIRD!, at: null } },
      ],
    },
    {
      name: 'reverting a new club takes it out again',
      steps: [
        { change: NEW, as: 'new' },
        { revert: 'new' },
        { expect: { ordering: 'name', code: NEW.code, at: null } },
      ],
    },
    {
      name: 'reverting changes newest first puts every club back',
      steps: [
        { change: club(FIRST!, { name: 'AAAA', favorite_count: 0 }), as: 'a1' },
        { change: club(FIRST!, { name: 'ZZZZ', favorite_count: 10_000, size: 4 }), as: 'a2' },
        { change: NEW, as: 'new' },
        { change: club(SECOND!, { archived_at: ARCHIVED }), as: 'archive' },
        { revert: 'archive' },
        { expect: { ordering: 'code', code: SECOND!, at: 1 } },
        { revert: 'new' },
        { revert: 'a2' },
        { revert: 'a1' },
        { expect: { ordering: 'code', code: FIRST!, at: 0 } },
      ],
    },
    {
      name: 'a put (not a change) moves the club too',
      steps: [{ put: club(THIRD!, { size: 4, membership_count: 0, favorite_count: 0 }) }],
    },
  ]

  test.each(rows)('$name', ({ steps }) => {
    const catalog = new Catalog(seed.clubs, seed.tags)
    const orders = KEPT.map((ordering) => orderFor(catalog, ordering))
    const kept = orders.map((order) => catalog.sortedBy(order))
    const initial = orders.map((order) => codes(catalog.sortedBy(order)))
    const undo = new Map<string, () => void>()
    const check = (after: string) => {
      orders.forEach((order, i) => {
        const view = catalog.sortedBy(order)
        expect(`${after}: "${order.key}" is the kept array: ${view === kept[i]}`).toBe(
          `${after}: "${order.key}" is the kept array: true`,
        )
        expect(codes(view)).toEqual(freshSort(catalog, order))
      })
    }
    for (const [n, step] of steps.entries()) {
      const label = `step ${n + 1}`
      if ('put' in step) catalog.put(step.put)
      else if ('change' in step) undo.set(step.as, catalog.change(step.change))
      else if ('revert' in step) undo.get(step.revert)!()
      else {
        const { ordering, code, at } = step.expect
        const list = codes(catalog.sortedBy(orderFor(catalog, ordering)))
        const where = list.indexOf(code)
        const expected = at === null ? -1 : at < 0 ? list.length + at : at
        expect(`${label}: ${code} in "${ordering}" at ${where}`).toBe(
          `${label}: ${code} in "${ordering}" at ${expected}`,
        )
      }
      check(label)
    }
    if (steps.every((s) => !('put' in s)) && steps.filter((s) => 'revert' in s).length === undo.size)
      // Every change taken back: each order is as it began.
      orders.forEach((order, i) => expect(codes(catalog.sortedBy(order))).toEqual(initial[i]!))
  })

  test('the orders of the table are distinct', () => {
    expect(new Set(KEPT.map((o) => orderFor(new Catalog([], seed.tags), o).key)).size).toBe(KEPT.length)
  })
})

describe('Catalog: at most 16 orders are kept, least recently used out first', () => {
  // Seventeen and more distinct orders; each row touches them (by index) in order, then a new
  // club is stored: the arrays of kept orders take it in, those of dropped ones do not.
  const ORDERINGS = [
    ...['name', 'favorite_count', 'membership_count', 'founded', 'code', 'size'].flatMap((f) => [f, `-${f}`]),
    'size,name',
    '-size,name',
    'founded,-name',
    'membership_count,-code',
    'favorite_count,name',
    '-favorite_count,-name',
  ]
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)
  const rows: { name: string; touches: number[]; dropped: number[] }[] = [
    { name: 'sixteen orders are all kept', touches: range(0, 15), dropped: [] },
    { name: 'the seventeenth drops the first', touches: range(0, 16), dropped: [0] },
    { name: 'a use refreshes an order', touches: [...range(0, 15), 0, 16], dropped: [1] },
    { name: 'two more drop the two oldest', touches: range(0, 17), dropped: [0, 1] },
    { name: 'using one order again and again keeps one', touches: [3, 3, 3], dropped: [] },
    {
      name: 'a dropped order asked for again is sorted anew and drops the next oldest',
      touches: [...range(0, 16), 0],
      dropped: [1],
    },
    {
      name: 'the least recently used, not the first asked for',
      touches: [...range(0, 15), 0, 1, 2, 16, 17],
      dropped: [3, 4],
    },
  ]
  test.each(rows)('$name', ({ touches, dropped }) => {
    const catalog = new Catalog(seed.clubs, seed.tags)
    const orders = ORDERINGS.map((ordering) => orderFor(catalog, ordering))
    const views = new Map<number, readonly Entry[]>()
    for (const i of touches) views.set(i, catalog.sortedBy(orders[i]!))
    catalog.put(NEW)
    const droppedNow = [...views].filter(([, view]) => !codes(view).includes(NEW.code)).map(([i]) => i)
    expect(droppedNow.sort((a, b) => a - b)).toEqual(dropped)
    // Kept or not, what sortedBy answers now is right.
    for (const i of new Set(touches))
      expect(codes(catalog.sortedBy(orders[i]!))).toEqual(freshSort(catalog, orders[i]!))
  })
})
