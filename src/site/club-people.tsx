/** @jsxImportSource preact */
import type { Member, Subscriber } from '../domain/members'
import type { JoinRequest } from '../model/join-request'
import type { Interested } from '../domain/interests'
import { InterestedSection } from './interest-form'
import { InvitesSection, type InvitesState } from './invite-links'
import { CsrfField, type Viewer } from './layout'
import { MembersSection, type MemberForm } from './member-forms'
import { ConfirmSection, type RoundNote } from './re-registration'
import { Table } from './table'
import { Day } from './day'

export interface PeopleState {
  readonly code: string
  readonly name: string
  readonly requests: readonly JoinRequest[]
  readonly members: readonly Member[]
  readonly subscribers: readonly Subscriber[]
  /** Students interested without an account (docs/reference.md §23), newest first. */
  readonly interested: readonly Interested[]
  /** What the last Accept or Decline, or change to the members, did, said once. */
  readonly notice: string | null
  /** Whether the viewer may change and remove any member (an owner or admin). */
  readonly manages: boolean
  /** A members form the domain refused, shown again with its errors; null when none was. */
  readonly form: MemberForm | null
  /** Its invite links (docs/reference.md §23). */
  readonly invites: InvitesState
  /** The re-registration round open now, with the club's confirmation in it; null when none is open. */
  readonly round: RoundNote | null
}

function RequestItem({ request, code, viewer }: { request: JoinRequest; code: string; viewer: Viewer }) {
  const action = (verb: 'accept' | 'decline') =>
    `/clubs/${code}/requests/${encodeURIComponent(request.username)}/${verb}`
  return (
    <li class="request">
      <p>
        <strong>{request.username}</strong> asked on <Day at={request.created_at} />
      </p>
      {request.message ? <blockquote class="prose">{request.message}</blockquote> : <p class="help">No message.</p>}
      <div class="actions">
        <form method="post" action={action('accept')} class="inline">
          <CsrfField viewer={viewer} />
          <button type="submit">
            Accept <span class="visually-hidden">{request.username}</span>
          </button>
        </form>
        <form method="post" action={action('decline')} class="inline">
          <CsrfField viewer={viewer} />
          <button type="submit" class="secondary">
            Decline <span class="visually-hidden">{request.username}</span>
          </button>
        </form>
      </div>
    </li>
  )
}

/** A club's pending join requests, each with Accept and Decline, its members, its invite links and its subscribers (docs/reference.md §12, §20, §22, §23). */
export function ClubPeoplePage({ state, viewer }: { state: PeopleState; viewer: Viewer }) {
  return (
    <>
      <h1>Join requests and members of {state.name}</h1>
      {state.notice && (
        <p class="notice saved" role="status">
          {state.notice}
        </p>
      )}
      <p class="edit-links">
        <a href={`/clubs/${state.code}`}>The club’s page</a> · <a href={`/clubs/${state.code}/edit`}>Edit the club</a> ·{' '}
        <a href="/my-clubs">My clubs</a>
      </p>
      <section aria-labelledby="requests">
        <h2 id="requests">Pending join requests</h2>
        {state.requests.length === 0 ? (
          <p>No one is waiting to join.</p>
        ) : (
          <ul class="requests">
            {state.requests.map((request) => (
              <RequestItem request={request} code={state.code} viewer={viewer} />
            ))}
          </ul>
        )}
      </section>
      <MembersSection
        code={state.code}
        members={state.members}
        viewer={viewer}
        manages={state.manages}
        form={state.form}
      />
      {state.round && <ConfirmSection code={state.code} name={state.name} round={state.round} viewer={viewer} />}
      <InvitesSection state={state.invites} viewer={viewer} />
      <section aria-labelledby="subscribers">
        <h2 id="subscribers">Subscribers</h2>
        {state.subscribers.length === 0 ? (
          <p>No one has subscribed yet.</p>
        ) : (
          <>
            <Table
              head={['Username', 'Email', 'Since']}
              rows={state.subscribers.map((subscriber) => [
                subscriber.username,
                subscriber.email ?? '—',
                subscriber.subscribed_at ? <Day at={subscriber.subscribed_at} /> : '—',
              ])}
            />
            <p>
              <a href={`/clubs/${state.code}/subscribers.csv`} download>
                Download the subscribers as CSV
              </a>
            </p>
          </>
        )}
      </section>
      <InterestedSection code={state.code} entries={state.interested} viewer={viewer} />
    </>
  )
}
