import type { Static, TObject } from '@sinclair/typebox'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors'
import {
  ClubCreate,
  ClubPatch,
  ClubReplace,
  CODE_PATTERN,
  READ_ONLY_FIELDS,
  TIME_PATTERN,
  type Meeting,
} from '../model/club'
import { DATE_SHAPE } from '../model/formats'
import { ValidationFailed } from './errors'

/** A 400's body (docs/reference.md §8): messages by field, `non_field_errors` for the body as a whole. */
export type FieldErrors = Record<string, string[]>

/** What a check found: the fields that passed (typed from the schema), and a message for each that did not. */
export interface Checked<T> {
  readonly fields: Partial<T>
  readonly errors: FieldErrors
}

const NON_FIELD = 'non_field_errors'
const NOT_NULL = 'This field may not be null.'
const INVALID = 'Enter a valid value.'

/** What a JSON value is, in messages. */
const kindOf = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'list' : typeof value === 'object' ? 'object' : typeof value

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Messages of `pattern` errors, by pattern. */
const PATTERN_MESSAGES: Readonly<Record<string, string>> = {
  [CODE_PATTERN]: 'Enter a valid value: lowercase letters, digits and single hyphens.',
  [TIME_PATTERN]: 'Enter a time as HH:MM, 24-hour (00:00 to 23:59).',
}

/** Messages of `format` errors, by format (model/formats.ts says what each format accepts). */
const FORMAT_MESSAGES: Readonly<Record<string, (value: string) => string>> = {
  uri: () => 'Enter a valid URL (http or https).',
  date: (value) =>
    DATE_SHAPE.test(value)
      ? 'Date is not a real calendar date.'
      : 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.',
  email: () => 'Enter a valid email address.',
}

type Describe = (error: ValueError) => string

/** A value of the wrong JSON type; null has its own message. */
const wrongType =
  (describe: Describe): Describe =>
  (error) =>
    error.value === null ? NOT_NULL : describe(error)
const notAChoice: Describe = (error) => `"${String(error.value)}" is not a valid choice.`
const own = <V>(table: Readonly<Record<string, V>>, key: unknown): V | undefined =>
  typeof key === 'string' && Object.hasOwn(table, key) ? table[key] : undefined

/**
 * The one table: each kind of error TypeBox reports for our schemas, and what the client reads.
 * A kind missing here would read "Enter a valid value."; the table test covers each row.
 */
const MESSAGES: { readonly [K in ValueErrorType]?: Describe } = {
  [ValueErrorType.Object]: (error) => `Invalid data. Expected a dictionary, but got ${kindOf(error.value)}.`,
  [ValueErrorType.ObjectRequiredProperty]: () => 'This field is required.',
  [ValueErrorType.ObjectAdditionalProperties]: () => 'Unknown field.',
  [ValueErrorType.String]: wrongType(() => 'Not a valid string.'),
  [ValueErrorType.StringMinLength]: ({ schema }) =>
    schema.minLength === 1
      ? 'This field may not be blank.'
      : `Ensure this field has at least ${schema.minLength} characters.`,
  [ValueErrorType.StringMaxLength]: ({ schema }) =>
    `Ensure this field has no more than ${schema.maxLength} characters.`,
  [ValueErrorType.StringPattern]: ({ schema }) => own(PATTERN_MESSAGES, schema.pattern) ?? INVALID,
  [ValueErrorType.StringFormat]: ({ schema, value }) => own(FORMAT_MESSAGES, schema.format)?.(String(value)) ?? INVALID,
  [ValueErrorType.Boolean]: wrongType(() => 'Must be a valid boolean.'),
  [ValueErrorType.Integer]: wrongType(() => 'A valid integer is required.'),
  [ValueErrorType.IntegerMinimum]: notAChoice,
  [ValueErrorType.IntegerMaximum]: notAChoice,
  [ValueErrorType.Literal]: wrongType(notAChoice),
  [ValueErrorType.Array]: wrongType(({ value }) => `Expected a list of items but got type "${kindOf(value)}".`),
  [ValueErrorType.ArrayMaxItems]: ({ schema }) => `Ensure this field has no more than ${schema.maxItems} elements.`,
  // `Union([X, Null])` (a nullable field), `Union([X, Literal('')])`: what is wrong with X, the first
  // variant that is not null. TypeBox 0.34 gives one error iterator per variant.
  [ValueErrorType.Union]: ({ schema, errors }) => {
    const variant = (schema.anyOf as { type?: string }[]).findIndex((s) => s.type !== 'null')
    const first = errors[variant]?.First()
    return first ? messageOf(first) : INVALID
  },
}

function messageOf(error: ValueError): string {
  return MESSAGES[error.type]?.(error) ?? INVALID
}

const unescapeKey = (key: string) => key.replaceAll('~1', '/').replaceAll('~0', '~')

/**
 * The field an error is about: `non_field_errors` for the body itself, the key for a top-level
 * field (RFC 6901 escapes undone, so "a/b" and "__proto__" are named as sent); undefined for an
 * error inside a field's value: an item of a list (see `items`), or a tag, which the club service
 * names itself.
 */
function fieldOf(path: string): string | undefined {
  if (path === '') return NON_FIELD
  const key = path.slice(1)
  if (key.includes('/')) return undefined
  return unescapeKey(key)
}

/** An error inside item `index` of list `field`, about `key` of the item (undefined: the item itself). */
function itemOf(path: string): { field: string; index: number; key: string | undefined } | undefined {
  const [, field, index, key, ...deeper] = path.split('/')
  if (field === undefined || !/^\d+$/.test(index ?? '') || deeper.length) return undefined
  return { field: unescapeKey(field), index: Number(index), key: key === undefined ? key : unescapeKey(key) }
}

/** A service's own words for one field, instead of the table's. */
export interface FieldWording {
  /** For any error but a missing field. */
  readonly invalid: string
  /** For a missing field; the table's "This field is required." when absent. */
  readonly required?: string
}

export interface BodyCheckOptions<S extends TObject> {
  /** Replaces "Invalid data. Expected a dictionary, …" under non_field_errors. */
  readonly notAnObject?: string
  readonly fields?: { readonly [K in keyof Static<S>]?: FieldWording }
  /** Keys dropped silently before the check (read-only fields sent back). */
  readonly ignored?: readonly string[]
  /** String fields trimmed before the check. */
  readonly trimmed?: readonly (keyof Static<S> & string)[]
  /**
   * Lists whose items' errors are named on the list, by item: `{meetings: 'Meeting'}` makes
   * "Meeting 2: start: Enter a time ...". Errors inside other lists' items are not reported.
   */
  readonly items?: { readonly [K in keyof Static<S>]?: string }
}

/**
 * An object schema compiled once, and the check of a JSON body against it: every error at once,
 * one message per field, each from the table above (or the service's wording). No coercion: the
 * value is checked as parsed. The body is first copied into an object without a prototype, so a
 * "__proto__" key is a plain (unknown) field name.
 */
export class BodyCheck<S extends TObject> {
  readonly #compiled: TypeCheck<S>
  readonly #known: ReadonlySet<string>
  readonly #ignored: ReadonlySet<string>
  readonly #trimmed: ReadonlySet<string>

  constructor(
    readonly schema: S,
    private readonly options: BodyCheckOptions<S> = {},
  ) {
    this.#compiled = TypeCompiler.Compile(schema)
    this.#known = new Set(Object.keys(schema.properties))
    this.#ignored = new Set(options.ignored)
    this.#trimmed = new Set(options.trimmed)
  }

  check(body: unknown): Checked<Static<S>> {
    const fields: Record<string, unknown> = Object.create(null)
    const errors: FieldErrors = Object.create(null)
    const value = isObject(body) ? this.#prepare(body) : body
    if (!this.#compiled.Check(value)) {
      const inItems: FieldErrors = Object.create(null)
      for (const error of this.#compiled.Errors(value)) {
        const field = fieldOf(error.path)
        if (field === undefined) this.#itemError(error, inItems)
        else if (!(field in errors)) errors[field] = [this.#messageOf(field, error)]
      }
      // A list that is wrong as a whole (not a list, too long) is named for that alone.
      for (const [field, messages] of Object.entries(inItems)) errors[field] ??= messages
    }
    if (isObject(value)) {
      for (const [key, v] of Object.entries(value)) if (this.#known.has(key) && !(key in errors)) fields[key] = v
    }
    return { fields: fields as Partial<Static<S>>, errors }
  }

  /** One message per item and key of the lists `items` names, in the order found. */
  #itemError(error: ValueError, inItems: FieldErrors): void {
    const item = itemOf(error.path)
    const noun = item && this.#known.has(item.field) ? own(this.options.items ?? {}, item.field) : undefined
    if (!item || !noun) return
    const about = `${noun} ${item.index + 1}: ${item.key === undefined ? '' : `${item.key}: `}`
    const messages = (inItems[item.field] ??= [])
    if (!messages.some((message) => message.startsWith(about))) messages.push(about + messageOf(error))
  }

  #prepare(body: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = Object.create(null)
    for (const [key, value] of Object.entries(body)) {
      if (this.#ignored.has(key)) continue
      out[key] = this.#trimmed.has(key) && typeof value === 'string' ? value.trim() : value
    }
    return out
  }

  #messageOf(field: string, error: ValueError): string {
    if (field === NON_FIELD) return this.options.notAnObject ?? messageOf(error)
    const wording = this.#known.has(field) ? own(this.options.fields ?? {}, field) : undefined
    if (!wording) return messageOf(error)
    if (error.type === ValueErrorType.ObjectRequiredProperty) return wording.required ?? messageOf(error)
    return wording.invalid
  }
}

/** Throws the 400 when there is anything in it. */
export function refuseIfAny(errors: FieldErrors): void {
  if (Object.keys(errors).length) throw new ValidationFailed(errors)
}

/**
 * The checked fields, or the 400 when anything was found. With no error at all, every field the
 * schema requires is among the fields (a missing one is an error), so they are the whole type.
 */
export function fieldsOrRefuse<T>({ fields, errors }: Checked<T>): T {
  refuseIfAny(errors)
  return fields as T
}

// ---------------------------------------------------------------------------------------------
// Club bodies
// ---------------------------------------------------------------------------------------------

/** POST (name required), PUT (every writable field but code required), PATCH (any subset). */
export type ClubMode = 'create' | 'replace' | 'patch'

/**
 * A club body's fields as checked: `tags` are still references, which the club service resolves;
 * `meetings` hold every field, "" where none was sent.
 */
type WithTagRefs<T> = {
  [K in keyof T]: K extends 'tags' ? readonly unknown[] : K extends 'meetings' ? Meeting[] : T[K]
}
export type ClubFieldsOf = {
  create: WithTagRefs<Static<typeof ClubCreate>>
  replace: WithTagRefs<Static<typeof ClubReplace>>
  patch: WithTagRefs<Static<typeof ClubPatch>>
}

const CLUB_OPTIONS = { ignored: READ_ONLY_FIELDS, trimmed: ['name'], items: { meetings: 'Meeting' } } as const
// Typed by what checkClubBody makes of them: meetings as written become meetings as kept.
const CLUB_CHECKS: { readonly [M in ClubMode]: { check(body: unknown): Checked<unknown> } } = {
  create: new BodyCheck(ClubCreate, CLUB_OPTIONS),
  replace: new BodyCheck(ClubReplace, CLUB_OPTIONS),
  patch: new BodyCheck(ClubPatch, CLUB_OPTIONS),
}

/**
 * A club write body (docs/reference.md §3): read-only fields dropped, `name` trimmed, then every schema
 * error at once, `founded` not after `today` — the one rule that depends on the clock, so no
 * schema can say it — and each meeting ending after it starts (docs/reference.md §21). Uniqueness, the code that
 * never changes, approval rights and tags are the service's.
 */
export function checkClubBody<M extends ClubMode>(body: unknown, mode: M, today: string): Checked<ClubFieldsOf[M]> {
  const checked = CLUB_CHECKS[mode].check(body) as Checked<ClubFieldsOf[M]>
  const fields: { founded?: string | null; meetings?: Meeting[] } = checked.fields
  if (typeof fields.founded === 'string' && fields.founded > today) {
    checked.errors.founded = ['Date may not be in the future.']
    delete fields.founded
  }
  const sent = isObject(body) ? body.meetings : undefined
  const backwards = Array.isArray(sent) ? endsBeforeStart(sent) : []
  if (backwards.length) {
    checked.errors.meetings = byMeeting([...(checked.errors.meetings ?? []), ...backwards])
    delete fields.meetings
  } else if (fields.meetings) {
    fields.meetings = fields.meetings.map(({ day, start, end, location = '', note = '' }) => ({
      day,
      start,
      end,
      location,
      note,
    }))
  }
  return checked
}

const TIME = new RegExp(TIME_PATTERN)

/** "Meeting N: end must be after start." for each meeting whose times are valid but out of order. */
function endsBeforeStart(meetings: readonly unknown[]): string[] {
  return meetings.flatMap((meeting, index) => {
    if (!isObject(meeting)) return []
    const { start, end } = meeting
    if (typeof start !== 'string' || typeof end !== 'string' || !TIME.test(start) || !TIME.test(end)) return []
    // Zero-padded 24-hour times compare as text.
    return end > start ? [] : [`Meeting ${index + 1}: end must be after start.`]
  })
}

/** Messages about meetings in meeting order; one about the list as a whole first. */
function byMeeting(messages: string[]): string[] {
  const number = (message: string) => Number(/^Meeting (\d+):/.exec(message)?.[1] ?? 0)
  return messages.sort((a, b) => number(a) - number(b))
}
