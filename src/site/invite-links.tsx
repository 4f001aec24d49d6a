/** @jsxImportSource preact */
import type { FieldErrors } from '../domain/check'
import type { Invite } from '../model/invite'
import { ErrorSummary, FormErrors, TextField } from './fields'
import { CsrfField, type Viewer } from './layout'
import { Table } from './table'

/** An invite link just made: its URL, shown on this page once (only its token's hash is kept). */
export interface MadeInvite {
  readonly url: string
  readonly expires_at: string
  readonly max_uses: number | null
}

/** The form that makes an invite link, as sent, when the domain refused it. */
export interface InviteForm {
  readonly hours: string
  readonly uses: string
  readonly errors: FieldErrors
}

/** The invite links part of a club's people page. */
export interface InvitesState {
  readonly code: string
  readonly invites: readonly Invite[]
  readonly made: MadeInvite | null
  readonly form: InviteForm | null
  /** How a date and time reads on the page (the campus time zone). */
  readonly when: (iso: string) => string
}

const IDS = { hours: 'invite-hours', uses: 'invite-uses', form: 'invite-form-error' }
const SUMMARY = {
  expires_in_hours: { id: IDS.hours, label: 'Hours until it expires' },
  max_uses: { id: IDS.uses, label: 'Uses' },
}

/** "3 of 5" uses left, or "No limit" for a link that admits anyone until it expires. */
const usesLeft = (invite: Pick<Invite, 'max_uses' | 'uses'>) =>
  invite.max_uses === null ? 'No limit' : `${invite.max_uses - invite.uses} of ${invite.max_uses}`

/**
 * A club's invite links (CONTRACT §23): the form that makes one, the link just made (shown this
 * once, to copy), and the live ones with their expiry, the uses left, and End.
 */
export function InvitesSection({ state, viewer }: { state: InvitesState; viewer: Viewer }) {
  const { code, made, form, when } = state
  const errors = form?.errors ?? {}
  return (
    <section aria-labelledby="invites">
      <h2 id="invites">Invite links</h2>
      <p>
        Whoever opens an invite link and confirms, signed in, joins the club at once as a member — no request to accept.
        A link works until it expires or its uses run out, or until you end it.
      </p>
      {made && (
        <div class="notice saved" role="status">
          <p>
            Your invite link is ready. Copy it now: it is shown this once. It works until {when(made.expires_at)}
            {made.max_uses === null ? '.' : ` for ${made.max_uses} ${made.max_uses === 1 ? 'person' : 'people'}.`}
          </p>
          <p class="field">
            <label for="invite-url">New invite link</label>
            <input id="invite-url" type="text" value={made.url} readOnly autocomplete="off" spellcheck={false} />
          </p>
        </div>
      )}
      {state.invites.length === 0 ? (
        <p>There are no live invite links.</p>
      ) : (
        <div class="invite-links">
          <Table
            head={['Expires', 'Uses left', 'By', 'End']}
            rows={state.invites.map((invite) => [
              <time dateTime={invite.expires_at}>{when(invite.expires_at)}</time>,
              usesLeft(invite),
              invite.created_by,
              <form method="post" action={`/clubs/${code}/invites/${invite.id}/end`} class="inline">
                <CsrfField viewer={viewer} />
                <button type="submit" class="secondary">
                  End <span class="visually-hidden">the link expiring {when(invite.expires_at)}</span>
                </button>
              </form>,
            ])}
          />
        </div>
      )}
      <form method="post" action={`/clubs/${code}/invites`} class="edit-section narrow" noValidate>
        <CsrfField viewer={viewer} />
        <h3>Make an invite link</h3>
        {form && <ErrorSummary errors={errors} fields={SUMMARY} />}
        <FormErrors id={IDS.form} errors={errors} fields={Object.keys(SUMMARY)} />
        <TextField
          id={IDS.hours}
          name="expires_in_hours"
          label="Hours until it expires"
          value={form?.hours ?? '48'}
          maxLength={4}
          errors={errors.expires_in_hours}
          help="From 1 to 168 (a week)."
        />
        <TextField
          id={IDS.uses}
          name="max_uses"
          label="Uses"
          value={form?.uses ?? ''}
          maxLength={5}
          errors={errors.max_uses}
          help="How many people may join with it, 1 to 1,000; leave it empty for any number until it expires."
        />
        <button type="submit">Make an invite link</button>
      </form>
    </section>
  )
}

/** What an invite link's page says to a signed-in person: join, or that they belong already. */
export function InvitePage({
  club,
  token,
  member,
  listed,
  viewer,
}: {
  club: { code: string; name: string; subtitle: string }
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
export function JoinedPage({ club }: { club: { code: string; name: string } }) {
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
