import { timingSafeEqual } from 'node:crypto'
import { BadRequest, PermissionDenied } from '../domain/errors'
import { readCapped } from '../edge/body'
import { UnsupportedMediaType } from '../edge/errors'

/** A site form's body at most: an edit form with two long texts fits with room. */
const MAX_FORM_BYTES = 256 * 1024
const FORM_TYPE = 'application/x-www-form-urlencoded'

/**
 * A POST from a page of another site is refused (CONTRACT §20): browsers name the page's origin
 * in `Origin` on every POST; one that names another origin, or the opaque "null", is a forgery.
 */
export function checkOrigin(request: Request, siteOrigin: string): void {
  const origin = request.headers.get('origin')
  if (origin !== null && origin !== siteOrigin)
    throw new PermissionDenied('This form was sent from another site, so it was refused.')
}

/** The fields of a form a page sent (`application/x-www-form-urlencoded`, at most 256 KiB). */
export async function readForm(request: Request): Promise<URLSearchParams> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (type !== FORM_TYPE) throw new UnsupportedMediaType(request.headers.get('content-type') ?? '')
  const bytes = await readCapped(request, MAX_FORM_BYTES)
  return new URLSearchParams(new TextDecoder().decode(bytes))
}

/** The form carries the session's CSRF token (compared in constant time), or it is refused. */
export function checkCsrf(form: URLSearchParams, expected: string): void {
  const given = Buffer.from(form.get('csrf') ?? '')
  const wanted = Buffer.from(expected)
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted))
    throw new PermissionDenied('This form has expired or did not come from this site. Reload the page and try again.')
}

/** Where to go after signing in: a path of this site only, never another host (`//evil`, `/\evil`). */
export function safeNext(next: string | null): string {
  if (next === null || !next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return '/'
  return next
}

/** A one-line value of a form: trimmed, and refused when over `max` characters. */
export function field(form: URLSearchParams, name: string, max = 10_000): string {
  const value = form.get(name) ?? ''
  if (value.length > max) throw new BadRequest(`The field "${name}" is too long.`)
  return value
}
