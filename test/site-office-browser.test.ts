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
  watchPage,
} from '../harness/browser'
import { users } from '../harness/users'
import { adminSender } from '../harness/service'

// The office and a club's owner on the campus site in Chromium at 375 px (docs/reference.md §22), found by
// their visible labels and roles, the forms sent by keyboard: the admin opens Users from the
// navigation, adds a user and reads their token once, then disables and enables them; an owner
// adds an officer with a title and public, and the club's page shows them to everyone. Every page
// on the way is audited with axe-core and must not scroll sideways. Without Chromium the suite
// fails unless SKIP_BROWSER_TESTS=1 is set.

const TOKEN = 'office-browser-admin-token'
const TIMEOUT = 90_000
const CHESS = 'penn-chess-society'
const suite = process.env.SKIP_BROWSER_TESTS === '1' ? describe.skip : describe

suite('the office and a club’s owner in a real browser', () => {
  const site = browserSuite(TOKEN, 'clubs-office-browser-', { timeout: TIMEOUT })
  const tokens: Record<string, string> = {}

  const api = async (path: string, init: { json?: unknown; method?: string; token?: string } = {}) => {
    const { json, token = TOKEN, method = json === undefined ? 'GET' : 'POST' } = init
    const res = await fetch(`${site.origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: json === undefined ? undefined : JSON.stringify(json),
    })
    return { status: res.status, body: (await res.json().catch(() => null)) as any }
  }

  beforeAll(async () => {
    Object.assign(tokens, await users(adminSender(site.origin, TOKEN), 'olive', 'sam'))
    expect((await api(`/api/clubs/${CHESS}/members/`, { json: { username: 'olive', role: 'owner' } })).status).toBe(201)
  }, TIMEOUT)

  /** The page is accessible, fits 375 px, and every checkbox sits beside its label. */
  const expectSound = async (page: Page) => {
    expect(await axeViolations(page)).toEqual([])
    expect(await sidewaysScroll(page)).toBe(0)
    expect(await checkboxesApart(page)).toEqual([])
  }

  it(
    'adds a user and shows their token once, disables and enables them; an owner adds a public officer with a title, whom the club’s page shows',
    async () => {
      const watched = await watchPage(site.browser, new URL(site.origin).host, NARROW)
      const { page } = watched
      page.setDefaultTimeout(10_000)
      try {
        await signIn(page, site.origin, TOKEN)
        await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Users' }).click()
        await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor()
        await expectSound(page)

        // By keyboard: Tab to the field, type, Enter sends the form.
        expect(await tabTo(page, page.getByLabel('Username', { exact: true }))).toEqual({ visibleFocus: true })
        await page.keyboard.type('nina')
        await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')])
        await page.getByRole('heading', { level: 1, name: 'Added nina' }).waitFor()
        await expectSound(page)
        const token = await page.getByLabel('Token for nina').inputValue()
        expect((await api('/api/users/me/', { token })).body).toEqual({ username: 'nina', is_admin: false })

        await page.getByRole('link', { name: 'nina’s page' }).click()
        await page.getByRole('heading', { level: 1, name: 'nina' }).waitFor()
        expect(await page.content()).not.toContain(token)
        await expectSound(page)
        await Promise.all([page.waitForURL(/done=disabled/), page.getByRole('button', { name: 'Disable' }).click()])
        await page.getByRole('status').getByText('nina is disabled').waitFor()
        expect((await api('/api/users/me/', { token })).status).toBe(403)
        await Promise.all([page.waitForURL(/done=enabled/), page.getByRole('button', { name: 'Enable' }).click()])
        await page.getByRole('status').getByText('nina is enabled again.').waitFor()
        expect((await api('/api/users/me/', { token })).status).toBe(200)
        await page.getByRole('button', { name: /^Sign out/ }).click()
        await page.waitForURL(`${site.origin}/`)

        await signIn(page, site.origin, tokens.olive!)
        await page.getByRole('link', { name: 'My clubs' }).click()
        await page.getByRole('link', { name: /^Join requests and members of Penn Chess Society/ }).click()
        await page.getByRole('heading', { level: 2, name: 'Members' }).waitFor()
        await expectSound(page)
        await page.getByLabel('Username', { exact: true }).fill('sam')
        await page.getByLabel('Role', { exact: true }).selectOption({ label: 'Officer' })
        await page.getByLabel('Title', { exact: true }).fill('Treasurer')
        const publicBox = page.getByLabel('Public: listed with their title on the club’s page', { exact: true })
        expect(await tabTo(page, publicBox)).toEqual({ visibleFocus: true })
        await page.keyboard.press('Space')
        expect(await publicBox.isChecked()).toBe(true)
        expect(await tabTo(page, page.getByRole('button', { name: 'Add member' }))).toEqual({ visibleFocus: true })
        await Promise.all([page.waitForURL(/added=sam/), page.keyboard.press('Enter')])
        await page.getByRole('status').getByText('sam is a member now.').waitFor()
        await expectSound(page)
        const officers = (await api(`/api/clubs/${CHESS}/officers/`)).body
        expect(officers).toContainEqual({ username: 'sam', title: 'Treasurer', role: 'officer' })

        await page.getByRole('link', { name: 'The club’s page' }).click()
        await page.getByRole('heading', { level: 1, name: 'Penn Chess Society' }).waitFor()
        await page.getByText('Treasurer').first().waitFor()
        await expectSound(page)

        expect(offHost(watched)).toEqual([])
        expect(watched.problems).toEqual([])
      } finally {
        await page.context().close()
      }
    },
    TIMEOUT,
  )
})
