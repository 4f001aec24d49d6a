/** @jsxImportSource preact */
import type { Role } from '../model/user'

/** Where a club stands with the activities office, as its officers read it. */
export type ClubStanding = 'new' | 'change' | 'change-rejected' | 'approved' | 'refused'

const STANDING: Record<ClubStanding, string> = {
  new: 'Awaiting review: not yet in the public directory',
  change: 'Change awaiting review: the public sees the approved version',
  'change-rejected': 'Change rejected: the public still sees the approved version',
  approved: 'Approved',
  refused: 'Not approved (rejected or revoked): not in the public directory',
}

export interface RunClub {
  readonly code: string
  readonly name: string
  readonly role: Role
  readonly standing: ClubStanding
  readonly active: boolean
  readonly pendingRequests: number
}

const requestsText = (n: number) =>
  n === 0 ? 'no pending request' : n === 1 ? '1 pending request' : `${n} pending requests`

/** The clubs a person owns or is an officer of (CONTRACT §20), each with its state and its pages. */
export function MyClubsPage({ clubs }: { clubs: readonly RunClub[] }) {
  return (
    <>
      <h1>My clubs</h1>
      {clubs.length === 0 ? (
        <div class="empty">
          <p>You do not run any club yet.</p>
          <p>
            The clubs you own or are an officer of show here, with their join requests. Ask a club’s owner to make you
            an officer, or <a href="/">browse the directory</a>.
          </p>
        </div>
      ) : (
        <ul class="my-clubs">
          {clubs.map((club) => (
            <li class="card">
              <div class="card-body">
                <h2>
                  <a href={`/clubs/${club.code}`}>{club.name}</a>
                </h2>
                <p class="role">You are its {club.role}.</p>
                <p class={`standing standing-${club.standing}`}>
                  {STANDING[club.standing]}
                  {!club.active && '; inactive'}
                </p>
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
      )}
    </>
  )
}
