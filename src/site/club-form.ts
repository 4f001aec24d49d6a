import { createHash } from 'node:crypto'
import {
  APPLICATION_REQUIRED,
  CLUB_DEFAULTS,
  RECRUITING_CYCLES,
  SIZES,
  type ClubRecord,
  type ClubWrite,
  type Meeting,
} from '../model/club'
import { CLUB_LINKS } from './club-links'

/** How a field of the edit form is shown and read. */
export type FieldKind = 'line' | 'long' | 'email' | 'url' | 'date' | 'choice' | 'flag'

/** The club fields the form has one input for (the code is never edited; tags and meetings have inputs of their own). */
type FieldName = Exclude<keyof ClubWrite, 'code' | 'tags' | 'meetings'>

export interface EditField {
  /** The club field it writes, which is also the form field's name. */
  readonly name: FieldName
  readonly label: string
  readonly kind: FieldKind
  readonly choices?: Readonly<Record<number, string>>
  readonly help?: string
}

/** The writable club fields (docs/reference.md §3.1) that people edit, in the groups the form shows them. */
export const EDIT_SECTIONS: readonly { readonly legend: string; readonly fields: readonly EditField[] }[] = [
  {
    legend: 'About the club',
    fields: [
      { name: 'name', label: 'Name', kind: 'line' },
      { name: 'subtitle', label: 'Subtitle', kind: 'line', help: 'One line under the name.' },
      { name: 'description', label: 'Description', kind: 'long' },
      { name: 'how_to_get_involved', label: 'How to get involved', kind: 'long' },
      { name: 'founded', label: 'Founded', kind: 'date', help: 'A date, YYYY-MM-DD; leave empty if unknown.' },
    ],
  },
  {
    legend: 'Membership',
    fields: [
      { name: 'accepting_members', label: 'Accepting new members', kind: 'flag' },
      { name: 'application_required', label: 'How to join', kind: 'choice', choices: APPLICATION_REQUIRED },
      { name: 'recruiting_cycle', label: 'Recruiting cycle', kind: 'choice', choices: RECRUITING_CYCLES },
      { name: 'size', label: 'Size (members)', kind: 'choice', choices: SIZES },
      { name: 'appointment_needed', label: 'An appointment is needed to visit', kind: 'flag' },
      { name: 'available_virtually', label: 'Meets online too', kind: 'flag' },
      { name: 'enables_subscription', label: 'People may subscribe to news', kind: 'flag' },
      { name: 'active', label: 'Active (listed in the directory)', kind: 'flag' },
    ],
  },
  {
    legend: 'Contact and links',
    fields: [
      { name: 'email', label: 'Email', kind: 'email' },
      { name: 'email_public', label: 'Show the email to everyone', kind: 'flag' },
      { name: 'address', label: 'Address', kind: 'line' },
      ...CLUB_LINKS.map(([name, label]) => ({ name, label, kind: 'url' as const, help: 'A full address, https://…' })),
    ],
  },
]

const FIELDS = EDIT_SECTIONS.flatMap((section) => section.fields)

/** What the form shows: each field's text (or choice), the boxes ticked, the tags chosen (ids), the meetings. */
export interface EditValues {
  readonly text: Readonly<Record<string, string>>
  readonly checked: ReadonlySet<string>
  readonly tags: ReadonlySet<string>
  readonly meetings: readonly MeetingRow[]
}

/** One meeting's row of the form, as text. */
export type MeetingRow = Readonly<Record<(typeof MEETING_PARTS)[number], string>>

/** A meeting row's inputs, each sent as `meeting_<part>` once per row, rows in order. */
export const MEETING_PARTS = ['day', 'start', 'end', 'location', 'note'] as const

const rowOf = (meeting: Meeting): MeetingRow => ({ ...meeting })

/** The rows a person filled in: a row with no day is no meeting (the empty row, or one removed). */
function meetingsOf(rows: readonly MeetingRow[]): Record<string, string>[] {
  return rows
    .filter((row) => row.day !== '')
    .map((row) => ({
      day: row.day,
      start: row.start,
      end: row.end,
      location: row.location.trim(),
      note: row.note.trim(),
    }))
}

type Stored = string | number | boolean | null

/** What the form is filled in from and compared with: a club as it stands, or NEW_CLUB. */
export type FormSource = Pick<ClubRecord, FieldName | 'tags' | 'meetings'>

/** The club a registration starts from: no name yet, and every other field as a new club has it (docs/reference.md §3). */
export const NEW_CLUB: FormSource = { ...CLUB_DEFAULTS, name: '', tags: [], meetings: [] }

/** The form filled in with the club as it stands. */
export function valuesOf(club: FormSource): EditValues {
  const text: Record<string, string> = {}
  const checked = new Set<string>()
  for (const { name, kind } of FIELDS) {
    const value = club[name]
    if (kind === 'flag') {
      if (value === true) checked.add(name)
    } else text[name] = value === null ? '' : String(value)
  }
  return { text, checked, tags: new Set(club.tags.map(String)), meetings: club.meetings.map(rowOf) }
}

/** Browsers send a text area's line breaks as CRLF; the directory keeps what the person typed. */
const typed = (value: string | null) => (value ?? '').replace(/\r\n?/g, '\n')

/** The form as the person sent it, to show again when something in it is refused. */
export function valuesFrom(form: URLSearchParams): EditValues {
  const text: Record<string, string> = {}
  const checked = new Set<string>()
  for (const { name, kind } of FIELDS) {
    if (kind === 'flag') {
      if (form.has(name)) checked.add(name)
    } else text[name] = typed(form.get(name))
  }
  const parts = MEETING_PARTS.map((part) => form.getAll(`meeting_${part}`).map(typed))
  const meetings = parts[0]!.map((_, row) =>
    Object.fromEntries(MEETING_PARTS.map((part, i) => [part, parts[i]![row] ?? ''])),
  ) as MeetingRow[]
  return { text, checked, tags: new Set(form.getAll('tags')), meetings }
}

/** A field's value as the API takes it: empty links and dates are null; a choice is its number. */
function writeValue(kind: FieldKind, text: string): Stored {
  if (kind === 'url' || kind === 'date') return text.trim() === '' ? null : text.trim()
  if (kind === 'choice') return /^\d{1,3}$/.test(text) ? Number(text) : text
  return text
}

/**
 * The PATCH body (docs/reference.md §3.4) of what the person changed: only the fields whose value differs
 * from the club's, so a save never resends a reviewed field it left alone, nor undoes another
 * officer's change to a field this form did not touch. Against NEW_CLUB, the body of a create
 * (the fields left as a new club has them are not sent).
 */
export function changesOf(values: EditValues, club: FormSource): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const { name, kind } of FIELDS) {
    const stored = club[name]
    const value = kind === 'flag' ? values.checked.has(name) : writeValue(kind, values.text[name] ?? '')
    const same = typeof stored === 'string' && typeof value === 'string' ? typed(stored) === value : stored === value
    if (!same) body[name] = value
  }
  const tags = [...values.tags]
  const sameTags = tags.length === club.tags.length && club.tags.every((id) => values.tags.has(String(id)))
  if (!sameTags) body.tags = tags.map((ref) => (/^\d{1,15}$/.test(ref) ? { id: Number(ref) } : { name: ref }))
  const meetings = meetingsOf(values.meetings)
  if (JSON.stringify(meetings) !== JSON.stringify(club.meetings)) body.meetings = meetings
  return body
}

/** A short name for what the edit form shows of `club`: a form sent back with another was shown before a change. */
export function formMark(club: ClubRecord): string {
  const { text, checked, tags, meetings } = valuesOf(club)
  const shown = JSON.stringify([text, [...checked].sort(), [...tags].sort(), meetings])
  return createHash('sha256').update(shown).digest('base64url').slice(0, 22)
}
