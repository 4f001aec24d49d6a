import { t } from 'elysia'
import { Type } from '@sinclair/typebox'
import './formats'

/** The longest message the office may send with a round. */
export const MAX_ROUND_MESSAGE_LENGTH = 1000

/** What opens a re-registration round (docs/reference.md §23): its deadline, and a message for the clubs. */
export const RoundWrite = t.Object(
  {
    deadline: t.String({
      format: 'date',
      description: 'YYYY-MM-DD, today or later (in the campus time zone): the last day to re-register.',
      examples: ['2026-12-15'],
    }),
    message: t.Optional(
      t.String({
        maxLength: MAX_ROUND_MESSAGE_LENGTH,
        description: 'Shown to owners and officers beside "Re-register by <deadline>"; "" when absent.',
        examples: ['Check your officers and contact details, then confirm.'],
      }),
    ),
  },
  { additionalProperties: false },
)
export type RoundWrite = typeof RoundWrite.static

/** A re-registration round as the data file keeps it (and as its opening answers it). */
export const RoundRecord = t.Object({
  id: Type.Integer({ minimum: 1 }),
  opened_at: t.String({ format: 'date-time' }),
  opened_by: t.String({ description: 'The admin who opened it.' }),
  deadline: t.String({ format: 'date' }),
  message: t.String(),
  closed_at: t.Union([t.String({ format: 'date-time' }), t.Null()], { description: 'null while it is open.' }),
  closed_by: t.Union([t.String(), t.Null()]),
  lapsed: t.Array(t.String(), { description: 'The codes of the clubs its close made inactive; [] before.' }),
})
export type RoundRecord = typeof RoundRecord.static

/** One club confirmed in one round, as the data file keeps it. */
export const ConfirmationRecord = t.Object({
  round: Type.Integer({ minimum: 1 }),
  club: t.String(),
  confirmed_at: t.String({ format: 'date-time' }),
  confirmed_by: t.String(),
})
export type ConfirmationRecord = typeof ConfirmationRecord.static

/** The open round and how far it has come (GET /api/registration-rounds/current/). */
export const CurrentRound = t.Object({
  id: Type.Integer({ minimum: 1 }),
  opened_at: t.String({ format: 'date-time' }),
  deadline: t.String({ format: 'date' }),
  message: t.String(),
  clubs: Type.Integer({ minimum: 0, description: 'How many clubs are active now: the ones to re-register.' }),
  confirmed: Type.Integer({ minimum: 0, description: 'How many of them are confirmed in this round.' }),
})
export type CurrentRound = typeof CurrentRound.static

/** One active club and its confirmation in the open round. */
export const RoundClub = t.Object({
  code: t.String(),
  name: t.String(),
  confirmed_at: t.Union([t.String({ format: 'date-time' }), t.Null()], { description: 'null: not confirmed yet.' }),
  confirmed_by: t.Union([t.String(), t.Null()]),
})
export type RoundClub = typeof RoundClub.static

/** The columns of the open round's clubs as a CSV file. */
export const ROUND_CLUB_COLUMNS = ['code', 'name', 'confirmed_at', 'confirmed_by'] as const

/** What a close answers: the clubs it made inactive. */
export const ClosedRound = t.Object({
  lapsed: t.Array(t.String(), {
    description: 'The codes of the clubs that were not confirmed, now inactive, by code.',
  }),
})
