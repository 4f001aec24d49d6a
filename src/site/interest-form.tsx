/** @jsxImportSource preact */
import { Elysia } from 'elysia'
import { interestTable } from '../domain/cells'
import type { FieldErrors } from '../domain/check'
import { ApiError, ValidationFailed } from '../domain/errors'
import type { Interested } from '../domain/interests'
import { MAX_INTEREST_EMAIL, MAX_INTEREST_NAME } from '../model/interest'
import { TokenBuckets } from '../edge/rate-limit'
import { addressOf } from '../edge/request-facts'
import { CheckField, ErrorSummary, TextField } from './fields'
import { field } from './forms'
import { callerOf, seeOther, signInFirst, type Shown, type SiteKit, type Visit } from './kit'
import { CsrfField, type Viewer } from './layout'
import { csvAnswer } from './officer-pages'
import { Table } from './table'
import { Day } from './day'

const HIDE = { detail: { hide: true } }

/** Entries a minute from one client address (docs/reference.md §23): tries, whatever came of them. */
export const INTEREST_PER_MINUTE = 10

/** What the "I'm interested" form holds: empty, as sent (refused, its errors beside its fields), or done. */
export interface InterestState {
  readonly values: { readonly name: string; readonly email: string; readonly consent: boolean }
  readonly errors: FieldErrors
  /** The entry was kept (`?interest=thanks`, after the form's redirect). */
  readonly thanks: boolean
}

export const interestStateOf = (url: URL): InterestState => ({
  values: { name: '', email: '', consent: false },
  errors: {},
  thanks: url.searchParams.get('interest') === 'thanks',
})

const FIELDS = {
  name: { id: 'interest-name', label: 'Your name' },
  email: { id: 'interest-email', label: 'Your e-mail address' },
  consent: { id: 'interest-consent', label: 'Consent' },
}

/** What the consent box says is kept, who sees it and for how long. */
export const consentText = (club: string) =>
  `I agree that ${club} keeps my name and e-mail address so that its officers can contact me about the club. ` +
  'Only its owners and officers (and the activities office) see them, and they are deleted after a year, or sooner when an officer deletes them.'

/** The club page's "I'm interested" form (docs/reference.md §23), for anyone, signed in or not, on a club that accepts members. */
export function InterestSection({
  code,
  club,
  viewer,
  state,
}: {
  code: string
  club: string
  viewer: Viewer | null
  state: InterestState
}) {
  const { values, errors } = state
  return (
    <section aria-labelledby="interest" class="interest">
      <h2 id="interest">I’m interested</h2>
      {state.thanks && (
        <p class="notice saved" role="status">
          Thank you! The club’s officers can now see your name and e-mail address and get in touch.
        </p>
      )}
      <p>No account needed: leave your name and e-mail address, and the club’s officers can write to you.</p>
      <ErrorSummary errors={errors} fields={FIELDS} nothing="saved" />
      <form method="post" action={`/clubs/${code}/interest#interest`} class="narrow">
        {viewer && <CsrfField viewer={viewer} />}
        <TextField
          {...FIELDS.name}
          name="name"
          value={values.name}
          maxLength={MAX_INTEREST_NAME}
          autocomplete="name"
          errors={errors.name}
        />
        <TextField
          {...FIELDS.email}
          type="email"
          name="email"
          value={values.email}
          maxLength={MAX_INTEREST_EMAIL}
          autocomplete="email"
          errors={errors.email}
        />
        <CheckField
          id={FIELDS.consent.id}
          name="consent"
          label={consentText(club)}
          checked={values.consent}
          errors={errors.consent}
        />
        <button type="submit">I’m interested</button>
      </form>
    </section>
  )
}

/** The students interested in a club, for its officers on the people page: each with Delete, and the CSV file. */
export function InterestedSection({
  code,
  entries,
  viewer,
}: {
  code: string
  entries: readonly Interested[]
  viewer: Viewer
}) {
  return (
    <section aria-labelledby="interested">
      <h2 id="interested">Interested students</h2>
      <p class="help">
        People without an account who left their name and e-mail address on the club’s page, agreeing that the club
        keeps them. Each entry is deleted a year after it was made.
      </p>
      {entries.length === 0 ? (
        <p>No one has left their name yet.</p>
      ) : (
        <>
          <Table
            head={['Name', 'E-mail', 'Since', 'Entry']}
            rows={entries.map((entry) => [
              entry.name,
              <a href={`mailto:${entry.email}`}>{entry.email}</a>,
              <Day at={entry.created_at} />,
              <form method="post" action={`/clubs/${code}/interested/${entry.id}/delete`} class="inline">
                <CsrfField viewer={viewer} />
                <button type="submit" class="secondary">
                  Delete <span class="visually-hidden">{entry.name}</span>
                </button>
              </form>,
            ])}
          />
          <p>
            <a href={`/clubs/${code}/interested.csv`} download>
              Download CSV
            </a>{' '}
            <span class="help">(the interested students)</span>
          </p>
        </>
      )}
    </section>
  )
}

/** Too many entries from one address (docs/reference.md §23): a 429 page, with when to try again. */
class TooManyTries extends ApiError {
  constructor(wait: number) {
    super(
      429,
      { detail: `Too many tries from your address: wait ${wait} second${wait === 1 ? '' : 's'} and try again.` },
      { 'Retry-After': String(wait) },
    )
  }
}

/**
 * `POST /clubs/{code}/interest`: the form checked as every form of the site is (Origin; a
 * signed-in reader's session token), at most 10 a minute from one client address (as the service
 * determines it behind a trusted proxy), then kept; refused, the club's page again (`show`) with
 * the form as sent and each error beside its field.
 */
export function interestPost(kit: SiteKit, show: (visit: Visit, interest: InterestState) => Shown) {
  const { interests, now } = kit.deps
  const tries = new TokenBuckets(INTEREST_PER_MINUTE, () => (now ? now().getTime() : Date.now()))
  const keep = kit.action(async (visit) => {
    const { form, params } = visit
    const values = {
      name: field(form, 'name', 1000),
      email: field(form, 'email', 1000),
      consent: form.get('consent') === 'true',
    }
    try {
      await interests.add(params.code!, values)
    } catch (error) {
      // A club that takes no members has no form to show again: its refusal is a page of its own.
      if (!(error instanceof ValidationFailed) || 'club' in error.body) throw error
      return { ...show(visit, { values, errors: error.body as FieldErrors, thanks: false }), status: 400 }
    }
    return seeOther(`/clubs/${params.code}?interest=thanks#interest`)
  })
  const refuse = (wait: number) =>
    kit.step(async () => {
      throw new TooManyTries(wait)
    })
  // Only the request and its parameters, named: given the whole context, Elysia would read the body first.
  return async ({ request, params }: { request: Request; params: Record<string, string> }): Promise<Response> => {
    const wait = tries.take(addressOf(request) ?? 'unknown')
    if (wait === 0) return keep({ request, params })
    const refused = await refuse(wait)({ request, params })
    refused.headers.set('Retry-After', String(wait))
    return refused
  }
}

/** What officers do with the interested students on the site: delete one, download them all as CSV. */
export function interestedRoutes(kit: SiteKit) {
  const { interests } = kit.deps

  const remove = kit.action(async ({ url, viewer, params }) => {
    if (!viewer) return signInFirst(new URL(`/clubs/${params.code}/requests`, url))
    await interests.remove(callerOf(viewer), params.code!, params.id!)
    return seeOther(`/clubs/${params.code}/requests?forgotten=1#interested`)
  })

  const file = csvAnswer(kit, (caller, code) => interestTable(interests.list(caller, code)), 'interested')

  return new Elysia({ name: 'site-interested' })
    .post('/clubs/:code/interested/:id/delete', remove, HIDE)
    .get('/clubs/:code/interested.csv', file, HIDE)
}
