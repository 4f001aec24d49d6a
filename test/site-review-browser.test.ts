import { beforeAll, describe, expect, it } from 'bun:test'
import { axeViolations, browserSuite, sidewaysScroll, tabTo, watchPage } from '../harness/browser'

// The office's Review page in Chromium (CONTRACT §20): an admin signs in with a service token,
// opens Review, tabs to the comment field, writes a comment, tabs to Approve and presses Enter, and
// reads the notice; axe finds nothing serious on the page, which fits 375 px. Without Chromium the
// suite fails unless SKIP_BROWSER_TESTS=1 is set.

const TOKEN = 'review-browser-admin-token'
const TIMEOUT = 60_000
const suite = process.env.SKIP_BROWSER_TESTS === '1' ? describe.skip : describe

suite('the Review page in a real browser', () => {
  const site = browserSuite(TOKEN, 'clubs-review-browser-', { timeout: TIMEOUT })

  beforeAll(async () => {
    const api = (path: string, token: string, json: unknown) =>
      fetch(`${site.origin}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(json),
      }).then((res) => res.json() as Promise<Record<string, string>>)
    const { token } = await api('/api/users/', TOKEN, { username: 'olive' })
    await api('/api/clubs/', token!, { name: 'Lantern Society', subtitle: 'Paper lanterns by the river' })
  }, TIMEOUT)

  it(
    'lets an admin approve a club with a comment by keyboard alone, and says so; accessible, and fits 375 px',
    async () => {
      const { page, problems } = await watchPage(site.browser, new URL(site.origin).host)
      page.setDefaultTimeout(10_000)
      try {
        await page.goto(`${site.origin}/sign-in?next=%2Freview`)
        await page.getByLabel('Your token').fill(TOKEN)
        await page.keyboard.press('Enter')
        await page.getByRole('heading', { level: 1, name: 'Review' }).waitFor()
        expect(await page.getByRole('link', { name: 'Review' }).getAttribute('aria-current')).toBe('page')

        const serious = (await axeViolations(page)).filter((line) => /\((serious|critical)\)/.test(line))
        expect(serious).toEqual([])

        const lantern = page.getByRole('region', { name: 'Lantern Society' })
        expect(await tabTo(page, lantern.getByLabel('Comment'))).toEqual({ visibleFocus: true })
        await page.keyboard.type('Welcome to the directory!')
        expect(await tabTo(page, lantern.getByRole('button', { name: 'Approve' }))).toEqual({ visibleFocus: true })
        await page.keyboard.press('Enter')

        await page.getByText('Approved “Lantern Society”: the public sees it as it stands now.').waitFor()
        expect(new URL(page.url()).pathname).toBe('/review')
        expect(await page.getByRole('region', { name: 'Lantern Society' }).count()).toBe(0)
        const club = await (await fetch(`${site.origin}/api/clubs/lantern-society/`)).json()
        expect([club.approved, club.approved_comment]).toEqual([true, 'Welcome to the directory!'])

        await page.setViewportSize({ width: 375, height: 800 })
        await page.goto(`${site.origin}/review`)
        expect(await sidewaysScroll(page)).toBe(0)
        expect(problems).toEqual([])
      } finally {
        await page.context().close()
      }
    },
    TIMEOUT,
  )
})
