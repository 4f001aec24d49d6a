/** @jsxImportSource preact */
import type { ComponentChildren } from 'preact'
import type { Role } from '../model/user'
import { CsrfField, type Viewer } from './layout'
import { ClubLink, RunList, type RunClub } from './run-clubs'
import { Day } from './day'

/** A club one belongs to, in any role. */
export interface Belonging {
  readonly code: string
  readonly name: string
  readonly role: Role
  readonly title: string
  /** The last owner cannot leave (docs/reference.md §22): another owner must be named first. */
  readonly lastOwner: boolean
}

/** A club one saved (a favorite, a subscription). */
export interface Saved {
  readonly code: string
  readonly name: string
}

/** One's own join request, still waiting for the club's officers. */
export interface Waiting {
  readonly code: string
  readonly name: string
  readonly message: string
  readonly at: string
}

/** A refusal of one of the page's buttons: which one (`at`, an element id), and the domain's words. */
export interface Problem {
  readonly at: string
  readonly label: string
  readonly messages: readonly string[]
}

export interface MyClubsState {
  readonly run: readonly RunClub[]
  readonly memberships: readonly Belonging[]
  readonly favorites: readonly Saved[]
  readonly subscriptions: readonly Saved[]
  readonly requests: readonly Waiting[]
  /** The secret address of one's calendar, or null while one has none. */
  readonly calendar: string | null
  readonly notice: string | null
  readonly problem: Problem | null
}

/** What the page says after one of its buttons did its work (`?done=`). */
export const MY_CLUBS_DONE: Readonly<Record<string, string>> = {
  left: 'You have left the club.',
  withdrawn: 'Your request to join was withdrawn.',
  unfavorited: 'Removed from your favorites.',
  unsubscribed: 'Unsubscribed: the club’s officers no longer see you among their subscribers.',
  'calendar-made': 'Your calendar address is ready.',
  'calendar-replaced': 'Your calendar has a new address; the old one no longer works.',
  registered:
    'Your club is registered, with you as its owner. It awaits review by the activities office before it is in the public directory.',
  'registered-approved': 'Your club is registered, with you as its owner, and it is in the directory.',
}

/** What subscribing does, said where people subscribe and unsubscribe (docs/reference.md §22). */
export const SUBSCRIBING =
  'Subscribing lets the club’s officers see your username and, when campus sign-in gave one, your e-mail address, so they can write to you. This site itself sends no e-mail.'

const ROLE: Record<Role, string> = { owner: 'Owner', officer: 'Officer', member: 'Member' }
const problemId = (at: string) => `${at}-problem`

/** A POST button about one club; a refusal of it shows beside it (and in the summary above). */
function ClubButton(props: {
  viewer: Viewer
  action: string
  id: string
  label: string
  club: string
  problem: Problem | null
  secondary?: boolean
}) {
  const refused = props.problem?.at === props.id ? props.problem : null
  return (
    <form method="post" action={props.action} class="inline">
      <CsrfField viewer={props.viewer} />
      <button
        type="submit"
        id={props.id}
        class={props.secondary ? 'secondary' : undefined}
        aria-describedby={refused ? problemId(props.id) : undefined}
      >
        {props.label} <span class="visually-hidden">{props.club}</span>
      </button>
      {refused && (
        <span id={problemId(props.id)} class="error">
          {refused.messages.join(' ')}
        </span>
      )}
    </form>
  )
}

function Section(props: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section class="my-section" aria-labelledby={`${props.id}-heading`}>
      <h2 id={`${props.id}-heading`}>{props.title}</h2>
      {props.children}
    </section>
  )
}

function Memberships({ state, viewer }: { state: MyClubsState; viewer: Viewer }) {
  if (state.memberships.length === 0)
    return <p class="empty">You are not a member of any club yet. A club’s page has Ask to join.</p>
  return (
    <ul class="saved-list">
      {state.memberships.map((club) => (
        <li>
          <span class="what">
            <ClubLink club={club} />: {ROLE[club.role]}
            {club.title && `, ${club.title}`}
          </span>
          {club.lastOwner ? (
            <span id={`leave-${club.code}`} class="help">
              You are its last owner: name another owner before you leave.
            </span>
          ) : (
            <ClubButton
              viewer={viewer}
              action={`/my-clubs/memberships/${encodeURIComponent(club.code)}/leave`}
              id={`leave-${club.code}`}
              label="Leave"
              club={club.name}
              problem={state.problem}
              secondary
            />
          )}
          {club.lastOwner && state.problem?.at === `leave-${club.code}` && (
            <span id={problemId(state.problem.at)} class="error">
              {state.problem.messages.join(' ')}
            </span>
          )}
        </li>
      ))}
    </ul>
  )
}

function SavedList(props: {
  clubs: readonly Saved[]
  kind: 'favorites' | 'subscriptions'
  label: string
  empty: string
  state: MyClubsState
  viewer: Viewer
}) {
  if (props.clubs.length === 0) return <p class="empty">{props.empty}</p>
  return (
    <ul class="saved-list">
      {props.clubs.map((club) => (
        <li>
          <span class="what">
            <ClubLink club={club} />
          </span>
          <ClubButton
            viewer={props.viewer}
            action={`/my-clubs/${props.kind}/${encodeURIComponent(club.code)}/remove`}
            id={`${props.kind}-${club.code}`}
            label={props.label}
            club={club.name}
            problem={props.state.problem}
            secondary
          />
        </li>
      ))}
    </ul>
  )
}

function Requests({ state, viewer }: { state: MyClubsState; viewer: Viewer }) {
  if (state.requests.length === 0) return <p class="empty">No request of yours is waiting.</p>
  return (
    <ul class="saved-list">
      {state.requests.map((request) => (
        <li>
          <span class="what">
            <ClubLink club={request} />, asked on <Day at={request.at} />
            {request.message && <q class="prose">{request.message}</q>}
          </span>
          <ClubButton
            viewer={viewer}
            action={`/my-clubs/requests/${encodeURIComponent(request.code)}/withdraw`}
            id={`withdraw-${request.code}`}
            label="Withdraw"
            club={request.name}
            problem={state.problem}
            secondary
          />
        </li>
      ))}
    </ul>
  )
}

function Calendar({ state, viewer }: { state: MyClubsState; viewer: Viewer }) {
  return (
    <>
      <p id="calendar-help" class="help">
        The meetings of your favorite clubs, for a calendar app to subscribe to. Calendar apps send no password, so the
        address is the key: anyone who has it can read the calendar. Replace it if it got out; the old one stops working
        at once.
      </p>
      {state.calendar ? (
        <p class="field">
          <label for="calendar-address">Your calendar address</label>
          <input id="calendar-address" type="text" readOnly value={state.calendar} aria-describedby="calendar-help" />
        </p>
      ) : (
        <p>You have no calendar address yet.</p>
      )}
      <form method="post" action="/my-clubs/calendar" class="inline">
        <CsrfField viewer={viewer} />
        <button type="submit" class="secondary">
          {state.calendar ? 'Replace' : 'Make my calendar address'}
          {state.calendar && <span class="visually-hidden"> the calendar address</span>}
        </button>
      </form>
    </>
  )
}

/** The refusal of the last button, as a summary that links to it. */
function ProblemSummary({ problem }: { problem: Problem }) {
  return (
    <div class="error-summary" role="alert" aria-labelledby="error-summary-title" tabIndex={-1}>
      <h2 id="error-summary-title">There is a problem; nothing was changed</h2>
      <ul>
        <li>
          <a href={`#${problem.at}`}>
            {problem.label}: {problem.messages.join(' ')}
          </a>
        </li>
      </ul>
    </div>
  )
}

/**
 * A person's own page (docs/reference.md §20, §22): the clubs they run, their memberships, favorites,
 * subscriptions, join requests waiting, and their calendar's secret address, each with its button.
 */
export function MyClubsPage({ state, viewer }: { state: MyClubsState; viewer: Viewer }) {
  return (
    <>
      <h1>My clubs</h1>
      {state.problem && <ProblemSummary problem={state.problem} />}
      {state.notice && (
        <p class="notice saved" role="status">
          {state.notice}
        </p>
      )}
      <p class="edit-links">
        <a href="/clubs/new">Register a club</a> · <a href="/">Browse the directory</a>
      </p>
      <Section id="run" title="Clubs you run">
        <RunList clubs={state.run} />
      </Section>
      <Section id="memberships" title="Your memberships">
        <Memberships state={state} viewer={viewer} />
      </Section>
      <Section id="favorites" title="Favorites">
        <SavedList
          clubs={state.favorites}
          kind="favorites"
          label="Unfavorite"
          empty="No favorites yet. A club’s page has Favorite."
          state={state}
          viewer={viewer}
        />
      </Section>
      <Section id="subscriptions" title="Subscriptions">
        <p class="help">{SUBSCRIBING}</p>
        <SavedList
          clubs={state.subscriptions}
          kind="subscriptions"
          label="Unsubscribe"
          empty="No subscriptions yet. A club’s page has Subscribe."
          state={state}
          viewer={viewer}
        />
      </Section>
      <Section id="requests" title="Join requests waiting">
        <Requests state={state} viewer={viewer} />
      </Section>
      <Section id="calendar" title="Your calendar">
        <Calendar state={state} viewer={viewer} />
      </Section>
    </>
  )
}
