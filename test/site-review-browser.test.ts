import { beforeAll, describe, expect, it } from 'bun:test'
import {
  axeViolations,
  browserSuite,
  checkPage,
  NARROW,
  offHost,
  press,
  sidewaysScroll,
  tabTo,
  VIEWPORT,
  watchPage,
} from '../harness/browser'
import { users } from '../harness/users'
import { adminSender } from '../harness/service'

// The office's Review page in Chromium (docs/reference.md §20): an admin signs in with a service token,
// opens Review, tabs to the comment field, writes a comment, tabs to Approve and presses Enter, and
// reads the notice; axe finds nothing serious on the page, which fits 375 px. Without Chromium the
// suite fails unless SKIP_BROWSER_TESTS=1 is set.
//
// Then the office's round by keyboard alone, at 375 px and at 1280 px (docs/reference.md §22): the admin
// approves a new club on Review, opens its page from the notice, presses Revoke, reads the
// confirmation naming the club, cancels (the club stays public), presses Revoke again and confirms
// (it leaves the public directory). axe-core finds no violation on any page on the way, and none
// scrolls sideways.

const TOKEN = 'review-browser-admin-token'
const TIMEOUT = 60_000
const suite = process.env.SKIP_BROWSER_TESTS === '1' ? describe.skip : describe

suite('the Review page in a real browser', () => {
  const site = browserSuite(TOKEN, 'clubs-review-browser-', { timeout: TIMEOUT })

  let oliveToken = ''
  const api = (path: string, token: string, json: unknown) =>
    fetch(`${site.origin}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(json),
    }).then((res) => res.json() as Promise<Record<string, string>>)

  beforeAll(async () => {
    oliveToken = (await users(adminSender(site.origin, TOKEN), 'olive')).olive
    await api('/api/clubs/', oliveToken, { name: 'Lantern Society', subtitle: 'Paper lanterns by the river' })
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

  for (const [width, viewport, club] of [
    ['375 px', NARROW, { code: 'moth-watchers', name: 'Moth Watchers' }],
    ['1280 px', VIEWPORT, { code: 'rowing-for-poets', name: 'Rowing for Poets' }],
  ] as const)
    it(
      `lets an admin approve a club, then revoke it after a confirmation naming it (Cancel keeps it public), by keyboard alone at ${width}`,
      async () => {
        await api('/api/clubs/', oliveToken, { name: club.name, subtitle: 'Awaiting the office' })
        const isPublic = async () => (await fetch(`${site.origin}/api/clubs/${club.code}/`)).status === 200
        const watched = await watchPage(site.browser, new URL(site.origin).host, viewport)
        const { page, problems } = watched
        page.setDefaultTimeout(10_000)
        try {
          await page.goto(`${site.origin}/`)
          await press(page, page.getByRole('link', { name: 'Sign in' }))
          await checkPage(page, problems, 'sign-in')
          await tabTo(page, page.getByLabel('Your token'))
          await page.keyboard.type(TOKEN)
          await page.keyboard.press('Enter')
          await page.getByRole('button', { name: /^Sign out/ }).waitFor()

          await press(page, page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Review' }))
          await page.getByRole('heading', { level: 1, name: 'Review' }).waitFor()
          await checkPage(page, problems, 'Review')
          const awaiting = page.getByRole('region', { name: club.name })
          await press(page, awaiting.getByRole('button', { name: 'Approve' }))
          await page.getByText(`Approved “${club.name}”: the public sees it as it stands now.`).waitFor()
          await checkPage(page, problems, 'Review, approved')
          expect(await isPublic()).toBe(true)

          await press(page, page.getByRole('status').getByRole('link', { name: 'Open its page' }))
          await page.getByRole('heading', { level: 1, name: club.name }).waitFor()
          await checkPage(page, problems, 'the club’s page')
          const officePanel = page.getByRole('region', { name: 'Activities office' })
          await officePanel.getByText('Public: approved, with nothing awaiting review.').waitFor()
          await press(page, officePanel.getByRole('button', { name: 'Revoke' }))
          await page.getByRole('heading', { level: 1, name: `Revoke ${club.name}?` }).waitFor()
          await checkPage(page, problems, 'Revoke?')
          await press(page, page.getByRole('link', { name: 'Cancel: keep it public' }))
          await page.getByRole('heading', { level: 1, name: club.name }).waitFor()
          expect(new URL(page.url()).pathname).toBe(`/clubs/${club.code}`)
          await officePanel.getByText('Public: approved, with nothing awaiting review.').waitFor()
          expect(await isPublic()).toBe(true)

          await tabTo(page, officePanel.getByLabel('Comment'))
          await page.keyboard.type('The club has not met this year.')
          await press(page, officePanel.getByRole('button', { name: 'Revoke' }))
          await page.getByRole('heading', { level: 1, name: `Revoke ${club.name}?` }).waitFor()
          expect(await page.getByLabel('Comment').inputValue()).toBe('The club has not met this year.')
          await press(page, page.getByRole('button', { name: `Revoke ${club.name}` }))
          await page.getByText(`Revoked “${club.name}”: it has left the public directory.`).waitFor()
          await checkPage(page, problems, 'Review, revoked')
          expect(await isPublic()).toBe(false)
          const seen = await fetch(`${site.origin}/api/clubs/${club.code}/`, {
            headers: { authorization: `Bearer ${TOKEN}` },
          }).then((res) => res.json() as Promise<Record<string, unknown>>)
          expect([seen.approved, seen.approved_comment]).toEqual([false, 'The club has not met this year.'])
          expect(offHost(watched)).toEqual([])
        } finally {
          await page.context().close()
        }
      },
      TIMEOUT,
    )
})
