/** @jsxImportSource preact */
import type { ConfirmationRecord, RoundRecord } from '../model/registration-round'
import { CsrfField, type Viewer } from './layout'
import { longDay } from './day'

// What owners and officers see of a re-registration round (docs/reference.md §23): "Re-register by
// <deadline>" with the office's message, and the Confirm button beside the officer list.

const MONTH = new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' })

/** A campus day (YYYY-MM-DD) as a person reads it: "15 December 2026". */
export const dayText = (day: string) => longDay(`${day}T00:00:00Z`)

/** A campus day's month: "November 2026". */
export const monthText = (day: string) => MONTH.format(new Date(`${day}T00:00:00Z`))

/** The round open now as its pages show it, and the club's confirmation in it (null: none yet). */
export interface RoundNote {
  readonly deadline: string
  readonly message: string
  readonly confirmation: ConfirmationRecord | null
}

export const roundNote = (round: RoundRecord | null, confirmation: ConfirmationRecord | null): RoundNote | null =>
  round && { deadline: round.deadline, message: round.message, confirmation }

/** Where a club's owners and officers confirm it: beside its officer list. */
export const confirmHref = (code: string) => `/clubs/${encodeURIComponent(code)}/requests#re-registration`

/** "Re-register by <deadline>", the office's message, and whether the club is confirmed yet. */
export function ReRegisterNotice({ round, code, name }: { round: RoundNote; code?: string; name?: string }) {
  const { confirmation } = round
  return (
    <div class="notice re-register">
      <p>
        <strong>
          Re-register by <time dateTime={round.deadline}>{dayText(round.deadline)}</time>
        </strong>
        {round.message && <>: {round.message}</>}
      </p>
      {code !== undefined &&
        (confirmation ? (
          <p>
            Confirmed by {confirmation.confirmed_by} on{' '}
            <time dateTime={confirmation.confirmed_at}>{longDay(confirmation.confirmed_at)}</time>.
          </p>
        ) : (
          <p>
            Not confirmed yet: a club not confirmed by then becomes inactive.{' '}
            <a href={confirmHref(code)}>
              Check the officers and confirm<span class="visually-hidden"> {name}</span>
            </a>
          </p>
        ))}
    </div>
  )
}

/** The Confirm button, after the members: departed officers are removed first, then the club confirmed. */
export function ConfirmSection({
  code,
  name,
  round,
  viewer,
}: {
  code: string
  name: string
  round: RoundNote
  viewer: Viewer
}) {
  return (
    <section aria-labelledby="re-registration" class="re-registration">
      <h2 id="re-registration">Re-registration</h2>
      <ReRegisterNotice round={round} />
      {round.confirmation && (
        <p>
          {name} is confirmed for this round, by {round.confirmation.confirmed_by} on{' '}
          <time dateTime={round.confirmation.confirmed_at}>{longDay(round.confirmation.confirmed_at)}</time>.
        </p>
      )}
      <p id="confirm-help" class="help">
        First check the members above and remove the officers who have left. Then confirm that {name} is still running
        with these officers: its page will say “Last confirmed” this month.
      </p>
      <form method="post" action={`/clubs/${encodeURIComponent(code)}/registration`} class="inline">
        <CsrfField viewer={viewer} />
        <button type="submit" aria-describedby="confirm-help" class={round.confirmation ? 'secondary' : undefined}>
          {round.confirmation ? 'Confirm again' : 'Confirm'} <span class="visually-hidden">{name}</span>
        </button>
      </form>
    </section>
  )
}

/** "Last confirmed <month year>" on a club's page; nothing for a club never confirmed. */
export function LastConfirmed({ day }: { day: string | null }) {
  if (!day) return null
  return (
    <p class="last-confirmed">
      Last confirmed <time dateTime={day}>{monthText(day)}</time>
    </p>
  )
}
