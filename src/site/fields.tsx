/** @jsxImportSource preact */
import type { ComponentChildren } from 'preact'
import type { FieldErrors } from '../domain/check'

// The parts of the site's small forms (the office's, a club's members'): a control with its label,
// its help and its errors beside it, and the summary of every error above the form.

export const errorId = (id: string) => `${id}-error`
const helpId = (id: string) => `${id}-help`

interface FieldProps {
  readonly id: string
  readonly name: string
  readonly label: ComponentChildren
  readonly errors?: readonly string[] | undefined
  readonly help?: string
}

/** What a control carries so its help and its error are read with it (spread on a control of its own, such as a date). */
export function described({ id, errors, help }: FieldProps) {
  const ids = [errors && errorId(id), help && helpId(id)].filter(Boolean)
  return {
    id,
    'aria-invalid': errors ? ('true' as const) : undefined,
    'aria-describedby': ids.length ? ids.join(' ') : undefined,
  }
}

/** A control's help and errors, after it. */
export function After({ id, errors, help }: FieldProps) {
  return (
    <>
      {help && (
        <span id={helpId(id)} class="help">
          {help}
        </span>
      )}
      {errors && (
        <span id={errorId(id)} class="error">
          {errors.join(' ')}
        </span>
      )}
    </>
  )
}

export function TextField(
  props: FieldProps & { value: string; maxLength?: number; autocomplete?: string; type?: 'text' | 'email' },
) {
  return (
    <p class="field">
      <label for={props.id}>{props.label}</label>
      <input
        type={props.type ?? 'text'}
        name={props.name}
        value={props.value}
        maxLength={props.maxLength}
        autocomplete={props.autocomplete}
        {...described(props)}
      />
      <After {...props} />
    </p>
  )
}

/** A checkbox, its label beside it at every width. Checked, it sends "true". */
export function CheckField(props: FieldProps & { checked: boolean }) {
  return (
    <p class="field check-field">
      <span class="check">
        <input type="checkbox" name={props.name} value="true" checked={props.checked} {...described(props)} />
        <label for={props.id}>{props.label}</label>
      </span>
      <After {...props} />
    </p>
  )
}

export function SelectField(props: FieldProps & { value: string; choices: readonly (readonly [string, string])[] }) {
  return (
    <p class="field">
      <label for={props.id}>{props.label}</label>
      <select name={props.name} {...described(props)}>
        {props.choices.map(([value, label]) => (
          <option value={value} selected={value === props.value}>
            {label}
          </option>
        ))}
      </select>
      <After {...props} />
    </p>
  )
}

/**
 * Every problem of a refused form at once, above it, each a link to its field (`fields`: a field's
 * name → the id and label of its control); a problem of no field shown there (the domain's
 * `non_field_errors`) is plain text.
 */
export function ErrorSummary({
  errors,
  fields,
  nothing = 'changed',
}: {
  errors: FieldErrors
  fields: Readonly<Record<string, { readonly id: string; readonly label: string }>>
  /** What was not done: "nothing was changed", or "saved". */
  nothing?: 'changed' | 'saved'
}) {
  const entries = Object.entries(errors)
  if (entries.length === 0) return null
  return (
    <div class="error-summary" role="alert" aria-labelledby="error-summary-title" tabIndex={-1}>
      <h2 id="error-summary-title">
        {entries.length === 1 ? 'There is a problem' : `There are ${entries.length} problems`}; nothing was {nothing}
      </h2>
      <ul>
        {entries.map(([name, messages]) => {
          const field = fields[name]
          const text = messages.join(' ')
          return (
            <li>
              {field ? (
                <a href={`#${field.id}`}>
                  {field.label}: {text}
                </a>
              ) : (
                text
              )}
            </li>
          )
        })}
      </ul>
    </div>
  )
}

/** The errors a refused form's fields did not take (the domain's `non_field_errors`), said by the form. */
export function FormErrors({ id, errors, fields }: { id: string; errors: FieldErrors; fields: readonly string[] }) {
  const rest = Object.entries(errors).filter(([name]) => !fields.includes(name))
  if (rest.length === 0) return null
  return (
    <p id={id} class="error" tabIndex={-1}>
      {rest.flatMap(([, messages]) => messages).join(' ')}
    </p>
  )
}
