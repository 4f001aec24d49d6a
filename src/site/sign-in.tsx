/** @jsxImportSource preact */
import { Elysia } from 'elysia'
import { ApiError } from '../domain/errors'
import { safeNext } from './safe-next'
import { seeOther, type SiteKit } from './kit'
import { clearedSessionCookie, sessionCookie, sessionIdOf } from './session-cookie'

/**
 * The sign-in page, coming back to `next`: with campus sign-in, its button first (docs/reference.md §20);
 * the service token form always (development and small deployments, and programs' people).
 */
function SignInPage({ next, error, campus }: { next: string; error: string | null; campus: string | null }) {
  return (
    <>
      <h1>Sign in</h1>
      {campus && (
        <>
          <p>
            <a class="button" href={`/auth/sign-in?next=${encodeURIComponent(next)}`}>
              Sign in with {campus}
            </a>
          </p>
          <h2>With a service token</h2>
        </>
      )}
      <form method="post" action="/sign-in" class="narrow">
        <input type="hidden" name="next" value={next} />
        <p class="field">
          <label for="token">Your token</label>
          <input
            id="token"
            name="token"
            type="password"
            autocomplete="current-password"
            required
            aria-describedby={error ? 'token-error token-help' : 'token-help'}
            aria-invalid={error ? 'true' : undefined}
          />
          <span id="token-help" class="help">
            The token an administrator issued to you (it signs you in to the API too).
          </span>
          {error && (
            <span id="token-error" class="error">
              {error}
            </span>
          )}
        </p>
        <button type="submit">Sign in</button>
      </form>
    </>
  )
}

/** Signing in with a service token, and signing out (a POST, which ends the session on the server). */
export function signInRoutes(kit: SiteKit) {
  const { sessions, authenticate, campus, title } = kit.deps
  const form = (next: string, error: string | null, status = 200) => ({
    title: 'Sign in',
    content: <SignInPage next={next} error={error} campus={campus ? title : null} />,
    status,
  })
  return new Elysia({ name: 'site-sign-in' })
    .get(
      '/sign-in',
      kit.page(({ url, viewer }) => {
        const next = safeNext(url.searchParams.get('next'))
        return viewer ? seeOther(next) : form(next, null)
      }),
      { detail: { hide: true } },
    )
    .post(
      '/sign-in',
      kit.action(async ({ url, form: fields }) => {
        const next = safeNext(fields.get('next'))
        const token = (fields.get('token') ?? '').trim()
        if (token === '') return form(next, 'Enter your token.', 400)
        let caller
        try {
          caller = await authenticate(token)
        } catch (error) {
          if (error instanceof ApiError && error.status === 401) return form(next, 'That token is not valid.', 400)
          throw error
        }
        if (caller.username === null) return form(next, 'That token is not valid.', 400)
        const id = await sessions.start(caller.username, { via: 'token', token })
        return seeOther(next, { 'Set-Cookie': sessionCookie(id, url.protocol === 'https:') })
      }),
      { detail: { hide: true } },
    )
    .post(
      '/sign-out',
      // A disabled account may still sign out: ending a session gives nobody anything.
      kit.action(
        async ({ request, url }) => {
          const id = sessionIdOf(request)
          if (id !== null) await sessions.end(id)
          return seeOther('/', { 'Set-Cookie': clearedSessionCookie(url.protocol === 'https:') })
        },
        { evenDisabled: true },
      ),
      { detail: { hide: true } },
    )
}
