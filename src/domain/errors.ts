/** An error that knows the status and body it becomes (docs/reference.md §8). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.detail === 'string' ? body.detail : `HTTP ${status}`)
  }
}

export class ValidationFailed extends ApiError {
  constructor(errors: Record<string, string[]>) {
    super(400, errors)
  }
}

export class BadRequest extends ApiError {
  constructor(detail: string) {
    super(400, { detail })
  }
}

export class NotAuthenticated extends ApiError {
  constructor(detail = 'Authentication credentials were not provided.') {
    super(401, { detail }, { 'WWW-Authenticate': 'Bearer realm="api"' })
  }
}

export class PermissionDenied extends ApiError {
  constructor(detail = 'You do not have permission to perform this action.') {
    super(403, { detail })
  }
}

/** A disabled user, whatever credential they send (docs/reference.md §13). */
export class AccountDisabled extends ApiError {
  constructor() {
    super(403, { detail: 'This account is disabled.' })
  }
}

export class NotFound extends ApiError {
  constructor(detail = 'Not found.') {
    super(404, { detail })
  }
}

/** The request was made against a state that has changed since (a decision on values no longer pending). */
export class Conflict extends ApiError {
  constructor(detail: string) {
    super(409, { detail })
  }
}

export class StorageUnavailable extends ApiError {
  constructor() {
    super(
      503,
      { detail: 'The change could not be saved; storage is unavailable. Try again later.' },
      { 'Retry-After': '5' },
    )
  }
}
