import { t } from 'elysia'

/**
 * A signed-in person's session on the site (docs/reference.md §20), as the data file keeps it: never the
 * id the cookie holds, only its SHA-256, so a copy of the file opens no session.
 */
export const SessionRecord = t.Object({
  id_sha256: t.String({ pattern: '^[0-9a-f]{64}$' }),
  username: t.String(),
  /** How they signed in: a service token, or the campus identity provider. */
  via: t.Union([t.Literal('token'), t.Literal('campus')]),
  /** The identity provider's admin group named them at sign-in (CLUBS_OIDC_ADMIN_GROUP). */
  group_admin: t.Boolean(),
  /**
   * A session started with a service token: an HMAC, under the service's secret key, of that
   * token's SHA-256. The session lives while the token opens its user (docs/reference.md §20); a campus
   * session has none, and so has a token session from before this was kept (it is refused).
   */
  credential: t.Optional(t.String({ pattern: '^[0-9a-f]{64}$' })),
  created_at: t.String(),
  last_seen_at: t.String(),
})
export type SessionRecord = typeof SessionRecord.static
