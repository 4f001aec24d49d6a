import { beforeAll, describe, expect, it } from 'bun:test'
import type { Page } from 'playwright-core'
import {
  axeViolations,
  browserSuite,
  checkboxesApart,
  NARROW,
  offHost,
  sidewaysScroll,
  signIn,
  tabTo,
  VIEWPORT,
  watchPage,
} from '../harness/browser'
import { join } from 'node:path'
import { tempDir } from '../harness/app'
import { users } from '../harness/users'
import { adminSender } from '../harness/service'

// A re-registration round on the campus site in Chromium at 375 px (docs/reference.md §23), found by
// visible labels and roles, the forms sent by keyboard: the office opens a round from its page;
// a club's owner reads "Re-register by" on My clubs, removes a departed officer and confirms
// beside the officer list, and the club's page says "Last confirmed <month year>"; the office
// follows the progress, closes the round after its confirmation, sees the lapsed club and makes it
// active again. Every page on the way is audited with axe-core and must not scroll sideways.
// Without Chromium the suite fails unless SKIP_BROWSER_TESTS=1 is set.

const TOKEN = 'rounds-browser-admin-token'
const TIMEOUT = 90_000
const CHESS = 'penn-chess-society'
const ROBOTS = 'robotics-collective'
/** `npm run screenshots` points CLUBS_SCREENSHOTS_DIR at docs/screenshots/ for the campus guide's picture; a test run keeps it elsewhere. */
const SHOTS = process.env.CLUBS_SCREENSHOTS_DIR ?? tempDir('clubs-rounds-screenshots-')
const suite = process.env.SKIP_BROWSER_TESTS === '1' ? describe.skip : describe

/** A day `days` from now, YYYY-MM-DD in UTC (the service's campus time zone here), and this month as the site says it. */
const dayFromNow = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)
const thisMonth = () =>
  new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date())

suite('a re-registration round in a real browser', () => {
  const site = browserSuite(TOKEN, 'clubs-rounds-browser-', { timeout: TIMEOUT })
  const tokens: Record<string, string> = {}

  const api = async (path: string, init: { json?: unknown; token?: string | null } = {}) => {
    const { json, token = TOKEN } = init
    const res = await fetch(`${site.origin}${path}`, {
      method: json === undefined ? 'GET' : 'POST',
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
      body: json === undefined ? undefined : JSON.stringify(json),
    })
    return { status: res.status, body: (await res.json().catch(() => null)) as any }
  }

  beforeAll(async () => {
    tokens.olive = (await users(adminSender(site.origin, TOKEN), 'olive')).olive
    expect((await api(`/api/clubs/${CHESS}/members/`, { json: { username: 'olive', role: 'owner' } })).status).toBe(201)
  }, TIMEOUT)

  /** The page is accessible, fits 375 px, and every checkbox sits beside its label. */
  const expectSound = async (page: Page) => {
    expect(await axeViolations(page)).toEqual([])
    expect(await sidewaysScroll(page)).toBe(0)
    expect(await checkboxesApart(page)).toEqual([])
  }

  const signOut = async (page: Page) => {
    await page.getByRole('button', { name: /^Sign out/ }).click()
    await page.waitForURL(`${site.origin}/`)
  }

  it(
    'the office opens a round, an owner confirms beside the officer list, the office closes it and sees the lapsed club',
    async () => {
      const watched = await watchPage(site.browser, new URL(site.origin).host, NARROW)
      const { page } = watched
      page.setDefaultTimeout(10_000)
      const deadline = dayFromNow(14)
      try {
        // The office opens a round.
        await signIn(page, site.origin, TOKEN)
        await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Re-registration' }).click()
        await page.getByRole('heading', { level: 1, name: 'Re-registration' }).waitFor()
        await expectSound(page)
        await page.getByLabel('Deadline', { exact: true }).fill(deadline)
        expect(await tabTo(page, page.getByLabel('Message to the clubs', { exact: true }))).toEqual({
          visibleFocus: true,
        })
        await page.keyboard.type('Remove the officers who left, then confirm.')
        expect(await tabTo(page, page.getByRole('button', { name: 'Open the round' }))).toEqual({ visibleFocus: true })
        await Promise.all([page.waitForURL(/done=opened/), page.keyboard.press('Enter')])
        await page.getByRole('status').getByText('The round is open').waitFor()
        await page.getByText(/Confirmed 0 of \d+/).waitFor()
        await expectSound(page)
        expect((await api('/api/registration-rounds/current/')).body).toMatchObject({ deadline, confirmed: 0 })
        await signOut(page)

        // The owner reads it on My clubs, goes to the officer list, removes a departed officer, confirms.
        await signIn(page, site.origin, tokens.olive!)
        await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'My clubs' }).click()
        await page.getByText('Re-register by').first().waitFor()
        await page.getByText('Remove the officers who left, then confirm.').first().waitFor()
        await expectSound(page)
        await page.getByRole('link', { name: 'Check the officers and confirm Penn Chess Society' }).click()
        await page.getByRole('heading', { level: 2, name: 'Re-registration' }).waitFor()
        await expectSound(page)
        await Promise.all([
          page.waitForURL(/removed=sara.lind/),
          page.getByRole('button', { name: 'Remove sara.lind' }).click(),
        ])
        await page.getByRole('status').getByText('sara.lind is no longer a member.').waitFor()
        expect(await tabTo(page, page.getByRole('button', { name: 'Confirm Penn Chess Society' }))).toEqual({
          visibleFocus: true,
        })
        await Promise.all([page.waitForURL(/reregistered=olive/), page.keyboard.press('Enter')])
        await page.getByRole('status').getByText('Confirmed by olive').waitFor()
        await expectSound(page)
        await page.getByRole('link', { name: 'The club’s page' }).click()
        await page.getByRole('heading', { level: 1, name: 'Penn Chess Society' }).waitFor()
        await page.getByText(`Last confirmed ${thisMonth()}`).waitFor()
        await expectSound(page)
        await signOut(page)

        // The office follows the round, closes it after the confirmation, and sees the lapsed club.
        await signIn(page, site.origin, TOKEN)
        await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Re-registration' }).click()
        await page.getByText(/Confirmed 1 of \d+/).waitFor()
        await page.getByRole('list').getByRole('link', { name: 'Robotics Collective' }).waitFor()
        await expectSound(page)
        await page.setViewportSize(VIEWPORT)
        await page.screenshot({ path: join(SHOTS, 'site-rounds.png'), fullPage: false })
        await page.setViewportSize(NARROW)
        await page.getByRole('link', { name: 'Close the round' }).click()
        await page.getByRole('heading', { level: 1, name: 'Close the round?' }).waitFor()
        await page.getByRole('list').getByRole('link', { name: 'Robotics Collective' }).waitFor()
        await expectSound(page)
        const close = page.getByRole('button', { name: /^Close the round and let \d+ clubs lapse$/ })
        expect(await tabTo(page, close)).toEqual({ visibleFocus: true })
        await Promise.all([page.waitForURL(/done=closed/), page.keyboard.press('Enter')])
        await page.getByRole('status').getByText('The round is closed').waitFor()
        await expectSound(page)
        expect((await api(`/api/clubs/${ROBOTS}/`, { token: null })).status).toBe(404)
        expect((await api(`/api/clubs/${CHESS}/`, { token: null })).status).toBe(200)

        await Promise.all([
          page.waitForURL(/done=reactivated/),
          page.getByRole('button', { name: 'Make active again Robotics Collective' }).click(),
        ])
        await page.getByRole('status').getByText('The club is active again').waitFor()
        await expectSound(page)
        expect((await api(`/api/clubs/${ROBOTS}/`, { token: null })).status).toBe(200)

        expect(offHost(watched)).toEqual([])
        expect(watched.problems).toEqual([])
      } finally {
        await page.context().close()
      }
    },
    TIMEOUT,
  )
})
