import { requireUser, type Caller } from './caller'
import { fromCell, isWritableColumn } from './cells'
import type { FieldErrors } from './check'
import type { ClubChange, ClubService } from './clubs'
import type { TagService } from './tags'
import { ApiError, PermissionDenied, ValidationFailed } from './errors'
import type { Commit } from './journal'
import type { Undo } from './undo'
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
 * An import refused for its rows (docs/reference.md §15): the first bad rows' field errors, by row number
 * from 1, and how many more bad rows there are when that is not all of them.
 */
class InvalidRows extends ApiError {
  constructor(rows: Record<string, FieldErrors>, notShown: number) {
    super(400, notShown ? { rows, rows_not_shown: notShown } : { rows })
  }
}

/** One row of an import, numbered from 1 (a CSV header not counted): a club write, or why it is none. */
type Row = { readonly number: number } & ({ readonly body: unknown } | { readonly errors: FieldErrors })

/** The change a row asks for, or its errors. */
type Outcome = { readonly change: ClubChange; readonly created: boolean } | { readonly errors: FieldErrors }

/** A row with a write, its tags named as the write shape names them, and its outcome when it is known. */
interface Reached {
  readonly number: number
  readonly body: unknown
  readonly outcome?: Outcome
}

/** How many rows an import checks between two turns of the event loop, when it lets other requests in. */
const ROWS_PER_TURN = 2000

/** Lets the requests that came meanwhile be answered (a macrotask: promise callbacks alone would not). */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** What an import has found so far: its counts, its bad rows, the row that took each code, and how to take back what it changed. */
class Tally {
  readonly undo: Undo[] = []
  readonly bad = new BadRows()
  readonly counts = { created: 0, updated: 0, unchanged: 0, tags_created: [] as string[] }
  readonly rowOfCode = new Map<string, number>()

  /** Counts a bad or unchanged row; false for one with a change to make, which the caller makes. */
  settled(number: number, outcome: Outcome): boolean {
    if ('errors' in outcome) this.bad.add(number, outcome.errors)
    else if (!outcome.change.changes) this.counts.unchanged++
    else return false
    return true
  }
}

/** Columns an export may hold: every field of a club's representations; the read-only ones are ignored. */
const KNOWN_COLUMNS: ReadonlySet<string> = new Set([...LIST_FIELDS, ...DETAIL_FIELDS])
const isKnownColumn = (column: string) => KNOWN_COLUMNS.has(column) || isWritableColumn(column)

const refuse = (message: string) => new ValidationFailed({ non_field_errors: [message] })

/**
 * Imports (docs/reference.md §15): each row a PATCH of the club with its code, or a create (approved unless
 * the row says otherwise; the code made from the name when the row has none), the tags it names
 * made when missing; all rows or none, in one journal commit, so one snapshot write.
 */
export class ImportService {
  constructor(
    private readonly clubs: ClubService,
    private readonly tags: TagService,
    private readonly commit: Commit,
    /** The imports of a copy of the directory as it is now, which nothing else reads or saves. */
    private readonly scratch: () => ImportService,
  ) {}

  /**
   * Goes first through the rows before the first that changes something (makes a tag or changes a
   * club): bad ones, unchanged ones. They change nothing, so they need no commit, and once a row is
   * bad (the import is refused then, whatever comes meanwhile) it lets other requests in every
   * ROWS_PER_TURN rows: a file of bad rows holds no one. From that first row on, the rest is one
   * commit, begun in the same turn as that row's check, until a row is bad. An import refused once
   * it has changed something (or would) is checked again from its first row in a scratch copy of
   * the directory, where its changes are seen by no one and it may take its time: `#refusal`.
   */
  async run(caller: Caller, source: ImportSource, dryRun: boolean): Promise<ImportCounts> {
    const user = requireUser(caller)
    if (!user.isAdmin) throw new PermissionDenied()
    const rows = rowsOf(source)
    const tally = new Tally()
    for (let count = 1; ; count++) {
      if (count % ROWS_PER_TURN === 0 && tally.bad.any) await nextTurn()
      const next = rows.next()
      if (next.done) return this.#commitFrom(user, null, rows, tally, dryRun, source)
      const row = next.value
      if ('errors' in row) {
        tally.bad.add(row.number, row.errors)
        continue
      }
      const body = row.body
      let reached: Reached | null = null
      if (isObject(body) && Array.isArray(body.tags) && this.tags.makesAny(body.tags))
        reached = { number: row.number, body }
      else {
        const outcome = this.#changeOf(user, row.number, body, tally.rowOfCode)
        if (!tally.settled(row.number, outcome)) reached = { number: row.number, body, outcome }
      }
      if (reached && tally.bad.any) throw await this.#refusal(user, source)
      if (reached) return this.#commitFrom(user, reached, rows, tally, dryRun, source)
    }
  }

  /** Commits the rows from `first` on (a dry run takes them back); refuses the import if any row is bad. */
  async #commitFrom(
    user: Caller & { username: string },
    first: Reached | null,
    rows: Iterator<Row>,
    tally: Tally,
    dryRun: boolean,
    source: ImportSource,
  ): Promise<ImportCounts> {
    const apply = () => this.#applyAll(user, first, rows, tally)
    try {
      if (dryRun) undoAll(apply())
      else await this.commit(apply)
    } catch (error) {
      if (error instanceof Refused) throw await this.#refusal(user, source)
      throw error
    }
    return tally.counts
  }

  /** Why an import with a bad row is refused: its rows checked from the first in a scratch directory, with turns between. */
  async #refusal(user: Caller & { username: string }, source: ImportSource): Promise<ApiError> {
    const scratch = this.scratch()
    const rows = rowsOf(source)
    const tally = new Tally()
    for (let count = 1, next = rows.next(); !next.done; count++, next = rows.next()) {
      if (count % ROWS_PER_TURN === 0) await nextTurn()
      scratch.#take(user, next.value, tally)
    }
    return tally.bad.refusal()
  }

  /**
   * Makes each row's change in turn from `first` on, each checked against the directory as the
   * rows before left it (two rows cannot take one name). A bad row takes every change back and
   * refuses the import: at once with every row's errors when all were checked before (`first` is
   * null), otherwise with `Refused`, for `#refusal` to check every row.
   */
  #applyAll(user: Caller & { username: string }, first: Reached | null, rows: Iterator<Row>, tally: Tally): Undo[] {
    try {
      if (first) this.#make(user, first, tally)
      for (let next = rows.next(); !next.done && !(first && tally.bad.any); next = rows.next())
        this.#take(user, next.value, tally)
    } catch (error) {
      undoAll(tally.undo)
      throw error
    }
    if (tally.bad.any) {
      undoAll(tally.undo)
      // Once it has changed something, the rest is checked where no one sees those changes.
      throw first ? new Refused() : tally.bad.refusal()
    }
    return tally.undo
  }

  /** Counts a bad row, or makes a row's change. */
  #take(user: Caller & { username: string }, row: Row, tally: Tally): void {
    if ('errors' in row) tally.bad.add(row.number, row.errors)
    else this.#make(user, { number: row.number, body: row.body }, tally)
  }

  /** Makes the tags a row names that are missing, then its change, unless it is bad or changes nothing. */
  #make(user: Caller & { username: string }, { number, body, outcome }: Reached, tally: Tally): void {
    if (!outcome && isObject(body) && Array.isArray(body.tags)) {
      const made = this.tags.makeMissing(body.tags)
      tally.undo.push(...made.undo)
      tally.counts.tags_created.push(...made.names)
    }
    const checked = outcome ?? this.#changeOf(user, number, body, tally.rowOfCode)
    if (tally.settled(number, checked) || 'errors' in checked) return
    tally.undo.push(...checked.change.apply())
    if (checked.created) tally.counts.created++
    else tally.counts.updated++
  }

  /** The change one row asks for, or its errors. */
  #changeOf(
    user: Caller & { username: string },
    number: number,
    body: unknown,
    rowOfCode: Map<string, number>,
  ): Outcome {
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

/** Thrown out of an import's commit at its first bad row once it has changed something: see `#refusal`. */
class Refused extends Error {}

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
function rowsOf(source: ImportSource): Iterator<Row> {
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
