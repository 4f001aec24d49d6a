/** @jsxImportSource preact */
import { Elysia } from 'elysia'
import { callerOf, signInFirst, type SiteKit } from './kit'
import { InvitePage, JoinedPage } from './invite-links'

const HIDE = { detail: { hide: true } }

/**
 * An invite link's page (CONTRACT §23): the club it invites to and `Join <club>`, for a signed-in
 * person; anyone else signs in first and comes back to it. Past its expiry, its uses or its end,
 * the link is a 404 page. Confirming makes the person a member through the InviteService, which
 * counts the use in the same write.
 */
export function inviteRoutes(kit: SiteKit) {
  const { invites, clubs } = kit.deps

  // Never kept: whether the link still works changes without the directory's data version moving.
  const invitePage = kit.step(async ({ url, viewer, params }) => {
    if (!viewer) {
      invites.open(params.token!)
      return signInFirst(url)
    }
    const caller = callerOf(viewer)
    const { club, member } = invites.offer(caller, params.token!)
    return {
      title: member ? `Already a member of ${club.name}` : `Join ${club.name}`,
      content: (
        <InvitePage
          club={club}
          token={params.token!}
          member={member}
          listed={clubs.shownTo(caller, club.code) !== undefined}
          viewer={viewer}
        />
      ),
    }
  })

  const join = kit.action(async ({ url, viewer, params }) => {
    if (!viewer) return signInFirst(url)
    const caller = callerOf(viewer)
    const { club, joined } = await invites.join(caller, params.token!)
    if (!joined)
      return {
        title: `Already a member of ${club.name}`,
        content: (
          <InvitePage
            club={club}
            token={params.token!}
            member
            listed={clubs.shownTo(caller, club.code) !== undefined}
            viewer={viewer}
          />
        ),
      }
    return { title: `Welcome to ${club.name}`, content: <JoinedPage club={club} /> }
  })

  return new Elysia({ name: 'site-invites' })
    .get('/invites/:token', invitePage, HIDE)
    .post('/invites/:token', join, HIDE)
}
