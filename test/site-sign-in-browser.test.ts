import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Subprocess } from 'bun'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { tempDir } from '../harness/app'
import { axeViolations, serviceAndBrowser, watchPage, type Watched } from '../harness/browser'
import {
  ADMIN_GROUP,
  AUDIENCE,
  SITE_CLIENT,
  SITE_CLIENT_SECRET,
  startProvider,
  type TestProvider,
} from '../harness/oidc-provider'
import { freePort, stopService } from '../harness/service'
import { directoryOnDisk } from '../harness/on-disk'

// Campus sign-in on the site in Chromium (docs/reference.md §20): the real service, a real OpenID provider,
// a person who clicks Sign in, signs in on the provider's page, consents, and comes back signed in;
// then signs out. And the refusals a browser meets: a state changed on the way back, the callback
// visited again, a sign-in finished in another browser. (The refusals of the provider's answers
// are in test/site-campus-sign-in.test.ts, in process.) Without Chromium the suite fails unless
// SKIP_BROWSER_TESTS=1 is set.

const TOKEN = 'campus-browser-admin-token'
const CAMPUS = 'Example University'
const TIMEOUT = 60_000
/** The provider's development pages ask for a web font from Google and have no favicon; not the site's doing. */
const providersOwn = (problem: string, issuer: string) =>
  /fonts\.googleapis\.com/.test(problem) || problem.includes(`${new URL(issuer).origin}/favicon.ico`)
const suite = process.env.SKIP_BROWSER_TESTS === '1' ? describe.skip : describe

const PEOPLE = {
  alice: { claims: { preferred_username: 'alice', groups: ['students'], email: 'alice@example.edu' } },
}

suite('campus sign-in in a real browser', () => {
  let provider: TestProvider | undefined
  let proc: Subprocess | undefined
  let browser: Browser | undefined
  const dir = tempDir('clubs-campus-browser-')
  const port = freePort()
  const origin = `http://127.0.0.1:${port}`
  const host = `127.0.0.1:${port}`

  beforeAll(async () => {
    provider = await startProvider(PEOPLE, 0, { redirectUris: [`${origin}/auth/callback`] })
    ;({ proc, browser } = await serviceAndBrowser(dir, TOKEN, {
      port,
      env: {
        CLUBS_OIDC_ISSUER: provider.issuer,
        CLUBS_OIDC_AUDIENCE: AUDIENCE,
        CLUBS_OIDC_ADMIN_GROUP: ADMIN_GROUP,
        CLUBS_OIDC_CLIENT_ID: SITE_CLIENT,
        CLUBS_OIDC_CLIENT_SECRET: SITE_CLIENT_SECRET,
        CLUBS_SITE_TITLE: CAMPUS,
      },
    }))
  }, TIMEOUT)

  afterAll(async () => {
    await browser?.close().catch(() => {})
    await stopService(proc)
    await provider?.stop()
  }, TIMEOUT)

  const sessions = () => (directoryOnDisk(join(dir, 'db.json')).sessions ?? []) as unknown[]
  /** Who the navigation says is signed in, or null when it offers Sign in. */
  const signedInAs = async (page: Page) => {
    const who = page.locator('header .who')
    return (await who.count()) ? (await who.textContent())!.replace(/[()]/g, '') : null
  }

  /** From the Sign in link of the page open to the provider's login page. */
  async function toProvider(page: Page) {
    await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Sign in', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor()
    await page.getByRole('link', { name: `Sign in with ${CAMPUS}` }).click()
    await page.locator('input[name="login"]').waitFor()
    expect(new URL(page.url()).origin).toBe(provider!.issuer)
  }

  /** Signs in as `login` on the provider's development pages and consents. */
  async function atProvider(page: Page, login: string) {
    await page.locator('input[name="login"]').fill(login)
    await page.locator('input[name="password"]').fill('any password')
    await page.getByRole('button', { name: 'Sign-in' }).click()
    await page.getByRole('button', { name: 'Continue' }).click()
  }

  /**
   * Signs in at the provider, but holds the way back: answers the callback URL, not yet visited.
   * (The browser's redirects cannot be intercepted, so the consent form's POST is sent for it, and
   * the provider's redirects followed with its cookies, up to the site.)
   */
  async function heldCallback(page: Page, login: string): Promise<string> {
    const issuer = provider!.issuer
    let held!: (url: string) => void
    const callback = new Promise<string>((resolve) => (held = resolve))
    const atIssuer = (url: URL) => url.origin === issuer
    await page.route(atIssuer, async (route) => {
      if (!route.request().postData()?.includes('prompt=consent')) return route.fallback()
      let response = await route.fetch({ maxRedirects: 0 })
      let location = new URL(response.headers().location!, issuer)
      while (location.origin === issuer) {
        response = await page.context().request.get(location.href, { maxRedirects: 0 })
        location = new URL(response.headers().location!, location)
      }
      held(location.href)
      return route.fulfill({ status: 200, contentType: 'text/plain', body: 'held' })
    })
    await atProvider(page, login)
    const url = await callback
    await page.unroute(atIssuer)
    return url
  }

  async function withPage(body: (watched: Watched) => Promise<void>) {
    const watched = await watchPage(browser!, host)
    // A step that cannot happen fails in seconds, naming itself, rather than at the test's timeout.
    watched.page.setDefaultTimeout(10_000)
    try {
      await body(watched)
    } finally {
      await watched.page.context().close()
    }
  }

  it(
    'signs in from the Sign in link through the provider and back, signed in where it began; then signs out',
    () =>
      withPage(async ({ page, problems }) => {
        await page.goto(`${origin}/clubs/penn-chess-society`)
        await toProvider(page)
        await atProvider(page, 'alice')
        await page.waitForURL(`${origin}/clubs/penn-chess-society`)
        expect(await signedInAs(page)).toBe('alice')

        const cookie = (await page.context().cookies(origin)).find((c) => c.name === 'clubs_session')!
        expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' })
        expect(readFileSync(join(dir, 'db.json'), 'utf8')).not.toContain(cookie.value)

        await page.getByRole('button', { name: /^Sign out/ }).click()
        await page.waitForURL(`${origin}/`)
        expect(await signedInAs(page)).toBe(null)
        // The cookie the browser held before signing out opens nothing now.
        const replayed = await fetch(`${origin}/clubs/penn-chess-society`, {
          headers: { accept: 'text/html', cookie: `clubs_session=${cookie.value}` },
        })
        expect(await replayed.text()).not.toContain('Sign out')
        expect(problems.filter((problem) => !providersOwn(problem, provider!.issuer))).toEqual([])
      }),
    TIMEOUT,
  )

  it(
    'has an accessible Sign in page offering the campus first and the token form beside it',
    () =>
      withPage(async ({ page, problems }) => {
        await page.goto(`${origin}/sign-in`)
        await page.getByRole('heading', { level: 2, name: 'With a service token' }).waitFor()
        const serious = (await axeViolations(page)).filter((line) => /\((serious|critical)\)/.test(line))
        expect(serious).toEqual([])
        expect(problems).toEqual([])
      }),
    TIMEOUT,
  )

  it(
    'refuses a state changed on the way back (400, not signed in), then finishes with the right one, then refuses it again',
    () =>
      withPage(async ({ page }) => {
        const before = sessions().length
        await page.goto(`${origin}/`)
        await toProvider(page)
        const callback = await heldCallback(page, 'alice')

        const wrong = new URL(callback)
        wrong.searchParams.set('state', 'a-state-the-site-never-made')
        const refused = await page.goto(wrong.href)
        expect(refused!.status()).toBe(400)
        await page.getByText('This sign-in has expired or was already used.').waitFor()
        expect(await signedInAs(page)).toBe(null)

        const right = await page.goto(callback)
        expect(right!.status()).toBe(200)
        expect(await signedInAs(page)).toBe('alice')

        // Back to the callback URL: its state was used, so no second session starts.
        const again = await page.goto(callback)
        expect(again!.status()).toBe(400)
        await page.getByText('This sign-in has expired or was already used.').waitFor()
        expect(sessions().length).toBe(before + 1)
      }),
    TIMEOUT,
  )

  it(
    'refuses to finish a sign-in in another browser, which the browser that began it still can',
    () =>
      withPage(async ({ page }) =>
        withPage(async (other) => {
          await page.goto(`${origin}/`)
          await toProvider(page)
          const callback = await heldCallback(page, 'alice')

          const elsewhere = await other.page.goto(callback)
          expect(elsewhere!.status()).toBe(400)
          await other.page.getByText('This sign-in was begun in another browser.').waitFor()
          expect(await signedInAs(other.page)).toBe(null)

          await page.goto(callback)
          expect(await signedInAs(page)).toBe('alice')
        }),
      ),
    TIMEOUT,
  )
})
