import { t } from 'elysia'

export const USERNAME_PATTERN = '^[a-z0-9][a-z0-9._-]{0,63}$'
export const ROLES = ['owner', 'officer', 'member'] as const
export type Role = (typeof ROLES)[number]

/**
 * A user as the data file keeps one: never the token, only its SHA-256 — or null when they hold
 * none (revoked, or a campus user who signs in with the identity provider's tokens).
 */
export const UserRecord = t.Object({
  username: t.String({ pattern: USERNAME_PATTERN }),
  is_admin: t.Boolean(),
  token_sha256: t.Union([t.String({ pattern: '^[0-9a-f]{64}$' }), t.Null()]),
  created_at: t.String(),
  /** false: disabled by an admin, refused on every request (CONTRACT §13); a file from before it has none (true). */
  is_active: t.Optional(t.Boolean()),
  /** The SHA-256 of the token in their calendar's secret address (CONTRACT §21); none until they ask for one. */
  calendar_sha256: t.Optional(t.String({ pattern: '^[0-9a-f]{64}$' })),
})
export type UserRecord = typeof UserRecord.static

export const Membership = t.Object({
  club: t.String(),
  username: t.String(),
  role: t.Union(ROLES.map((role) => t.Literal(role))),
})
export type Membership = typeof Membership.static

/** A favorite or a subscription: one user, one club. */
export const ClubLink = t.Object({ club: t.String(), username: t.String() })
export type ClubLink = typeof ClubLink.static

/** What an admin sends to issue a user (POST /api/users/). Write schemas carry no `default`s. */
export const UserCreate = t.Object(
  {
    username: t.String({
      pattern: USERNAME_PATTERN,
      description: 'Lowercase letters, digits, ".", "_", "-"; 1-64.',
      examples: ['alice'],
    }),
    is_admin: t.Optional(t.Boolean({ description: 'false when absent.' })),
  },
  { additionalProperties: false },
)
export type UserCreate = typeof UserCreate.static

/** What an admin changes of a user (PATCH /api/users/{username}/). */
export const UserPatch = t.Object(
  {
    is_active: t.Optional(t.Boolean({ description: 'false disables the user: every request of theirs is a 403.' })),
    is_admin: t.Optional(t.Boolean({ description: 'true makes the user an admin, false takes it back.' })),
  },
  { additionalProperties: false },
)
export type UserPatch = typeof UserPatch.static

/** What adds a member to a club, or changes their role (POST /api/clubs/{code}/members/). */
export const MemberWrite = t.Object(
  {
    username: t.String({ pattern: USERNAME_PATTERN, description: 'An existing user.', examples: ['alice'] }),
    role: t.Optional(
      t.Union(
        ROLES.map((role) => t.Literal(role)),
        { description: 'member when absent.' },
      ),
    ),
  },
  { additionalProperties: false },
)
export type MemberWrite = typeof MemberWrite.static

/** What saves a club as a favorite or a subscription (POST /api/favorites/, /api/subscriptions/). */
export const SavedClubWrite = t.Object(
  { club: t.String({ description: 'The club code.', examples: ['penn-chess-society'] }) },
  { additionalProperties: false },
)
export type SavedClubWrite = typeof SavedClubWrite.static
