// Errors only the HTTP edge meets: methods, media types, body sizes, the rate limit.
import { ApiError } from '../domain/errors'

export class MethodNotAllowed extends ApiError {
  constructor(method: string, allow: string) {
    super(405, { detail: `Method "${method}" not allowed.` }, { Allow: allow })
  }
}

export class ReadOnlyDirectory extends ApiError {
  constructor(allow: string) {
    super(405, { detail: 'This directory is read-only.' }, { Allow: allow })
  }
}

export class PayloadTooLarge extends ApiError {
  constructor(limit: number) {
    super(413, { detail: `Request body is larger than ${limit} bytes.` })
  }
}

export class UnsupportedMediaType extends ApiError {
  constructor(type: string) {
    super(415, { detail: `Unsupported media type "${type}" in request.` })
  }
}

/** Past the rate limit (docs/reference.md §17): when the caller may go on. */
export class Throttled extends ApiError {
  constructor(wait: number) {
    super(
      429,
      { detail: `Request was throttled. Expected available in ${wait} second${wait === 1 ? '' : 's'}.` },
      { 'Retry-After': String(wait) },
    )
  }
}
