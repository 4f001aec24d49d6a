/** @jsxImportSource preact */
import type { FieldErrors } from '../domain/check'
import type { CurrentRound, RoundClub, RoundRecord } from '../model/registration-round'
import { MAX_ROUND_MESSAGE_LENGTH } from '../model/registration-round'
import { After, described, ErrorSummary } from './fields'
import { CsrfField, type Viewer } from './layout'
import { dayText } from './re-registration'
import { ClubLink } from './run-clubs'
import { When } from './when'

/** The open round as the office follows it: its progress, and the clubs not confirmed yet. */
export interface OpenRound {
  readonly round: CurrentRound
  readonly waiting: readonly RoundClub[]
}

/** A club the last close let lapse, and whether it still is lapsed (not made active again since). */
export interface LapsedClub {
  readonly code: string
  readonly name: string
  readonly lapsed: boolean
}

export interface RoundsState {
  readonly open: OpenRound | null
  /** The open form as sent, with the domain's refusals; empty values when none was. */
  readonly form: { readonly deadline: string; readonly message: string; readonly errors: FieldErrors }
  /** The campus day today: the earliest deadline. */
  readonly today: string
  readonly lastClosed: { readonly round: RoundRecord; readonly clubs: readonly LapsedClub[] } | null
  readonly notice: string | null
}

const FORM_FIELDS = {
  deadline: { id: 'deadline', label: 'Deadline' },
  message: { id: 'message', label: 'Message to the clubs' },
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

function Progress({ open }: { open: OpenRound }) {
  const { round, waiting } = open
  return (
    <section aria-labelledby="round-heading">
      <h2 id="round-heading">
        The round open until <time dateTime={round.deadline}>{dayText(round.deadline)}</time>
      </h2>
      <p>
        Opened <When at={round.opened_at} />.{round.message && <> Its message: “{round.message}”</>}
      </p>
      <p class="round-progress">
        <strong>
          Confirmed {round.confirmed} of {round.clubs}
        </strong>{' '}
        active clubs.
      </p>
      <progress value={round.confirmed} max={Math.max(round.clubs, 1)} aria-label="Clubs confirmed">
        {round.confirmed} of {round.clubs}
      </progress>
      <p>
        <a href="/admin/rounds/clubs.csv" download>
          Download every club’s confirmation as CSV
        </a>
      </p>
      <p class="actions">
        <a class="button danger" href="/admin/rounds/close">
          Close the round
        </a>
      </p>
      <h3 id="waiting-heading">Not confirmed yet ({waiting.length})</h3>
      {waiting.length === 0 ? (
        <p>Every active club is confirmed.</p>
      ) : (
        <ul class="waiting" aria-labelledby="waiting-heading">
          {waiting.map((club) => (
            <li>
              <ClubLink club={club} />
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

function OpenForm({ state, viewer }: { state: RoundsState; viewer: Viewer }) {
  const { form } = state
  const deadline = {
    id: 'deadline',
    name: 'deadline',
    label: 'Deadline',
    errors: form.errors.deadline,
    help: 'The last day to re-register, today or later.',
  }
  const message = {
    id: 'message',
    name: 'message',
    label: 'Message to the clubs',
    errors: form.errors.message,
    help: 'Optional: shown beside the deadline.',
  }
  return (
    <section aria-labelledby="open-heading">
      <h2 id="open-heading">Open a re-registration round</h2>
      <p>
        Every active club’s owners and officers will see “Re-register by” the deadline on My clubs and their club’s
        pages, and confirm their club beside its officer list. When you close the round, every active club not confirmed
        becomes inactive.
      </p>
      <ErrorSummary errors={form.errors} fields={FORM_FIELDS} nothing="changed" />
      <form method="post" action="/admin/rounds" class="round-form">
        <CsrfField viewer={viewer} />
        <p class="field">
          <label for="deadline">Deadline</label>
          <input
            type="date"
            name="deadline"
            required
            min={state.today}
            value={form.deadline}
            {...described(deadline)}
          />
          <After {...deadline} />
        </p>
        <p class="field">
          <label for="message">Message to the clubs</label>
          <textarea name="message" rows={3} maxLength={MAX_ROUND_MESSAGE_LENGTH} {...described(message)}>
            {form.message}
          </textarea>
          <After {...message} />
        </p>
        <p class="actions">
          <button type="submit">Open the round</button>
        </p>
      </form>
    </section>
  )
}

/** Make active again: a lapsed club back (the API's PATCH {"active": true}); from the club's page, back to it. */
export function ReactivateForm({
  code,
  name,
  viewer,
  back,
}: {
  code: string
  name: string
  viewer: Viewer
  back?: 'club'
}) {
  return (
    <form method="post" action={`/admin/rounds/reactivate/${encodeURIComponent(code)}`} class="inline">
      <CsrfField viewer={viewer} />
      {back && <input type="hidden" name="back" value={back} />}
      <button type="submit" class="secondary">
        Make active again <span class="visually-hidden">{name}</span>
      </button>
    </form>
  )
}

/** On a lapsed club's page, for admins: why it is inactive, and the way back. */
export function LapsedPanel({ code, name, viewer }: { code: string; name: string; viewer: Viewer }) {
  return (
    <section class="office" aria-labelledby="lapsed-heading">
      <h2 id="lapsed-heading">Lapsed</h2>
      <p>Not re-registered when a round closed: inactive, and not in the public directory. Its history says when.</p>
      <ReactivateForm code={code} name={name} viewer={viewer} back="club" />
    </section>
  )
}

function LastClosed({ closed, viewer }: { closed: NonNullable<RoundsState['lastClosed']>; viewer: Viewer }) {
  const { round, clubs } = closed
  return (
    <section aria-labelledby="closed-heading">
      <h2 id="closed-heading">The last round</h2>
      <p>
        Closed <When at={round.closed_at!} /> (deadline <time dateTime={round.deadline}>{dayText(round.deadline)}</time>
        ): {count(clubs.length, 'club', 'clubs')} lapsed.
      </p>
      {clubs.length > 0 && (
        <ul class="lapsed saved-list">
          {clubs.map((club) => (
            <li>
              <span class="what">
                <ClubLink club={club} />
                {!club.lapsed && ': active again'}
              </span>
              {club.lapsed && <ReactivateForm code={club.code} name={club.name} viewer={viewer} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

/** The office's re-registration page (docs/reference.md §23): the round's progress, or the form opening one; the last close. */
export function RoundsPage({ state, viewer }: { state: RoundsState; viewer: Viewer }) {
  return (
    <>
      <h1>Re-registration</h1>
      {state.notice && (
        <p class="notice saved" role="status">
          {state.notice}
        </p>
      )}
      {state.open ? <Progress open={state.open} /> : <OpenForm state={state} viewer={viewer} />}
      {state.lastClosed && <LastClosed closed={state.lastClosed} viewer={viewer} />}
    </>
  )
}

/**
 * The confirmation Close asks for before it acts, as Revoke does: what closing does, and every
 * club that will lapse; only its button's POST closes the round. Works without JavaScript.
 */
export function CloseRoundPage({ open, viewer }: { open: OpenRound; viewer: Viewer }) {
  const { waiting, round } = open
  // The button before the list, which may be long: it says how many lapse, and the list names them.
  return (
    <>
      <h1>Close the round?</h1>
      <p>
        Closing the round makes {count(waiting.length, 'club', 'clubs')} not confirmed by now inactive at once: they
        leave the public directory, and their history says they lapsed. Their owners and officers still see them. You
        can make any of them active again afterwards.
      </p>
      <p>
        {round.confirmed} of {round.clubs} active clubs are confirmed.
      </p>
      <form method="post" action="/admin/rounds/close" class="decision">
        <CsrfField viewer={viewer} />
        <input type="hidden" name="round" value={String(round.id)} />
        <p class="actions">
          <button type="submit" class="danger">
            Close the round{waiting.length > 0 && ` and let ${count(waiting.length, 'club', 'clubs')} lapse`}
          </button>{' '}
          <a href="/admin/rounds">Cancel: keep it open</a>
        </p>
      </form>
      {waiting.length > 0 && (
        <>
          <h2 id="lapsing-heading">These clubs will lapse</h2>
          <ul class="lapsing" aria-labelledby="lapsing-heading">
            {waiting.map((club) => (
              <li>
                <ClubLink club={club} />
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  )
}
