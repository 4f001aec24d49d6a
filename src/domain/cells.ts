import type { TSchema } from '@sinclair/typebox'
import { ClubPatch } from '../model/club'
import type { Interested } from './interests'
import type { Subscriber } from './members'
import { ROUND_CLUB_COLUMNS, type RoundClub } from '../model/registration-round'

// A club as spreadsheet cells and back (docs/reference.md §15): what an export writes in each cell, and
// what an imported cell means for the field of its column.

/** One cell of an exported table: text, or a number. */
export type Cell = string | number

/**
 * A text no spreadsheet may take for a formula. A cell beginning with `=`, `+`, `-`, `@`, a tab or
 * a carriage return gets a leading `'`; so does one whose `'`s come before such a character, so
 * that `undefuse` gives back every text exactly.
 */
export const defuse = (text: string): string => (/^'*[=+\-@\t\r]/.test(text) ? `'${text}` : text)

/** The text `defuse` was given: drops the one `'` it added. */
export const undefuse = (cell: string): string => (/^'+[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell)

/** What XML 1.0 cannot hold: C0 controls but tab, LF and CR; lone surrogates; U+FFFE and U+FFFF. */
export const NOT_XML = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu

/**
 * A cell as an XLSX file (XML) can hold it: the characters XML may not hold dropped (exceljs
 * writes them, and then cannot read the file back), and defused again for what is left. CSV and
 * JSON keep them: the text stays as it was written.
 */
export function xmlCell(cell: Cell): Cell {
  if (typeof cell === 'number' || cell.search(NOT_XML) < 0) return cell
  return defuse(undefuse(cell).replace(NOT_XML, ''))
}

const isTag = (item: unknown) => typeof (item as { name?: unknown } | null)?.name === 'string'

/**
 * A value of a club's representation as a cell: booleans true/false, null empty, tags by name
 * joined with "; ", any other list or object (meetings) as JSON text.
 */
export function toCell(value: unknown): Cell {
  if (typeof value === 'number') return value
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (value === null || value === undefined) return ''
  if (typeof value === 'string') return defuse(value)
  if (Array.isArray(value) && value.every(isTag))
    return defuse(value.map((tag: { name: string }) => tag.name).join('; '))
  return defuse(JSON.stringify(value))
}

/** The table of `items` (club representations): a header row naming `columns`, then a row per club. */
export function tableOf(columns: readonly string[], items: readonly Record<string, unknown>[]): Cell[][] {
  return [columns.slice(), ...rowsOf(columns, items)]
}

/** A row per item (a club representation), its cells in the order of `columns`. */
export const rowsOf = (columns: readonly string[], items: readonly Record<string, unknown>[]): Cell[][] =>
  items.map((item) => columns.map((column) => toCell(item[column])))

type Kind = 'text' | 'nullable' | 'boolean' | 'integer' | 'tags' | 'json'

function kindOf(field: string, schema: TSchema): Kind {
  if (field === 'tags') return 'tags'
  if (schema.type === 'array') return 'json'
  if (schema.type === 'boolean') return 'boolean'
  if (schema.type === 'integer') return 'integer'
  return (schema.anyOf as TSchema[] | undefined)?.some((variant) => variant.type === 'null') ? 'nullable' : 'text'
}

/** How a cell reads in each column a club write takes, from the schema of a PATCH. */
const KINDS: ReadonlyMap<string, Kind> = new Map(
  Object.entries(ClubPatch.properties).map(([field, schema]) => [field, kindOf(field, schema as TSchema)]),
)

/** The columns an import writes: the fields of a club PATCH. */
export const isWritableColumn = (column: string): boolean => KINDS.has(column)

/**
 * What an imported cell of a writable column means: text as written (less the `'` an export
 * adds), empty as null where null is allowed, `true`/`false` (any case), whole numbers, tag
 * names separated by `;`, and a list (meetings) as JSON text, empty for none. An empty boolean or
 * number cell leaves the field as it is (undefined). Anything else stays text, for the club's own
 * checks to name.
 */
export function fromCell(column: string, cell: string): unknown {
  switch (KINDS.get(column)) {
    case 'boolean': {
      const word = cell.trim().toLowerCase()
      return word === 'true' ? true : word === 'false' ? false : word === '' ? undefined : cell
    }
    case 'integer':
      return /^\s*\d+\s*$/.test(cell) ? Number(cell) : cell.trim() === '' ? undefined : cell
    case 'nullable':
      return cell === '' ? null : undefuse(cell)
    case 'json':
      return cell.trim() === '' ? [] : jsonOr(undefuse(cell))
    case 'tags':
      return undefuse(cell)
        .split(';')
        .map((name) => name.trim())
        .filter(Boolean)
        .map((name) => ({ name }))
    default:
      return undefuse(cell)
  }
}

/** The value a JSON text holds, or the text itself when it holds none. */
function jsonOr(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

export const SUBSCRIBER_COLUMNS = ['username', 'email', 'subscribed_at'] as const

/** A club's subscribers as a table in chunks: the header, then a row each (text cells defused as the club list's are). */
export const subscriberTable = (subscribers: readonly Subscriber[]): Cell[][][] => [
  [[...SUBSCRIBER_COLUMNS]],
  subscribers.map((subscriber) => SUBSCRIBER_COLUMNS.map((column) => toCell(subscriber[column]))),
]

export const INTEREST_COLUMNS = ['id', 'name', 'email', 'created_at'] as const

/** The students interested in a club as a table in chunks: the header, then a row each, newest first (docs/reference.md §23). */
export const interestTable = (entries: readonly Interested[]): Cell[][][] => [
  [[...INTEREST_COLUMNS]],
  rowsOf(INTEREST_COLUMNS, entries),
]

/** The open re-registration round's clubs as a table in chunks: the header, then a row each (docs/reference.md §23). */
export const roundClubTable = (clubs: readonly RoundClub[]): Cell[][][] => [
  [[...ROUND_CLUB_COLUMNS]],
  clubs.map((club) => ROUND_CLUB_COLUMNS.map((column) => toCell(club[column]))),
]
