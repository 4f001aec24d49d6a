/** @jsxImportSource preact */
import type { FieldErrors } from '../domain/check'
import { ErrorSummary as FormSummary } from './fields'
import { isOwnLogo } from '../domain/logos'
import { REVIEWED_FIELDS, WEEKDAYS, type LastDecision } from '../model/club'
import { CsrfField, type Viewer } from './layout'
import { EDIT_SECTIONS, type EditField, type EditValues, type MeetingRow } from './club-form'
import { DecisionNote } from './decision-note'
import { ReRegisterNotice, type RoundNote } from './re-registration'

/** What the edit page says above the form: the save went through, it awaits review, or a rejected club was sent again. */
export type EditNotice = 'saved' | 'review' | 'resubmitted' | 'stale' | null

export interface EditState {
  readonly code: string
  /** The club's name as it stands (the form may hold another one the person typed). */
  readonly name: string
  readonly values: EditValues
  readonly errors: FieldErrors
  /** Every tag of the directory, by id. */
  readonly tags: readonly { readonly id: number; readonly name: string }[]
  readonly notice: EditNotice
  /** A change to its reviewed fields awaits review: the public sees the approved version. */
  readonly awaitingReview: boolean
  /** A change this person makes to the reviewed fields is reviewed before the public sees it. */
  readonly reviewed: boolean
  /** The club's image_url as it stands, and the origin it is this service's own logo on. */
  readonly logo: string | null
  readonly origin: string
  /** Whether this directory keeps logos at all. */
  readonly logos: boolean
  /** The activities office's latest decision on the club, or null (docs/reference.md §22). */
  readonly lastDecision: LastDecision | null
  /** The club is rejected, and this person may send it for review again. */
  readonly resubmittable: boolean
  /** The re-registration round open now, with the club's confirmation in it; null when none is open (docs/reference.md §23). */
  readonly round: RoundNote | null
  /** Names the values the form shows: a save of a form shown before the club changed is refused (409). */
  readonly seen?: string
}

/** What the club form itself shows, on the Edit page and on Register (`/clubs/new`). */
export type FormState = Pick<EditState, 'values' | 'errors' | 'tags' | 'reviewed' | 'seen'>

const REVIEWED: ReadonlySet<string> = new Set(REVIEWED_FIELDS)
const REVIEW_NOTICE =
  'Your changes are saved. The change to the name, subtitle, description or logo awaits review by the activities office; until it is approved, the public still sees the approved version.'

const errorId = (name: string) => `${name}-error`
const helpId = (name: string) => `${name}-help`

/** The ids that describe a field: its error first, then its help. */
function describedBy(field: EditField, error: boolean, reviewNote: boolean): string | undefined {
  const ids = [error && errorId(field.name), (field.help || reviewNote) && helpId(field.name)].filter(Boolean)
  return ids.length ? ids.join(' ') : undefined
}

function Control({ field, state }: { field: EditField; state: FormState }) {
  const { name, kind } = field
  const messages = state.errors[name]
  const reviewNote = state.reviewed && REVIEWED.has(name)
  const common = {
    id: name,
    name,
    'aria-invalid': messages ? ('true' as const) : undefined,
    'aria-describedby': describedBy(field, messages !== undefined, reviewNote),
  }
  const value = state.values.text[name] ?? ''
  const help = [field.help, reviewNote && 'Changes are reviewed before the public sees them.'].filter(Boolean)
  const after = (
    <>
      {help.length > 0 && (
        <span id={helpId(name)} class="help">
          {help.join(' ')}
        </span>
      )}
      {messages && (
        <span id={errorId(name)} class="error">
          {messages.join(' ')}
        </span>
      )}
    </>
  )
  if (kind === 'flag')
    return (
      <p class="field check-field">
        <span class="check">
          <input type="checkbox" value="true" checked={state.values.checked.has(name)} {...common} />
          <label for={name}>{field.label}</label>
        </span>
        {after}
      </p>
    )
  return (
    <p class="field">
      <label for={name}>{field.label}</label>
      {kind === 'long' ? (
        <textarea rows={6} {...common}>
          {value}
        </textarea>
      ) : kind === 'choice' ? (
        <select {...common}>
          {Object.entries(field.choices!).map(([code, label]) => (
            <option value={code} selected={code === value}>
              {label}
            </option>
          ))}
        </select>
      ) : (
        <input type={kind === 'line' ? 'text' : kind} value={value} {...common} />
      )}
      {after}
    </p>
  )
}

function TagChoice({ state }: { state: FormState }) {
  const messages = state.errors.tags
  return (
    <fieldset class="edit-section tag-filter" aria-describedby={messages ? errorId('tags') : undefined}>
      <legend>Tags</legend>
      {messages && (
        <span id={errorId('tags')} class="error">
          {messages.join(' ')}
        </span>
      )}
      {state.tags.map((tag) => (
        <span class="check">
          <input
            type="checkbox"
            id={`tag-${tag.id}`}
            name="tags"
            value={String(tag.id)}
            checked={state.values.tags.has(String(tag.id))}
          />
          <label for={`tag-${tag.id}`}>{tag.name}</label>
        </span>
      ))}
    </fieldset>
  )
}

/** At most this many meetings (docs/reference.md §21); the form offers one empty row more than the club has. */
const MAX_MEETINGS = 10
const EMPTY_ROW: MeetingRow = { day: '', start: '', end: '', location: '', note: '' }

function MeetingFields({ row, n }: { row: MeetingRow; n: number }) {
  const id = (part: string) => `meeting-${n}-${part}`
  return (
    <fieldset class="meeting">
      <legend>Meeting {n}</legend>
      <p class="field">
        <label for={id('day')}>Day</label>
        <select id={id('day')} name="meeting_day">
          <option value="" selected={row.day === ''}>
            (none: no meeting)
          </option>
          {WEEKDAYS.map((day) => (
            <option value={day} selected={row.day === day}>
              {day[0]!.toUpperCase() + day.slice(1)}
            </option>
          ))}
        </select>
      </p>
      <p class="field">
        <label for={id('start')}>Starts (HH:MM)</label>
        <input id={id('start')} name="meeting_start" type="time" value={row.start} />
      </p>
      <p class="field">
        <label for={id('end')}>Ends (HH:MM)</label>
        <input id={id('end')} name="meeting_end" type="time" value={row.end} />
      </p>
      <p class="field">
        <label for={id('location')}>Where</label>
        <input id={id('location')} name="meeting_location" type="text" maxLength={200} value={row.location} />
      </p>
      <p class="field">
        <label for={id('note')}>Note</label>
        <input id={id('note')} name="meeting_note" type="text" maxLength={500} value={row.note} />
      </p>
    </fieldset>
  )
}

/** The club's weekly meetings: a row each, and an empty one to add another; a row set to no day goes. */
function MeetingChoice({ state }: { state: FormState }) {
  const messages = state.errors.meetings
  const rows =
    state.values.meetings.length < MAX_MEETINGS ? [...state.values.meetings, EMPTY_ROW] : state.values.meetings
  return (
    <fieldset
      class="edit-section meetings"
      id={errorId('meetings')}
      aria-describedby={messages ? `${errorId('meetings')}-text ${helpId('meetings')}` : helpId('meetings')}
    >
      <legend>Meetings</legend>
      <span id={helpId('meetings')} class="help">
        Every week, in the campus's time zone. Choose “no meeting” as the day to remove one.
      </span>
      {messages && (
        <span id={`${errorId('meetings')}-text`} class="error">
          {messages.join(' ')}
        </span>
      )}
      {rows.map((row, i) => (
        <MeetingFields row={row} n={i + 1} />
      ))}
    </fieldset>
  )
}

const LABELS = new Map(EDIT_SECTIONS.flatMap((s) => s.fields.map((f) => [f.name, f.label] as const)))

/** Where the summary of a refused form links each field's problem: its control, or a group's error. */
const SUMMARY_FIELDS = Object.fromEntries([
  ...[...LABELS].map(([name, label]) => [name, { id: name, label }] as const),
  ['tags', { id: errorId('tags'), label: 'Tags' }],
  ['meetings', { id: errorId('meetings'), label: 'Meetings' }],
  ['image', { id: 'image', label: 'Logo' }],
])

/** Every problem at once, above the form, each a link to its field (non-field ones as text). */
export function ErrorSummary({ errors }: { errors: FieldErrors }) {
  return <FormSummary errors={errors} fields={SUMMARY_FIELDS} nothing="saved" />
}

function Notice({ state }: { state: EditState }) {
  if (state.notice === 'stale')
    return (
      <p class="notice error-notice" role="alert">
        {state.name} changed since you opened this form, so nothing was saved. The form shows it as it stands now: make
        your changes again.
      </p>
    )
  if (state.notice === 'resubmitted')
    return (
      <p class="notice" role="status">
        The club is sent for review again: the activities office decides on it as it stands now.
      </p>
    )
  if (state.notice === 'review')
    return (
      <p class="notice" role="status">
        {REVIEW_NOTICE}
      </p>
    )
  if (state.notice === 'saved')
    return (
      <p class="notice saved" role="status">
        Your changes are saved.
      </p>
    )
  if (state.awaitingReview)
    return (
      <p class="notice">
        A change to this club awaits review: until it is approved, the public sees the approved version.
      </p>
    )
  return null
}

/** The club's logo: the one it has, a form to upload another (a file), and one to take it away. */
function LogoForms({ state, viewer }: { state: EditState; viewer: Viewer }) {
  const messages = state.errors.image
  const own = state.logo !== null && isOwnLogo(state.logo, state.origin)
  const base = `/clubs/${state.code}/logo`
  return (
    <section class="edit-section logo-forms" aria-labelledby="logo-heading">
      <h2 id="logo-heading">Logo</h2>
      {own ? (
        <p>
          <img
            class="logo"
            src={`${state.logo}?size=256`}
            alt={`The logo of ${state.name} as it stands`}
            width={96}
            height={96}
          />
        </p>
      ) : (
        <p>{state.logo ? 'The logo is an image on another site.' : 'No logo yet: the club shows its initials.'}</p>
      )}
      <form method="post" action={base} enctype="multipart/form-data">
        <CsrfField viewer={viewer} />
        <p class="field">
          <label for="image">New logo</label>
          <input
            id="image"
            name="image"
            type="file"
            accept="image/png,image/jpeg,image/webp"
            required
            aria-invalid={messages ? 'true' : undefined}
            aria-describedby={messages ? `${errorId('image')} ${helpId('image')}` : helpId('image')}
          />
          <span id={helpId('image')} class="help">
            PNG, JPEG or WebP, at most 2 MiB and 4,096 px a side.
            {state.reviewed && ' A new logo is reviewed before the public sees it.'}
          </span>
          {messages && (
            <span id={errorId('image')} class="error">
              {messages.join(' ')}
            </span>
          )}
        </p>
        <button type="submit">Upload logo</button>
      </form>
      {state.logo && (
        <form method="post" action={`${base}/remove`}>
          <CsrfField viewer={viewer} />
          <button type="submit" class="secondary">
            Remove the logo
          </button>
        </form>
      )}
    </section>
  )
}

/** The club form (docs/reference.md §20, §22): its labelled fields, tags and meetings, sent to `action` by `submit`. */
export function ClubForm(props: { state: FormState; viewer: Viewer; action: string; submit: string }) {
  const { state } = props
  return (
    <form method="post" action={props.action} class="edit" noValidate>
      <CsrfField viewer={props.viewer} />
      {state.seen && <input type="hidden" name="seen" value={state.seen} />}
      {EDIT_SECTIONS.map((section) => (
        <fieldset class="edit-section">
          <legend>{section.legend}</legend>
          {section.fields.map((field) => (
            <Control field={field} state={state} />
          ))}
        </fieldset>
      ))}
      <TagChoice state={state} />
      <MeetingChoice state={state} />
      <button type="submit">{props.submit}</button>
    </form>
  )
}

/** A club's edit form (docs/reference.md §20): labelled fields, each error beside its field and in a summary. */
export function ClubEditPage({ state, viewer }: { state: EditState; viewer: Viewer }) {
  return (
    <>
      <h1>Edit {state.name}</h1>
      <ErrorSummary errors={state.errors} />
      <Notice state={state} />
      <DecisionNote code={state.code} decision={state.lastDecision} rejected={state.resubmittable} viewer={viewer} />
      {state.round && <ReRegisterNotice round={state.round} code={state.code} name={state.name} />}
      <p class="edit-links">
        <a href={`/clubs/${state.code}`}>The club’s page</a> ·{' '}
        <a href={`/clubs/${state.code}/requests`}>Join requests and members</a> · <a href="/my-clubs">My clubs</a>
      </p>
      <ClubForm state={state} viewer={viewer} action={`/clubs/${state.code}/edit`} submit="Save" />
      {state.logos && <LogoForms state={state} viewer={viewer} />}
    </>
  )
}
