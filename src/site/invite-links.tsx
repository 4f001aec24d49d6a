/** @jsxImportSource preact */
import type { FieldErrors } from '../domain/check'
import type { Invite } from '../model/invite'
import { ErrorSummary, FormErrors, TextField } from './fields'
import { CsrfField, type Viewer } from './layout'
import { Table } from './table'

// A club's invite links as its owners, officers and admins see them (docs/reference.md §23): the section of
// the members page, the page showing a link just made, and the form again when it was refused.

/** An invite link just made: its URL, shown on one page once (only its token's hash is kept). */
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

/** The live invite links on a club's members page. */
export interface InvitesState {
  readonly code: string
  readonly invites: readonly Invite[]
  /** How a date and time reads on the page (the campus time zone). */
  readonly when: (iso: string) => string
}

/** A date and time in `timeZone` as people read it, e.g. "24 Nov 2026, 18:00 UTC". */
export function timeIn(timeZone: string): (iso: string) => string {
  const format = new Intl.DateTimeFormat('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone,
    timeZoneName: 'short',
  })
  return (iso) => format.format(new Date(iso))
}

const IDS = { hours: 'invite-hours', uses: 'invite-uses', form: 'invite-form-error' }
const SUMMARY = {
  expires_in_hours: { id: IDS.hours, label: 'Hours until it expires' },
  max_uses: { id: IDS.uses, label: 'Uses' },
}

/** "3 of 5" uses left, or "No limit" for a link that admits anyone until it expires. */
const usesLeft = (invite: Pick<Invite, 'max_uses' | 'uses'>) =>
  invite.max_uses === null ? 'No limit' : `${invite.max_uses - invite.uses} of ${invite.max_uses}`

/** The form that makes an invite link: hours and uses, each with its error beside it when refused. */
function MakeInvite({ code, viewer, form }: { code: string; viewer: Viewer; form: InviteForm | null }) {
  const errors = form?.errors ?? {}
  return (
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
  )
}

/** A club's live invite links, each with its expiry, the uses left and End, and the form that makes one. */
export function InvitesSection({ state, viewer }: { state: InvitesState; viewer: Viewer }) {
  const { code, when } = state
  return (
    <section aria-labelledby="invites">
      <h2 id="invites">Invite links</h2>
      <p>
        Whoever opens an invite link and confirms, signed in, joins the club at once as a member — no request to accept.
        A link works until it expires or its uses run out, or until you end it.
      </p>
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
      <MakeInvite code={code} viewer={viewer} form={null} />
    </section>
  )
}

const BackToPeople = ({ code }: { code: string }) => (
  <p class="edit-links">
    <a href={`/clubs/${code}/requests#invites`}>Back to the members and invite links</a>
  </p>
)

/** A link just made: shown on this page once, never again (only its token's hash is kept). */
export function MadeInvitePage({
  club,
  made,
  when,
}: {
  club: { code: string; name: string }
  made: MadeInvite
  when: (iso: string) => string
}) {
  return (
    <>
      <h1>A new invite link to {club.name}</h1>
      <p class="notice saved" role="status">
        Copy the link now: it is shown this once. It works until {when(made.expires_at)}
        {made.max_uses === null ? '.' : ` for ${made.max_uses} ${made.max_uses === 1 ? 'person' : 'people'}.`}
      </p>
      <p class="field">
        <label for="invite-url">Invite link to {club.name}</label>
        <input id="invite-url" type="text" value={made.url} readOnly autocomplete="off" spellcheck={false} />
      </p>
      <BackToPeople code={club.code} />
    </>
  )
}

/** The form refused: again, with its values as sent and each error beside its field. */
export function RefusedInvitePage({
  club,
  form,
  viewer,
}: {
  club: { code: string; name: string }
  form: InviteForm
  viewer: Viewer
}) {
  return (
    <>
      <h1>An invite link to {club.name}</h1>
      <MakeInvite code={club.code} viewer={viewer} form={form} />
      <BackToPeople code={club.code} />
    </>
  )
}
