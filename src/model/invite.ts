import { t } from 'elysia'
// Elysia's t.Integer also accepts numeric strings; records and answers hold integers only.
import { Type } from '@sinclair/typebox'

/** An invite lasts at least an hour and at most a week (docs/reference.md §23). */
export const MIN_INVITE_HOURS = 1
export const MAX_INVITE_HOURS = 168
/** An invite admits at most this many people; without `max_uses`, any number until it expires. */
export const MAX_INVITE_USES = 1000
/** How many live invites a club may have at once, so that no one fills the data file with them. */
export const MAX_LIVE_INVITES = 100
/** An invite's id: 16 hex digits, random (ids are made on several instances at once, docs/reference.md §19). */
export const INVITE_ID_PATTERN = '^[0-9a-f]{16}$'

const Id = t.String({ pattern: INVITE_ID_PATTERN, examples: ['3f9c1a0b7d2e4c68'] })
const ExpiresAt = t.String({ format: 'date-time', description: 'After this the link is a 404.' })
const MaxUses = t.Union([Type.Integer({ minimum: 1, maximum: MAX_INVITE_USES }), t.Null()], {
  description: 'How many people it admits; null: any number until it expires.',
})
const Uses = Type.Integer({ minimum: 0, description: 'How many people joined through it.' })

/** What an owner or officer sends to make an invite link (POST /api/clubs/{code}/invites/). */
export const InviteCreate = t.Object(
  {
    expires_in_hours: Type.Integer({
      minimum: MIN_INVITE_HOURS,
      maximum: MAX_INVITE_HOURS,
      description: 'How long the link works, in hours: 1 to 168 (a week).',
    }),
    max_uses: t.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_INVITE_USES,
        description: 'How many people may join through it, 1 to 1,000; when not sent, any number until it expires.',
      }),
    ),
  },
  { additionalProperties: false },
)
export type InviteCreate = typeof InviteCreate.static

/** A live invite as a club's owners and officers see it: never its token or URL. */
export const Invite = t.Object(
  {
    id: Id,
    created_by: t.String(),
    created_at: t.String({ format: 'date-time' }),
    expires_at: ExpiresAt,
    max_uses: MaxUses,
    uses: Uses,
  },
  { additionalProperties: false },
)
export type Invite = typeof Invite.static

/** The answer that made an invite: its URL, holding the token, shown this once. */
export const InviteMade = t.Object(
  {
    id: Id,
    url: t.String({
      format: 'uri',
      examples: ['https://clubs.example.edu/invites/Qm9vLXRoaXMtaXMtYW4tZXhhbXBsZS10b2tlbi0xMjM0NQ'],
      description: 'The link to share: a signed-in person who opens it and confirms joins the club. Shown this once.',
    }),
    expires_at: ExpiresAt,
    max_uses: MaxUses,
    uses: Uses,
  },
  { additionalProperties: false },
)
export type InviteMade = typeof InviteMade.static

/** An invite as the data file keeps it: the SHA-256 of its token, never the token. */
export const InviteRecord = t.Object({
  id: t.String(),
  club: t.String(),
  token_sha256: t.String({ pattern: '^[0-9a-f]{64}$' }),
  created_by: t.String(),
  created_at: t.String(),
  expires_at: t.String(),
  max_uses: t.Union([Type.Integer({ minimum: 1 }), t.Null()]),
  uses: Type.Integer({ minimum: 0 }),
})
export type InviteRecord = typeof InviteRecord.static
