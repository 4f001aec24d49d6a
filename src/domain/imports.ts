import { requireUser, type Caller } from './caller'
import { fromCell, isWritableColumn } from './cells'
import type { FieldErrors } from './check'
import type { ClubChange, ClubService } from './clubs'
import type { TagService } from './tags'
import { ApiError, PermissionDenied, ValidationFailed } from './errors'
import type { Commit, Undo } from './journal'
import { DETAIL_FIELDS, LIST_FIELDS, type ClubRecord } from '../model/club'
import { HIDDEN_EMAIL } from './represent'

/** An import's body as the edge read it: a table of text cells (CSV), a parsed JSON value, or nothing at all. */
export type ImportSource =
  | { readonly kind: 'table'; readonly columns: readonly string[]; readonly rows: readonly (readonly string[])[] }
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'empty' }

export interface ImportCounts {
  readonly created: number
  readonly updated: number
  readonly unchanged: number
  /** The tags the rows named that did not exist, made by the import (or that a dry run would make). */
  readonly tags_created: readonly string[]
}

/** The bad rows an answer names; past them it only counts, so a file of bad rows answers in bounded size and memory. */
export const MAX_ROWS_SHOWN = 1000

/**
 * An import refused for its rows (CONTRACT §15): the first bad rows' field errors, by row number
 * from 1, and how many more bad rows there are when that is not all of them.
 */
class InvalidRows extends ApiError {
  constructor(rows: Record<string, FieldErrors>, notShown: number) {
    super(400, notShown ? { rows, rows_not_shown: notShown } : { rows })
  }
}

/** One row of an import, numbered from 1 (a CSV header not counted): a club write, or why it is none. */
type Row = { readonly number: number } & ({ readonly body: unknown } | { readonly errors: FieldErrors })

/** Columns an export may hold: every field of a club's representations; the read-only ones are ignored. */
const KNOWN_COLUMNS: ReadonlySet<string> = new Set([...LIST_FIELDS, ...DETAIL_FIELDS])
const isKnownColumn = (column: string) => KNOWN_COLUMNS.has(column) || isWritableColumn(column)

const refuse = (message: string) => new ValidationFailed({ non_field_errors: [message] })

/**
 * Imports (CONTRACT §15): each row a PATCH of the club with its code, or a create (approved unless
 * the row says otherwise; the code made from the name when the row has none), the tags it names
 * made when missing; all rows or none, in one journal commit, so one snapshot write.
 */
export class ImportService {
  constructor(
    private readonly clubs: ClubService,
    private readonly tags: TagService,
    private readonly commit: Commit,
  ) {}

  async run(caller: Caller, source: ImportSource, dryRun: boolean): Promise<ImportCounts> {
    const user = requireUser(caller)
    if (!user.isAdmin) throw new PermissionDenied()
    const rows = rowsOf(source)
    let counts: ImportCounts | undefined
    const apply = () => {
      const applied = this.#applyAll(user, rows)
      counts = applied.counts
      return applied.undo
    }
    if (dryRun) undoAll(apply())
    else await this.commit(apply)
    return counts!
  }

  /**
   * Makes each row's change in turn, each checked against the directory as the rows before left
   * it (two rows cannot take one name); every row is checked. Any bad row takes every change back
   * and refuses the import.
   */
  #applyAll(user: Caller & { username: string }, rows: Iterable<Row>) {
    const undo: Undo[] = []
    const bad = new BadRows()
    const counts = { created: 0, updated: 0, unchanged: 0, tags_created: [] as string[] }
    const rowOfCode = new Map<string, number>()
    try {
      for (const row of rows) {
        if ('errors' in row) {
          bad.add(row.number, row.errors)
          continue
        }
        const body = row.body
        // A tag the row names that does not exist is made (a write of the club alone refuses it).
        if (isObject(body) && Array.isArray(body.tags)) {
          const made = this.tags.makeMissing(body.tags)
          undo.push(...made.undo)
          counts.tags_created.push(...made.names)
        }
        const outcome = this.#changeOf(user, row.number, body, rowOfCode)
        if ('errors' in outcome) bad.add(row.number, outcome.errors)
        else if (!outcome.change.changes) counts.unchanged++
        else {
          undo.push(...outcome.change.apply())
          if (outcome.created) counts.created++
          else counts.updated++
        }
      }
    } catch (error) {
      undoAll(undo)
      throw error
    }
    if (bad.any) {
      undoAll(undo)
      throw bad.refusal()
    }
    return { counts, undo }
  }

  /** The change one row asks for, or its errors. */
  #changeOf(
    user: Caller & { username: string },
    number: number,
    body: unknown,
    rowOfCode: Map<string, number>,
  ): { readonly change: ClubChange; readonly created: boolean } | { readonly errors: FieldErrors } {
    const code = isObject(body) ? body.code : undefined
    const first = typeof code === 'string' ? rowOfCode.get(code) : undefined
    // A code twice is one more error of the row: its other fields are checked all the same.
    const twice: FieldErrors =
      first === undefined ? {} : { code: [`Row ${first} has the same code; a club may appear once.`] }
    if (typeof code === 'string') rowOfCode.set(code, first ?? number)
    const current = typeof code === 'string' ? this.clubs.shownTo(user, code) : undefined
    const write = withoutPlaceholder(body)
    let outcome: { readonly change: ClubChange; readonly created: boolean }
    try {
      outcome = current
        ? { change: this.clubs.prepareUpdate(user, current, keepPending(current, write), true), created: false }
        : {
            change: this.clubs.prepareCreate(user, isObject(write) ? { approved: true, ...write } : write),
            created: true,
          }
    } catch (error) {
      if (error instanceof ValidationFailed) return { errors: { ...(error.body as FieldErrors), ...twice } }
      throw error
    }
    if (first !== undefined) return { errors: twice }
    // A code made from the name is taken too: a later row naming it would change this new club.
    rowOfCode.set(outcome.change.club.code, number)
    return outcome
  }
}

/** The bad rows found so far: the first MAX_ROWS_SHOWN with their errors, the rest only counted. */
class BadRows {
  readonly #shown: Record<string, FieldErrors> = Object.create(null)
  #count = 0

  add(number: number, errors: FieldErrors): void {
    if (this.#count++ < MAX_ROWS_SHOWN) this.#shown[number] = errors
  }

  get any(): boolean {
    return this.#count > 0
  }

  refusal(): InvalidRows {
    return new InvalidRows(this.#shown, Math.max(0, this.#count - MAX_ROWS_SHOWN))
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function undoAll(undo: readonly Undo[]): void {
  for (const step of [...undo].reverse()) step()
}

/** An export made for someone who may not see a club's address shows "Hidden" there: no address, and no change. */
function withoutPlaceholder(body: unknown): unknown {
  if (!isObject(body) || body.email !== HIDDEN_EMAIL) return body
  const { email: _hidden, ...rest } = body
  return rest
}

/**
 * A row that leaves a pending club unapproved, as every export of it says, does not reject it (a
 * PATCH of `approved: false` alone would): an import sets values, it takes no decision unasked.
 */
function keepPending(current: ClubRecord, body: unknown): unknown {
  if (!isObject(body) || body.approved !== false || current.approved || current.approved_on !== null) return body
  const { approved: _leftAsIs, ...rest } = body
  return rest
}

/**
 * The rows of an import's body, made one at a time as the import reaches them (a file of 10 MiB
 * may hold 400,000), or the 400 that says why the file as a whole is not one.
 */
function rowsOf(source: ImportSource): Iterable<Row> {
  if (source.kind === 'empty') throw refuse('The file is empty.')
  if (source.kind === 'json') {
    const { value } = source
    if (!Array.isArray(value))
      throw refuse(`Expected a list of clubs, but got ${value === null ? 'null' : typeof value}.`)
    if (!value.length) throw refuse('The file holds no clubs: the list is empty.')
    return (function* () {
      for (let i = 0; i < value.length; i++) yield { number: i + 1, body: value[i] }
    })()
  }
  checkHeader(source.columns)
  const { columns, rows } = source
  if (rows.every(isBlank)) throw refuse('The file holds no clubs: there is no row after the header.')
  return (function* () {
    for (let i = 0; i < rows.length; i++)
      // A blank line keeps its number.
      if (!isBlank(rows[i]!)) yield { number: i + 1, ...rowOfCells(columns, rows[i]!) }
  })()
}

const isBlank = (cells: readonly string[]) => cells.every((cell) => cell === '')

/** A CSV header: it names the columns, each once, `code` among them (a column no club has is each row's error). */
function checkHeader(columns: readonly string[]): void {
  if (!columns.some(isKnownColumn))
    throw refuse('The first row must name the columns (code, name, ...); none of its cells is a field of a club.')
  const errors: FieldErrors = Object.create(null)
  columns.forEach((column, i) => {
    if (column === '') (errors.non_field_errors ??= []).push(`Column ${i + 1} has no name in the header.`)
    else if (columns.indexOf(column) !== i) errors[column] = ['This column appears more than once.']
  })
  if (!columns.includes('code')) errors.code = ['This column is required: it says which club each row is.']
  if (Object.keys(errors).length) throw new ValidationFailed(errors)
}

/** A row of cells as the write of its writable columns (the read-only ones are ignored; an empty code is none). */
function rowOfCells(columns: readonly string[], cells: readonly string[]): { body: unknown } | { errors: FieldErrors } {
  if (cells.length !== columns.length)
    return {
      errors: {
        non_field_errors: [
          `This row has ${cells.length} cell${cells.length === 1 ? '' : 's'}; the header names ${columns.length} columns.`,
        ],
      },
    }
  const body: Record<string, unknown> = Object.create(null)
  columns.forEach((column, i) => {
    // A column no club has goes along, for the club's check to name with the row's other errors.
    if (!isKnownColumn(column)) body[column] = cells[i]
    if (!isWritableColumn(column) || (column === 'code' && cells[i] === '')) return
    const value = fromCell(column, cells[i]!)
    if (value !== undefined) body[column] = value
  })
  return { body }
}
