import { t } from 'elysia'
import { Invite, InviteCreate, InviteMade } from '../../model/invite'
import { json, WRITE_ERRORS } from '../docs/openapi'
import { endpoint } from '../endpoint'

/** The site's page of an invite link (docs/reference.md §23) on the service at `origin`, holding `token`. */
export const inviteAddress = (origin: string, token: string) => `${origin}/invites/${token}`
/** An answer showing a link's token is never kept by a cache. */
const NO_STORE = { 'Cache-Control': 'no-store' }

export const inviteList = endpoint({
  path: '/api/clubs/:code/invites/',
  name: 'Invite Links',
  description:
    "A club's invite links: a signed-in person who opens one on the site and confirms becomes a member at once. Owners, officers and admins make them (each expires after 1 to 168 hours and, when max_uses says so, after that many people joined), list the live ones and end them.",
  tag: 'invites',
  template: () => ({ expires_in_hours: 48, max_uses: 30 }),
  actions: {
    GET: {
      summary: "List a club's live invite links",
      description:
        'Newest first, without their URLs (only the answer that made one shows it). Expired and used-up links are not listed. Owners, officers and admins.',
      access: 'user',
      responses: { 200: json(t.Array(Invite), 'The live invite links.') },
      errors: [401, 403, 404],
      handle: ({ services, caller, params }) => ({
        status: 200,
        body: services.invites.list(caller, params.code),
        headers: NO_STORE,
      }),
    },
    POST: {
      summary: 'Make an invite link',
      description:
        'expires_in_hours: 1 to 168; max_uses: 1 to 1,000, or left out for any number of people until it expires. The answer shows the link (holding a random token, of which only the SHA-256 is kept) this once. A club has at most 100 live links.',
      access: 'user',
      body: { schema: InviteCreate, example: { expires_in_hours: 48, max_uses: 30 } },
      responses: { 201: json(InviteMade, 'The new link; its URL is shown this once.') },
      errors: WRITE_ERRORS,
      async handle({ services, caller, params, body, ex }) {
        const { invite, token } = await services.invites.create(caller, params.code, body)
        const { id, expires_at, max_uses, uses } = invite
        const url = inviteAddress(ex.url.origin, token)
        return { status: 201, body: { id, url, expires_at, max_uses, uses }, headers: NO_STORE }
      },
    },
  },
})

export const inviteDetail = endpoint({
  path: '/api/clubs/:code/invites/:invite/',
  name: 'Invite Link',
  description: 'DELETE ends the invite link: from then on it is a 404. Owners, officers and admins.',
  tag: 'invites',
  actions: {
    DELETE: {
      summary: 'End an invite link',
      description: 'Its URL is a 404 from now on. 404 when the club has no such live link.',
      access: 'user',
      responses: { 204: { description: 'The link is ended.' } },
      errors: [401, 403, 404, 405, 503],
      async handle({ services, caller, params }) {
        await services.invites.end(caller, params.code, params.invite)
        return { status: 204 }
      },
    },
  },
})
