import { t } from 'elysia'

/** A name at most this long (docs/reference.md §23). */
export const MAX_INTEREST_NAME = 100
/** An e-mail address at most this long (RFC 5321's limit on a path). */
export const MAX_INTEREST_EMAIL = 254

/**
 * Someone without an account who is interested in a club (docs/reference.md §23), as the data file keeps
 * it: the name and e-mail address they gave, with their consent. No entry is made without the
 * consent box ticked, so `created_at` is also when they consented (the latest time, when the same
 * address was given again); the entry is removed a year after it.
 */
export const InterestRecord = t.Object({
  /** A random UUID: the same on every instance sharing a database. */
  id: t.String({ format: 'uuid' }),
  club: t.String(),
  name: t.String({ minLength: 1, maxLength: MAX_INTEREST_NAME }),
  email: t.String({ minLength: 3, maxLength: MAX_INTEREST_EMAIL }),
  created_at: t.String({ format: 'date-time' }),
})
export type InterestRecord = typeof InterestRecord.static
