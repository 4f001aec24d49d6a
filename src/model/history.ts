import { t } from 'elysia'
import { DECISION_EVENTS, REVIEWED_FIELDS } from './club'

export const HISTORY_EVENTS = [
  'created',
  'submitted',
  'resubmitted',
  ...DECISION_EVENTS,
  'archived',
  'lapsed',
  'reactivated',
] as const
export type HistoryEventKind = (typeof HISTORY_EVENTS)[number]

/** One entry of a club's approval history (docs/reference.md §11), as answered. */
export const HistoryEntry = t.Object({
  event: t.Union(HISTORY_EVENTS.map((event) => t.Literal(event))),
  at: t.String({ format: 'date-time' }),
  by: t.Union([t.String(), t.Null()], { description: 'The username who did it, or null.' }),
  comment: t.String({ description: 'The reviewer\'s comment; "" when none.' }),
  fields: t.Array(t.Union(REVIEWED_FIELDS.map((field) => t.Literal(field))), {
    description: 'The reviewed fields a submission (or a resubmission by an edit) changed; [] for other events.',
  }),
})
export type HistoryEntry = typeof HistoryEntry.static

/** The same, as the data file keeps it: with the club it belongs to. */
export const HistoryRecord = t.Object({ club: t.String(), ...HistoryEntry.properties })
export type HistoryRecord = typeof HistoryRecord.static
