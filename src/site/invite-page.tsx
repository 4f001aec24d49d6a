/** @jsxImportSource preact */
import { CsrfField, type Viewer } from './layout'

// What a person who opens an invite link reads (docs/reference.md §23): the club and Join, or that they
// belong already, and the welcome once they joined.

interface Club {
  readonly code: string
  readonly name: string
  readonly subtitle: string
}

/** An invite link's page for a signed-in person: join, or that they belong already. */
export function InvitePage({
  club,
  token,
  member,
  listed,
  viewer,
}: {
  club: Club
  token: string
  member: boolean
  /** Whether the viewer may see the club's page (not while it awaits review). */
  listed: boolean
  viewer: Viewer
}) {
  if (member)
    return (
      <>
        <h1>You are already a member of {club.name}</h1>
        <p>This invite link was not used: it is left for someone else.</p>
        <p>
          <a href={`/clubs/${club.code}`}>{club.name}’s page</a> · <a href="/my-clubs">My clubs</a>
        </p>
      </>
    )
  return (
    <>
      <h1>Join {club.name}?</h1>
      {club.subtitle && <p class="subtitle">{club.subtitle}</p>}
      <p>
        You were invited to join {club.name}. Once you confirm you are a member of it, and its officers see you among
        its members. You can leave it whenever you like, from My clubs.
      </p>
      <form method="post" action={`/invites/${token}`} class="inline">
        <CsrfField viewer={viewer} />
        <button type="submit">Join {club.name}</button>
      </form>
      {listed && (
        <p>
          <a href={`/clubs/${club.code}`}>See the club’s page first</a>
        </p>
      )}
    </>
  )
}

/** After joining through an invite link. */
export function JoinedPage({ club }: { club: Pick<Club, 'code' | 'name'> }) {
  return (
    <>
      <h1>Welcome to {club.name}</h1>
      <p class="notice saved" role="status">
        You are now a member of {club.name}.
      </p>
      <p>
        <a href={`/clubs/${club.code}`}>{club.name}’s page</a> · <a href="/my-clubs">My clubs</a>
      </p>
    </>
  )
}
