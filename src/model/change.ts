import { t } from 'elysia'
import { Type } from '@sinclair/typebox'

/** What happened to a club as the public sees it (docs/reference.md §18). */
export const CHANGE_TYPES = ['club.added', 'club.changed', 'club.removed'] as const
export type ChangeType = (typeof CHANGE_TYPES)[number]

/** One event of the change log, as answered, streamed, POSTed to webhooks and kept in the log file. */
export const ChangeEvent = t.Object({
  seq: Type.Integer({ minimum: 1, description: 'Strictly increasing, never reused.' }),
  type: t.Union(CHANGE_TYPES.map((type) => t.Literal(type))),
  code: t.String(),
  at: t.String({ format: 'date-time' }),
  club: t.Union([t.Record(t.String(), t.Unknown()), t.Null()], {
    description: 'The detail representation an anonymous caller gets after the change; null for club.removed.',
  }),
})
export type ChangeEvent = typeof ChangeEvent.static
