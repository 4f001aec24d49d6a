/** @jsxImportSource preact */
import { Elysia } from 'elysia'
import type { Caller } from '../domain/caller'
import type { FieldErrors } from '../domain/check'
import { NotFound, PermissionDenied, ValidationFailed } from '../domain/errors'
import { inviteAddress } from '../edge/endpoints/invites'
import type { ClubRecord } from '../model/club'
import { field } from './forms'
import { MadeInvitePage, RefusedInvitePage, timeIn } from './invite-links'
import { InvitePage, JoinedPage } from './invite-page'
import { callerOf, seeOther, signInFirst, type SiteKit } from './kit'

const HIDE = { detail: { hide: true } }

/** A number as typed, for the domain to check: digits alone as the number, anything else as it is (refused). */
const whole = (text: string) => (/^\d{1,6}$/.test(text) ? Number(text) : text)

/**
 * Invite links on the site (docs/reference.md §23). A club's owners, officers and admins make one from the
 * members page (the link shown once, on the page that answers) and end one there. Whoever opens a
 * link signs in first and comes back to it; signed in, they see the club and `Join <club>`, and
 * confirming makes them a member through the InviteService, which counts the use in the same
 * write. Past its expiry, its uses or its end, the link is a 404 page.
 */
export function inviteRoutes(kit: SiteKit) {
  const { invites, clubs } = kit.deps
  const when = timeIn(kit.deps.timeZone)

  /** The club, when the caller runs it; a 404 otherwise, as its members page is. */
  function runClub(caller: Caller, code: string): ClubRecord {
    try {
      return clubs.editable(caller, code)
    } catch (error) {
      throw error instanceof PermissionDenied ? new NotFound() : error
    }
  }

  const make = kit.action(async ({ url, viewer, params, form }) => {
    const code = params.code!
    if (!viewer) return signInFirst(new URL(`/clubs/${code}/requests`, url))
    const caller = callerOf(viewer)
    const club = runClub(caller, code)
    const hours = field(form, 'expires_in_hours', 100).trim()
    const uses = field(form, 'max_uses', 100).trim()
    const body = { expires_in_hours: whole(hours), ...(uses === '' ? {} : { max_uses: whole(uses) }) }
    try {
      const { invite, token } = await invites.create(caller, code, body)
      const made = { ...invite, url: inviteAddress(url.origin, token) }
      return {
        title: `A new invite link · ${club.name}`,
        content: <MadeInvitePage club={club} made={made} when={when} />,
      }
    } catch (error) {
      if (!(error instanceof ValidationFailed)) throw error
      const refused = { hours, uses, errors: error.body as FieldErrors }
      return {
        title: `An invite link · ${club.name}`,
        content: <RefusedInvitePage club={club} form={refused} viewer={viewer} />,
        status: 400,
      }
    }
  })

  const end = kit.action(async ({ url, viewer, params }) => {
    const code = params.code!
    if (!viewer) return signInFirst(new URL(`/clubs/${code}/requests`, url))
    const caller = callerOf(viewer)
    runClub(caller, code)
    await invites.end(caller, code, params.id!)
    return seeOther(`/clubs/${code}/requests?invite-ended=1#invites`)
  })

  // Never kept: whether a link still works changes without the directory's data version moving.
  const invitePage = kit.step(async ({ url, viewer, params }) => {
    const token = params.token!
    if (!viewer) {
      invites.open(token)
      return signInFirst(url)
    }
    const caller = callerOf(viewer)
    const { club, member } = invites.offer(caller, token)
    const listed = clubs.shownTo(caller, club.code) !== undefined
    return {
      title: member ? `Already a member of ${club.name}` : `Join ${club.name}`,
      content: <InvitePage club={club} token={token} member={member} listed={listed} viewer={viewer} />,
    }
  })

  const join = kit.action(async ({ url, viewer, params }) => {
    if (!viewer) return signInFirst(url)
    const caller = callerOf(viewer)
    const token = params.token!
    const { club, joined } = await invites.join(caller, token)
    if (joined) return { title: `Welcome to ${club.name}`, content: <JoinedPage club={club} /> }
    const listed = clubs.shownTo(caller, club.code) !== undefined
    return {
      title: `Already a member of ${club.name}`,
      content: <InvitePage club={club} token={token} member listed={listed} viewer={viewer} />,
    }
  })

  return new Elysia({ name: 'site-invites' })
    .post('/clubs/:code/invites', make, HIDE)
    .post('/clubs/:code/invites/:id/end', end, HIDE)
    .get('/invites/:token', invitePage, HIDE)
    .post('/invites/:token', join, HIDE)
}
