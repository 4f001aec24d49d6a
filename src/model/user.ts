import { t } from 'elysia'

export const USERNAME_PATTERN = '^[a-z0-9][a-z0-9._-]{0,63}$'
export const ROLES = ['owner', 'officer', 'member'] as const
export type Role = (typeof ROLES)[number]
/** A member's title ("President"), shown with the club's officers people can contact (docs/reference.md §21). */
export const MAX_TITLE_LENGTH = 100
/** The e-mail address a campus sign-in names: no longer than an address can be (RFC 5321). */
export const MAX_EMAIL_LENGTH = 254

/**
 * A user as the data file keeps one: never the token, only its SHA-256 — or null when they hold
 * none (revoked, or a campus user who signs in with the identity provider's tokens).
 */
export const UserRecord = t.Object({
  username: t.String({ pattern: USERNAME_PATTERN }),
  is_admin: t.Boolean(),
  token_sha256: t.Union([t.String({ pattern: '^[0-9a-f]{64}$' }), t.Null()]),
  created_at: t.String(),
  /** false: disabled by an admin, refused on every request (docs/reference.md §13); a file from before it has none (true). */
  is_active: t.Optional(t.Boolean()),
  /** The `email` claim of their last campus sign-in that carried one (docs/reference.md §21); never from a service token. */
  email: t.Optional(t.String({ maxLength: MAX_EMAIL_LENGTH })),
  /** The SHA-256 of the token in their calendar's secret address (docs/reference.md §21); none until they ask for one. */
  calendar_sha256: t.Optional(t.String({ pattern: '^[0-9a-f]{64}$' })),
  /** With the service's secret key, what derives that token again, so the address can be shown again. */
  calendar_nonce: t.Optional(t.String({ pattern: '^[A-Za-z0-9_-]+$' })),
})
export type UserRecord = typeof UserRecord.static

/** A membership as the data file keeps one; a file from before titles has neither `title` ("") nor `public` (false). */
export const Membership = t.Object({
  club: t.String(),
  username: t.String(),
  role: t.Union(ROLES.map((role) => t.Literal(role))),
  title: t.Optional(t.String({ maxLength: MAX_TITLE_LENGTH })),
  public: t.Optional(t.Boolean()),
})
export type Membership = typeof Membership.static

/**
 * A favorite or a subscription: one user, one club, and when it was made — a link from before
 * that was kept has none (its time is unknown).
 */
export const ClubLink = t.Object({ club: t.String(), username: t.String(), created_at: t.Optional(t.String()) })
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

const Title = t.String({
  maxLength: MAX_TITLE_LENGTH,
  description: 'What they do for the club, e.g. "President"; at most 100 characters, trimmed.',
  examples: ['President'],
})
const Public = t.Boolean({ description: "true: an owner's or officer's name and title are listed as a contact." })
/** What a member write may say of them besides the role (docs/reference.md §21). */
const LISTING = { title: t.Optional(Title), public: t.Optional(Public) }
const RoleChoice = (description: string) =>
  t.Optional(
    t.Union(
      ROLES.map((role) => t.Literal(role)),
      { description },
    ),
  )

/** What adds a member to a club, or changes their role (POST /api/clubs/{code}/members/). */
export const MemberWrite = t.Object(
  {
    username: t.String({ pattern: USERNAME_PATTERN, description: 'An existing user.', examples: ['alice'] }),
    role: RoleChoice('member when absent.'),
    ...LISTING,
  },
  { additionalProperties: false },
)
export type MemberWrite = typeof MemberWrite.static

/** What changes of one member (PATCH /api/clubs/{code}/members/{username}/). */
export const MemberPatch = t.Object(
  { role: RoleChoice('Owners and admins only.'), ...LISTING },
  { additionalProperties: false },
)
export type MemberPatch = typeof MemberPatch.static

/** What saves a club as a favorite or a subscription (POST /api/favorites/, /api/subscriptions/). */
export const SavedClubWrite = t.Object(
  { club: t.String({ description: 'The club code.', examples: ['penn-chess-society'] }) },
  { additionalProperties: false },
)
export type SavedClubWrite = typeof SavedClubWrite.static
