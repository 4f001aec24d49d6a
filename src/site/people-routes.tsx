/** @jsxImportSource preact */
import { Elysia } from 'elysia'
import type { Caller } from '../domain/caller'
import type { FieldErrors } from '../domain/check'
import { NotFound, PermissionDenied, ValidationFailed } from '../domain/errors'
import type { ClubRecord } from '../model/club'
import { ClubPeoplePage } from './club-people'
import { field } from './forms'
import { callerOf, seeOther, signInFirst, type FormPost, type Shown, type SiteKit } from './kit'
import type { Viewer } from './layout'
import type { MemberForm } from './member-forms'
import { timeIn } from './invite-links'
import { roundNote } from './re-registration'

const HIDE = { detail: { hide: true } }

/** What the last change on the page did (its query parameter → the sentence), said once. */
const NOTICES: Record<string, (username: string) => string> = {
  accepted: (who) => `${who} is now a member.`,
  declined: (who) => `The request from ${who} was declined.`,
  added: (who) => `${who} is a member now.`,
  changed: (who) => `The changes to ${who} are saved.`,
  removed: (who) => `${who} is no longer a member.`,
  forgotten: () => 'The entry was deleted: that student is no longer on the list.',
  'invite-ended': () => 'The invite link is ended: it no longer works.',
  reregistered: (who) => `Confirmed by ${who} for this re-registration round: the club’s page says so.`,
}

function noticeOf(url: URL): string | null {
  for (const [name, say] of Object.entries(NOTICES)) {
    const who = url.searchParams.get(name)
    if (who) return say(who)
  }
  return null
}

/** A members form's fields as the domain's member body: `public` a checkbox, `role` only when the form has one. */
function memberBody(form: URLSearchParams) {
  return {
    ...(form.has('role') ? { role: field(form, 'role', 100) } : {}),
    title: field(form, 'title', 1000),
    public: form.get('public') === 'true',
  }
}

/**
 * A club's people (docs/reference.md §12, §22, §23): its join requests with Accept and Decline, its members —
 * added by username with a role, title and `public`, changed and removed by an owner or admin,
 * each member leaving by themselves —, its invite links (made and ended by invite-routes.tsx), and
 * its subscribers. The same MemberService, JoinRequestService and InviteService as the API's, with
 * their rules; to someone who does not run the club the page is a 404.
 */
export function peopleRoutes(kit: SiteKit) {
  const { clubs, members, requests, interests, invites, rounds } = kit.deps
  const when = timeIn(kit.deps.timeZone)

  /** The club, when the viewer runs it; a 404 otherwise, as for a club they cannot see. */
  function runClub(caller: Caller, code: string): ClubRecord {
    try {
      return clubs.editable(caller, code)
    } catch (error) {
      if (error instanceof PermissionDenied) throw new NotFound()
      throw error
    }
  }

  function peopleShown(viewer: Viewer, url: URL, code: string, form: MemberForm | null = null): Shown {
    const caller = callerOf(viewer)
    const club = runClub(caller, code)
    const state = {
      code: club.code,
      name: club.name,
      requests: requests.list(caller, club.code),
      members: members.list(caller, club.code),
      subscribers: members.subscribers(caller, club.code),
      interested: interests.list(caller, club.code),
      notice: form ? null : noticeOf(url),
      manages: members.manages(caller, club.code),
      form,
      invites: { code: club.code, invites: invites.list(caller, club.code), when },
      round: club.active ? roundNote(rounds.openRound(), rounds.confirmationOf(club.code)) : null,
    }
    return {
      title: `Join requests and members · ${club.name}`,
      content: <ClubPeoplePage state={state} viewer={viewer} />,
      status: form ? 400 : 200,
    }
  }

  const people = kit.page(({ url, viewer, params }) => {
    if (!viewer) return signInFirst(url)
    return peopleShown(viewer, url, params.code!)
  })

  const answer = (verb: 'accept' | 'decline') =>
    kit.action(async ({ url, viewer, params }) => {
      if (!viewer) return signInFirst(new URL(`/clubs/${params.code}/requests`, url))
      const caller = callerOf(viewer)
      const { code, username } = params as { code: string; username: string }
      if (verb === 'accept') await requests.accept(caller, code, username)
      else await requests.remove(caller, code, username)
      const done = verb === 'accept' ? 'accepted' : 'declined'
      return seeOther(`/clubs/${code}/requests?${done}=${encodeURIComponent(username)}`)
    })

  /**
   * A change to the members: done, then back to the page with its notice; refused by the domain
   * (a 400), the page again with the form as sent and each error beside its field.
   */
  const memberAction = (
    work: (caller: Caller, post: FormPost) => Promise<{ done: string; username: string; left?: boolean }>,
    formOf: (post: FormPost) => Omit<MemberForm, 'errors'>,
  ) =>
    kit.action(async (post) => {
      const { url, viewer, params } = post
      const code = params.code!
      if (!viewer) return signInFirst(new URL(`/clubs/${code}/requests`, url))
      try {
        const { done, username, left } = await work(callerOf(viewer), post)
        if (left) return seeOther('/my-clubs')
        return seeOther(`/clubs/${code}/requests?${done}=${encodeURIComponent(username)}`)
      } catch (error) {
        if (!(error instanceof ValidationFailed)) throw error
        const form = { ...formOf(post), errors: error.body as FieldErrors }
        return peopleShown(viewer, new URL(`/clubs/${code}/requests`, url), code, form)
      }
    })

  /** The form as sent for the member `target` (null: the add form). */
  const sent = (target: string | null, form: URLSearchParams) => ({
    target,
    values: {
      username: target ?? field(form, 'username', 200).trim(),
      role: form.get('role') ?? 'member',
      title: form.get('title') ?? '',
      public: form.get('public') === 'true',
    },
  })

  const addMember = memberAction(
    async (caller, { params, form }) => {
      runClub(caller, params.code!)
      const username = field(form, 'username', 200).trim()
      const body = { username, role: field(form, 'role', 100) || 'member', ...memberBody(form) }
      await members.add(caller, params.code!, body)
      return { done: 'added', username }
    },
    ({ form }) => sent(null, form),
  )

  const changeMember = memberAction(
    async (caller, { params, form }) => {
      await members.update(caller, params.code!, params.username!, memberBody(form))
      return { done: 'changed', username: params.username! }
    },
    ({ params, form }) => sent(params.username!, form),
  )

  const removeMember = memberAction(
    async (caller, { params }) => {
      const username = params.username!
      await members.remove(caller, params.code!, username)
      return { done: 'removed', username, left: username === caller.username }
    },
    ({ params }) => ({ target: params.username!, values: null }),
  )

  return new Elysia({ name: 'site-people' })
    .get('/clubs/:code/requests', people, HIDE)
    .post('/clubs/:code/requests/:username/accept', answer('accept'), HIDE)
    .post('/clubs/:code/requests/:username/decline', answer('decline'), HIDE)
    .post('/clubs/:code/members', addMember, HIDE)
    .post('/clubs/:code/members/:username', changeMember, HIDE)
    .post('/clubs/:code/members/:username/remove', removeMember, HIDE)
}
