import { beforeAll, describe, expect, it } from 'bun:test'
import type { Page } from 'playwright-core'
import { browserSuite, offHost, watchPage } from '../harness/browser'
import { users } from '../harness/users'
import { adminSender } from '../harness/service'

// Issue 25: on a phone 375 px wide no page scrolls sideways, the browsable view's (the list, a club,
// an error) nor the site's. The club here is made to push: a name, subtitle and address of one long
// word, a code of 90 letters, a website URL of some 300 characters; a pending change puts its
// review table (approved beside pending values) on the admin's page. Long words and URLs must wrap,
// and tables and code blocks wrap or scroll inside their own box. Without Chromium the suite fails
// unless SKIP_BROWSER_TESTS=1 is set.

const TOKEN = 'narrow-admin-token'
const TIMEOUT = 60_000
const PHONE = { width: 375, height: 800 }
const WORD = 'Pneumonoultramicroscopicsilicovolcanoconiosis'.repeat(2)
const CODE = 'z'.repeat(90)
const URL_TEXT = `https://www.example.edu/${'averyverylongpathsegmentwithoutbreaks'.repeat(6)}?q=${'x'.repeat(80)}`
const suite = process.env.SKIP_BROWSER_TESTS === '1' ? describe.skip : describe

/** One page to open: where, what status it answers, and what on it shows it is the page meant. */
interface NarrowPage {
  readonly name: string
  readonly path: string
  readonly status: number
  /** Shown on the page: the long content it must fit, or what makes it the page it is. */
  readonly shows: string
  /** Open it with the admin's token entered in the browsable view's token bar. */
  readonly asAdmin?: boolean
}

const PAGES: NarrowPage[] = [
  { name: 'the browsable list', path: '/api/clubs/?format=api', status: 200, shows: 'pre.response' },
  {
    name: 'the browsable list with a long search',
    path: `/api/clubs/?format=api&search=${WORD}`,
    status: 200,
    shows: 'nav.downloads',
  },
  { name: 'a browsable club page', path: `/api/clubs/${CODE}/?format=api`, status: 200, shows: 'ul.facts' },
  {
    name: "a browsable club page with its review table, the admin's",
    path: `/api/clubs/${CODE}/?format=api`,
    status: 200,
    shows: 'table.review',
    asAdmin: true,
  },
  { name: 'a browsable 404', path: `/api/clubs/${CODE}x/?format=api`, status: 404, shows: 'pre.response' },
  { name: 'a browsable 400', path: `/api/clubs/?format=api&page_size=${WORD}`, status: 400, shows: 'pre.response' },
  { name: "the site's directory", path: '/', status: 200, shows: 'ul.cards' },
  { name: "the site's page of a club", path: '/clubs/penn-chess-society', status: 200, shows: 'main h1' },
  { name: "the site's page of the long club", path: `/clubs/${CODE}`, status: 200, shows: 'main h1' },
  { name: "the site's sign-in page", path: '/sign-in', status: 200, shows: 'main form' },
]

suite('at 375 px wide, in a real browser', () => {
  const site = browserSuite(TOKEN, 'clubs-narrow-', { timeout: TIMEOUT })

  const api = async (path: string, token: string, method = 'GET', body?: unknown) => {
    const res = await fetch(`${site.origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    expect(res.status).toBeLessThan(300)
    return res.json() as Promise<Record<string, unknown>>
  }

  beforeAll(async () => {
    const { wide: token } = await users(adminSender(site.origin, TOKEN), 'wide')
    const club = {
      name: `${WORD} Society`,
      code: CODE,
      subtitle: `${WORD}${WORD}`,
      description: `${WORD}${WORD} See ${URL_TEXT} for more.`,
      website: URL_TEXT,
      address: WORD,
      how_to_get_involved: `${WORD}${WORD}`,
      accepting_members: true,
    }
    await api('/api/clubs/', token, 'POST', club)
    await api(`/api/clubs/${CODE}/`, TOKEN, 'PATCH', { approved: true })
    // The owner's change awaits review: the admin's page shows the review table.
    await api(`/api/clubs/${CODE}/`, token, 'PATCH', { description: `Changed: ${'Q'.repeat(150)} ${URL_TEXT}` })
  }, TIMEOUT)

  /** Enters the admin's token in the browsable view's token bar; the page reloads with it. */
  async function useAdminToken(page: Page) {
    await page.goto(`${site.origin}/api/?format=api`)
    await page.locator('#token').fill(TOKEN)
    await page.getByRole('button', { name: 'Use token' }).click()
    await page.locator('.token .who').waitFor({ state: 'visible' })
  }

  for (const { name, path, status, shows, asAdmin } of PAGES)
    it(
      `${name} does not scroll sideways`,
      async () => {
        const watched = await watchPage(site.browser, new URL(site.origin).host, PHONE)
        const { page } = watched
        try {
          if (asAdmin) await useAdminToken(page)
          const res = await page.goto(site.origin + path)
          expect(res?.status()).toBe(status)
          await page.locator(shows).first().waitFor({ state: 'visible' })
          const width = await page.evaluate(() => ({
            scrollWidth: document.documentElement.scrollWidth,
            innerWidth: window.innerWidth,
          }))
          expect(width.innerWidth).toBe(PHONE.width)
          expect(width.scrollWidth).toBeLessThanOrEqual(width.innerWidth)
          expect(offHost(watched)).toEqual([])
        } finally {
          await page.context().close()
        }
      },
      TIMEOUT,
    )
})
