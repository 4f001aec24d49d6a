import { ValidationFailed } from './errors'
import type { Catalog, Entry, Order } from './catalog'
import { fold } from './code'
import { freeSlotsTest, parseDays, parseSlots, type WeekSpan } from './week-slots'
import {
  APPLICATION_REQUIRED,
  DETAIL_FIELDS,
  LIST_FIELDS,
  RECRUITING_CYCLES,
  SIZES,
  type ClubRecord,
} from '../model/club'

export const ORDERING_FIELDS = [
  'name',
  'favorite_count',
  'membership_count',
  'founded',
  'code',
  'size',
  'created_at',
  'updated_at',
] as const
type OrderingField = (typeof ORDERING_FIELDS)[number]
export const BOOLEAN_FILTERS = [
  'accepting_members',
  'appointment_needed',
  'available_virtually',
  'enables_subscription',
  'is_school_unit',
  'approved',
  'active',
] as const
export const CODED_FILTERS = {
  size: SIZES,
  application_required: APPLICATION_REQUIRED,
  recruiting_cycle: RECRUITING_CYCLES,
} as const
export const DEFAULT_ORDERING = '-favorite_count,name'
export const DEFAULT_PAGE_SIZE = 15
export const MAX_PAGE_SIZE = 100

type Key = { field: OrderingField; descending: boolean }
type Predicate = (entry: Entry) => boolean

/** A parsed, validated list query (docs/reference.md §6, §16). */
export interface ListQuery {
  readonly order: Order
  readonly predicates: readonly Predicate[]
  /** With a search and no ?ordering=: each club's relevance tier, 0 first (docs/reference.md §16). */
  readonly relevance: ((entry: Entry) => number) | null
  readonly page: { number: number; size: number } | null
  readonly fields: readonly string[] | null
}

export function parseListQuery(params: URLSearchParams, catalog: Catalog): ListQuery {
  const errors: Record<string, string[]> = {}
  const fail = (param: string, message: string) => (errors[param] ??= []).push(message)
  const value = (param: string) => params.get(param) ?? undefined

  const ordering = value('ordering')
  const order = orderOf(parseOrdering(ordering ?? DEFAULT_ORDERING, (m) => fail('ordering', m)))
  const predicates: Predicate[] = []
  let relevance: ListQuery['relevance'] = null

  const terms = fold(value('search') ?? '')
    .split(/\s+/)
    .filter(Boolean)
  if (terms.length) {
    const holding = terms.map((term) => catalog.holding(term))
    predicates.push((e) => holding.every((matched) => matched[e.position] === 1))
    if (ordering === undefined) relevance = relevanceOf(terms)
  }
  const tags = value('tags')
  if (tags) predicates.push(tagPredicate(tags, catalog))
  const codes = value('code')
  if (codes) {
    const wanted = new Set(codes.split(',').map((code) => code.trim()))
    predicates.push((e) => wanted.has(e.record.code))
  }
  const updatedSince = value('updated_since')
  if (updatedSince !== undefined) {
    const since = parseInstant(updatedSince)
    if (since === null)
      fail('updated_since', 'Enter a date (YYYY-MM-DD) or a date-time (YYYY-MM-DDThh:mm:ss, then Z or an offset).')
    else predicates.push((e) => Date.parse(e.record.updated_at) >= since)
  }

  // By time (docs/reference.md §24): from the minute ranges the catalog keeps per club.
  const meetsOn = value('meets_on')
  if (meetsOn !== undefined) {
    const parsed = parseDays(meetsOn)
    if ('problem' in parsed) fail('meets_on', parsed.problem)
    else predicates.push((e) => (e.week.days & parsed.days) !== 0)
  }
  const free = value('free')
  if (free !== undefined) {
    const parsed = parseSlots(free)
    if ('problem' in parsed) fail('free', parsed.problem)
    else predicates.push(freePredicate(parsed.slots, catalog))
  }

  for (const name of BOOLEAN_FILTERS) {
    const raw = value(name)
    if (raw === undefined) continue
    const wanted = parseBoolean(raw)
    if (wanted === null) fail(name, `"${raw}" is not a valid boolean; use true or false.`)
    else predicates.push((e) => e.record[name] === wanted)
  }
  for (const [name, codes] of Object.entries(CODED_FILTERS) as [keyof typeof CODED_FILTERS, Record<number, string>][]) {
    const raw = value(name)
    if (raw === undefined) continue
    const wanted = raw.split(',').map((part) => Number(part.trim()))
    if (raw.trim() === '' || wanted.some((n) => !Number.isInteger(n) || !(n in codes)))
      fail(
        name,
        `"${raw}" is not a valid choice; use one or more of ${Object.keys(codes).join(', ')}, separated by commas.`,
      )
    else predicates.push((e) => wanted.includes(e.record[name]))
  }

  const page = parsePage(value('page'), value('page_size'), fail)
  const fields = parseFields(value('fields'), (m) => fail('fields', m))
  if (Object.keys(errors).length) throw new ValidationFailed(errors)

  return { order, predicates, relevance, page, fields }
}

/**
 * `free=` over the catalog's week index: the clubs that fit marked once per query by reading only
 * the meetings that start inside a slot, so each club costs one typed-array read. A club the index
 * does not hold as it is given (another state of the catalog, or not from it) takes the
 * straightforward test, so the answer is the same either way.
 */
function freePredicate(slots: readonly WeekSpan[], catalog: Catalog): Predicate {
  const { index, entries } = catalog.weekIndexed()
  const marks = index.fitting(slots)
  const fits = freeSlotsTest(slots)
  return (e) => (entries[e.position] === e ? marks[e.position] === 1 : fits(e.week))
}

/**
 * The tiers of docs/reference.md §16: 0 when the name or code holds every term, 1 when name, code, subtitle
 * and tag names do, 2 when the description is needed.
 */
function relevanceOf(terms: readonly string[]): (entry: Entry) => number {
  return (e) => {
    if (terms.every((term) => e.nameKey.includes(term) || e.record.code.includes(term))) return 0
    return terms.every((term) => e.haystack.includes(term)) ? 1 : 2
  }
}

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i

/**
 * `updated_since`: a date (its first moment, UTC) or a date-time; one without an offset is UTC.
 * A "+" that the URL turned into a space before the offset is read as the "+" it was. Null when
 * malformed, or not a real calendar date and time.
 */
export function parseInstant(raw: string): number | null {
  const m = INSTANT.exec(raw.trim().replace(/(\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?) (\d{2}:?\d{2})$/, '$1+$2'))
  if (!m) return null
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '', zone = 'Z'] = m
  const daysInMonth = new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate()
  if (+month < 1 || +month > 12 || +day < 1 || +day > daysInMonth || +hour > 23 || +minute > 59 || +second > 59)
    return null
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(-2)}`
  const at = Date.parse(`${year}-${month}-${day}T${hour}:${minute}:${second}${fraction.slice(0, 4)}${offset}`)
  return Number.isNaN(at) ? null : at
}

function parseOrdering(raw: string, fail: (message: string) => void): Key[] {
  const keys: Key[] = []
  for (const part of raw.split(',')) {
    const term = part.trim()
    if (!term) continue
    const descending = term.startsWith('-')
    const field = descending ? term.slice(1) : term
    if (!(ORDERING_FIELDS as readonly string[]).includes(field)) {
      fail(`"${field}" is not a field you can order by; use one of ${ORDERING_FIELDS.join(', ')}.`)
      continue
    }
    keys.push({ field: field as OrderingField, descending })
  }
  return keys
}

/** Exactly `true` or `false` (docs/reference.md §6), as the API docs offer them: no other spelling is a boolean. */
function parseBoolean(raw: string): boolean | null {
  return raw === 'true' ? true : raw === 'false' ? false : null
}

function tagPredicate(raw: string, catalog: Catalog): Predicate {
  const ids = raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => (/^\d+$/.test(part) ? Number(part) : (catalog.tagByName(part)?.id ?? -1)))
  return (e) => ids.every((id) => e.record.tags.includes(id))
}

function parsePage(
  rawPage: string | undefined,
  rawSize: string | undefined,
  fail: (param: string, message: string) => void,
): ListQuery['page'] {
  if (rawPage === undefined) return null
  const number = /^\d+$/.test(rawPage.trim()) ? Number(rawPage) : NaN
  if (!(number >= 1)) fail('page', 'A page number is a whole number from 1.')
  let size = DEFAULT_PAGE_SIZE
  if (rawSize !== undefined) {
    size = /^\d+$/.test(rawSize.trim()) ? Math.min(Number(rawSize), MAX_PAGE_SIZE) : NaN
    if (!(size >= 1)) fail('page_size', `A page size is a whole number from 1 to ${MAX_PAGE_SIZE}.`)
  }
  return { number, size }
}

const SELECTABLE = new Set<string>([...LIST_FIELDS, ...DETAIL_FIELDS])

/** `?fields=a,b` on its own, for the detail endpoint: the selection, or a 400 naming `fields`. */
export function parseFieldSelection(params: URLSearchParams): string[] | null {
  return parseFields(params.get('fields') ?? undefined, (message) => {
    throw new ValidationFailed({ fields: [message] })
  })
}

function parseFields(raw: string | undefined, fail: (message: string) => void): string[] | null {
  if (raw === undefined) return null
  const fields = [
    ...new Set(
      raw
        .split(',')
        .map((f) => f.trim())
        .filter(Boolean),
    ),
  ]
  const unknown = fields.filter((f) => !SELECTABLE.has(f))
  if (unknown.length) fail(`Unknown field(s): ${unknown.join(', ')}.`)
  return fields.length ? fields : null
}

const compareValues = (a: string | number | null, b: string | number | null): number =>
  a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1

function sortValue(entry: Entry, field: OrderingField): string | number | null {
  return field === 'name' ? entry.nameKey : (entry.record as ClubRecord)[field]
}

/** The order `keys` name, ended by `code` so it is total and stable. */
function orderOf(keys: readonly Key[]): Order {
  return {
    key: keys.map(({ field, descending }) => (descending ? '-' : '') + field).join(','),
    compare: (a, b) => {
      for (const { field, descending } of keys) {
        const c = compareValues(sortValue(a, field), sortValue(b, field))
        if (c !== 0) return descending ? -c : c
      }
      return a.record.code < b.record.code ? -1 : a.record.code > b.record.code ? 1 : 0
    },
  }
}

/** The clubs of `sorted` (already in the query's order) that `visible` lets through and the query keeps. */
export function applyListQuery(sorted: readonly Entry[], visible: Predicate, query: ListQuery): Entry[] {
  const { predicates } = query
  // Plain loops: this runs over every club on each list made (no closure per club and filter).
  const kept: Entry[] = []
  next: for (let i = 0; i < sorted.length; i++) {
    const entry = sorted[i]!
    if (!visible(entry)) continue
    for (let p = 0; p < predicates.length; p++) if (!predicates[p]!(entry)) continue next
    kept.push(entry)
  }
  return kept
}

/** `matched` (in the query's order) with the most relevant first when the query ranks; each tier keeps that order. */
export function inRelevanceOrder(matched: Entry[], query: ListQuery): Entry[] {
  const { relevance } = query
  if (!relevance) return matched
  const tiers: Entry[][] = [[], [], []]
  for (const entry of matched) tiers[relevance(entry)]!.push(entry)
  return tiers.flat()
}
