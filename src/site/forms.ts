import { timingSafeEqual } from 'node:crypto'
import { BadRequest, PermissionDenied } from '../domain/errors'
import { readCapped } from '../edge/body'
import { UnsupportedMediaType } from '../edge/errors'

/** A site form's body at most: an edit form with two long texts fits with room. */
const MAX_FORM_BYTES = 256 * 1024
const FORM_TYPE = 'application/x-www-form-urlencoded'

/**
 * A POST from a page of another site is refused (docs/reference.md §20): browsers name the page's origin
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

/** A one-line value of a form: trimmed, and refused when over `max` characters. */
export function field(form: URLSearchParams, name: string, max = 10_000): string {
  const value = form.get(name) ?? ''
  if (value.length > max) throw new BadRequest(`The field "${name}" is too long.`)
  return value
}

/** A file form's fields and its one file, or why the file cannot be taken (too big to read). */
export interface Upload {
  readonly form: URLSearchParams
  readonly file: Uint8Array | null
}

/**
 * A form with a file (`multipart/form-data`): read at most `limit` bytes and more for the fields
 * around it (past that, nothing is parsed: a 413), then its text fields and the file named `name`.
 */
export async function readUpload(request: Request, name: string, limit: number): Promise<Upload> {
  const type = request.headers.get('content-type') ?? ''
  if (!type.toLowerCase().startsWith('multipart/form-data')) throw new UnsupportedMediaType(type)
  const bytes = await readCapped(request, limit + MAX_FORM_BYTES)
  let parsed: FormData
  try {
    parsed = await new Response(bytes as BodyInit, { headers: { 'content-type': type } }).formData()
  } catch {
    throw new BadRequest('The form could not be read.')
  }
  const form = new URLSearchParams()
  let file: Uint8Array | null = null
  for (const [field, value] of parsed.entries() as Iterable<[string, string | Blob]>) {
    if (typeof value === 'string') form.append(field, value)
    else if (field === name && value.size > 0) file = new Uint8Array(await value.arrayBuffer())
  }
  return { form, file }
}
