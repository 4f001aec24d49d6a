/** @jsxImportSource preact */
import { Elysia } from 'elysia'
import { safeNext } from './safe-next'
import type { CampusFlow } from './campus-flow'
import { seeOther, type SiteKit } from './kit'
import { PENDING_TTL_MS } from './pending-sign-ins'
import { randomCookie, sessionCookie } from './session-cookie'

/** The cookie that ties a sign-in under way to the browser that began it. */
const SIGN_IN_COOKIE = 'clubs_sign_in'

/**
 * Sent to the callback only, for as long as a sign-in may take. SameSite=Lax still sends it when the
 * provider sends the browser back (a top-level GET); it is left to expire, so that a sign-in begun
 * in a second tab still finishes.
 */
const signInCookie = (browser: string, secure: boolean) =>
  `${SIGN_IN_COOKIE}=${browser}; Path=/auth/; Max-Age=${PENDING_TTL_MS / 1000}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`

/**
 * Campus sign-in on the site (docs/reference.md §20): `/auth/sign-in` sends the browser to the provider,
 * which sends it back to `/auth/callback`; only a sign-in this browser began there starts a session.
 */
export function campusSignInRoutes(kit: SiteKit, flow: CampusFlow) {
  const { sessions } = kit.deps
  return new Elysia({ name: 'site-campus-sign-in' })
    .get(
      '/auth/sign-in',
      kit.step(async ({ request, url, viewer }) => {
        const next = safeNext(url.searchParams.get('next'))
        if (viewer) return seeOther(next)
        const redirectUri = `${url.origin}/auth/callback`
        const begun = await flow.begin(redirectUri, next, randomCookie(request, SIGN_IN_COOKIE))
        return seeOther(begun.location.href, {
          'Set-Cookie': signInCookie(begun.browser, url.protocol === 'https:'),
        })
      }),
      { detail: { hide: true } },
    )
    .get(
      '/auth/callback',
      kit.step(async ({ request, url }) => {
        const { identity, next } = await flow.finish(url, randomCookie(request, SIGN_IN_COOKIE))
        const id = await sessions.start(identity.username, { via: 'campus', groupAdmin: identity.isAdmin })
        return seeOther(next, { 'Set-Cookie': sessionCookie(id, url.protocol === 'https:') })
      }),
      { detail: { hide: true } },
    )
}
