import { ValidationFailed } from './errors'

export type FieldErrors = Record<string, string[]>

/**
 * A small JSON object body, split into its `known` fields and a start of the 400: any other
 * key is an unknown field. The errors object has no prototype, so a "__proto__" key in the
 * body is reported like any other name instead of being swallowed. Anything but an object
 * is a 400 showing what to send.
 */
export function splitFields(body: unknown, known: readonly string[], example: string) {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ValidationFailed({ non_field_errors: [`Send an object: ${example}.`] })
  const fields: Record<string, unknown> = Object.create(null)
  const errors: FieldErrors = Object.create(null)
  for (const [key, value] of Object.entries(body)) {
    if (known.includes(key)) fields[key] = value
    else errors[key] = ['Unknown field.']
  }
  return { fields, errors }
}

/** Throws the 400 when there is anything in it. */
export function refuseIfAny(errors: FieldErrors): void {
  if (Object.keys(errors).length) throw new ValidationFailed(errors)
}
