import type { TSchema } from 'elysia'
import { ApprovalWrite, ClubWrite, READ_ONLY_FIELDS } from '../model/club'

export type FieldErrors = Record<string, string[]>

const WRITE_SCHEMAS = new Map<string, TSchema>(Object.entries({ ...ClubWrite.properties, ...ApprovalWrite.properties }))
const READ_ONLY = new Set<string>(READ_ONLY_FIELDS)
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

const describe = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'list' : typeof value === 'object' ? 'object' : typeof value

/**
 * Splits a write body into the fields to apply and the errors found, reading every bound
 * (type, length, range, nullability) from the TypeBox schema so the docs and the checks agree.
 * Read-only fields are dropped; names the club does not have are errors.
 */
export function validateClubBody(
  body: unknown,
  today: string,
): { fields: Record<string, unknown>; errors: FieldErrors } {
  const errors: FieldErrors = Object.create(null)
  // Null prototypes: a "__proto__" key in a JSON body must stay a plain (unknown) field name.
  const fields: Record<string, unknown> = Object.create(null)
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    errors.non_field_errors = [`Invalid data. Expected a dictionary, but got ${describe(body)}.`]
    return { fields, errors }
  }
  for (const [key, value] of Object.entries(body)) {
    if (READ_ONLY.has(key)) continue
    const schema = WRITE_SCHEMAS.get(key)
    if (!schema) {
      errors[key] = ['Unknown field.']
      continue
    }
    const normalised = key === 'name' && typeof value === 'string' ? value.trim() : value
    const problem = checkValue(schema, normalised) ?? refine(key, schema, normalised, today)
    if (problem) errors[key] = [problem]
    else fields[key] = normalised
  }
  return { fields, errors }
}

function checkValue(schema: TSchema, value: unknown): string | null {
  if (schema.anyOf) {
    const nullable = schema.anyOf.some((s: TSchema) => s.type === 'null')
    if (value === null) return nullable ? null : 'This field may not be null.'
    const inner = schema.anyOf.find((s: TSchema) => s.type !== 'null')
    return inner ? checkValue(inner, value) : null
  }
  if (value === null) return 'This field may not be null.'
  switch (schema.type) {
    case 'string':
      return checkString(schema, value)
    case 'boolean':
      return typeof value === 'boolean' ? null : 'Must be a valid boolean.'
    case 'integer':
      return checkInteger(schema, value)
    case 'array':
      if (!Array.isArray(value)) return `Expected a list of items but got type "${describe(value)}".`
      if (schema.maxItems !== undefined && value.length > schema.maxItems)
        return `Ensure this field has no more than ${schema.maxItems} elements.`
      return null
    default:
      return null
  }
}

function checkString(schema: TSchema, value: unknown): string | null {
  if (typeof value !== 'string') return 'Not a valid string.'
  if (schema.minLength && value.length < schema.minLength) return 'This field may not be blank.'
  if (schema.maxLength !== undefined && value.length > schema.maxLength)
    return `Ensure this field has no more than ${schema.maxLength} characters.`
  if (schema.pattern && !new RegExp(schema.pattern).test(value))
    return 'Enter a valid value: lowercase letters, digits and single hyphens.'
  return null
}

function checkInteger(schema: TSchema, value: unknown): string | null {
  if (typeof value !== 'number' || !Number.isInteger(value)) return 'A valid integer is required.'
  if (
    (schema.minimum !== undefined && value < schema.minimum) ||
    (schema.maximum !== undefined && value > schema.maximum)
  )
    return `"${value}" is not a valid choice.`
  return null
}

/** Rules a JSON-schema keyword cannot say on its own: real dates, http(s) only, e-mail syntax. */
function refine(key: string, schema: TSchema, value: unknown, today: string): string | null {
  if (typeof value !== 'string') return null
  const format = schema.format ?? schema.anyOf?.find((s: TSchema) => s.format)?.format
  if (format === 'uri') return isHttpUrl(value) ? null : 'Enter a valid URL (http or https).'
  if (format === 'date') return checkDate(value, today)
  if (key === 'email' && value !== '' && !EMAIL.test(value)) return 'Enter a valid email address.'
  return null
}

function isHttpUrl(value: string): boolean {
  if (/\s/.test(value)) return false
  try {
    const url = new URL(value)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
  } catch {
    return false
  }
}

function checkDate(value: string, today: string): string | null {
  const m = DATE.exec(value)
  if (!m) return 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  if (year < 1 || date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day)
    return 'Date is not a real calendar date.'
  if (value > today) return 'Date may not be in the future.'
  return null
}

/** The writable fields a full update (PUT) must carry. */
export function missingForReplace(sent: object): FieldErrors {
  const errors: FieldErrors = {}
  for (const key of Object.keys(ClubWrite.properties)) {
    if (key !== 'code' && !(key in sent)) errors[key] = ['This field is required.']
  }
  return errors
}
