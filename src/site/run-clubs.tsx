/** @jsxImportSource preact */
import type { ClubService } from '../domain/clubs'
import type { ClubRecord, LastDecision } from '../model/club'
import type { Role } from '../model/user'
import { ReRegisterNotice, type RoundNote } from './re-registration'
import { When } from './when'

/** Where a club stands with the activities office, as its officers read it. */
export type ClubStanding = 'new' | 'change' | 'change-rejected' | 'approved' | 'refused'

const STANDING: Record<ClubStanding, string> = {
  new: 'Awaiting review: not yet in the public directory',
  change: 'Change awaiting review: the public sees the approved version',
  'change-rejected': 'Change rejected: the public still sees the approved version',
  approved: 'Approved',
  refused: 'Not approved (rejected or revoked): not in the public directory',
}

/** Where `record` stands with the office: the words the officers' pages use. */
export function clubStanding(clubs: ClubService, record: ClubRecord): ClubStanding {
  const review = clubs.reviewState(record)
  if (review === 'new club') return 'new'
  if (review) return 'change'
  if (record.approved) return 'approved'
  return record.approved_version ? 'change-rejected' : 'refused'
}

export interface RunClub {
  readonly code: string
  readonly name: string
  readonly role: Role
  readonly standing: ClubStanding
  readonly active: boolean
  readonly pendingRequests: number
  /** The latest decision, when it was a rejection or a revocation; null otherwise. */
  readonly refusal: LastDecision | null
  /** The re-registration round open now and the club's confirmation in it; null when none is open (docs/reference.md §23). */
  readonly round: RoundNote | null
}

const requestsText = (n: number) =>
  n === 0 ? 'no pending request' : n === 1 ? '1 pending request' : `${n} pending requests`

/** A link to a club's page. */
export const ClubLink = ({ club }: { club: { code: string; name: string } }) => (
  <a href={`/clubs/${encodeURIComponent(club.code)}`}>{club.name}</a>
)

/** The first section of My clubs: the clubs one owns or is an officer of, each with its state and its pages. */
export function RunList({ clubs }: { clubs: readonly RunClub[] }) {
  if (clubs.length === 0)
    return (
      <div class="empty">
        <p>You do not run any club yet.</p>
        <p>
          The clubs you own or are an officer of show here, with their join requests. Ask a club’s owner to make you an
          officer, or <a href="/clubs/new">register a club</a>.
        </p>
      </div>
    )
  return (
    <ul class="my-clubs">
      {clubs.map((club) => (
        <li class="card">
          <div class="card-body">
            <h3>
              <ClubLink club={club} />
            </h3>
            <p class="role">You are its {club.role}.</p>
            <p class={`standing standing-${club.standing}`}>
              {STANDING[club.standing]}
              {!club.active && '; inactive'}
            </p>
            {club.refusal && (
              <p class="last-decision">
                {club.refusal.action === 'rejected' ? 'Rejected' : 'Revoked'}
                {club.refusal.by && ` by ${club.refusal.by}`} on <When at={club.refusal.at} />
                {club.refusal.comment ? `: “${club.refusal.comment}”` : ', with no comment.'}
              </p>
            )}
            {club.round && <ReRegisterNotice round={club.round} code={club.code} name={club.name} />}
            <p class="actions">
              <a class="button" href={`/clubs/${club.code}/edit`}>
                Edit <span class="visually-hidden">{club.name}</span>
              </a>
              <a href={`/clubs/${club.code}/requests`}>
                Join requests and members<span class="visually-hidden"> of {club.name}</span>
                {` (${requestsText(club.pendingRequests)})`}
              </a>
            </p>
          </div>
        </li>
      ))}
    </ul>
  )
}
