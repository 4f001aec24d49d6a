// What the string formats named in the schemas mean here (docs/reference.md §3.2). TypeBox keeps formats in
// one registry for the whole process; they are set here, beside the schemas that name them, so that
// every compiled check (a write body, the data file at start) reads them the same way. They replace
// Elysia's looser formats of the same names: the edge only documents schemas, it validates nothing.
import { FormatRegistry } from '@sinclair/typebox'

/** `YYYY-MM-DD`, before asking whether the day exists. */
export const DATE_SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/

/** `uri`: an absolute http or https URL with a host, and no whitespace anywhere. */
export function isHttpUrl(value: string): boolean {
  if (/\s/.test(value)) return false
  try {
    const url = new URL(value)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
  } catch {
    return false
  }
}

/** `date`: a real calendar date written YYYY-MM-DD (year 1 onwards). */
export function isCalendarDate(value: string): boolean {
  const m = DATE_SHAPE.exec(value)
  if (!m) return false
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  return year >= 1 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/** `email`: something@host.domain, no whitespace. */
export const isEmail = (value: string): boolean => EMAIL.test(value)

FormatRegistry.Set('uri', isHttpUrl)
FormatRegistry.Set('date', isCalendarDate)
FormatRegistry.Set('email', isEmail)
