import { beforeAll, describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { browserSuite, checkPage, NARROW, offHost, press, tabTo, watchPage } from '../harness/browser'
import { tempDir } from '../harness/temp-dirs'
import { users } from '../harness/users'
import { adminSender } from '../harness/service'

// Invite links on the campus site in Chromium (docs/reference.md §23), at 375 px and by keyboard: an officer
// makes a link for one person on the club's members page, copies it from the page that answers and
// finds it listed back on the members page; a student
// opens it, signs in, comes back to it and joins with "Join <club>"; a second student opening it
// gets the 404 page, as it is used up. Every page is audited with axe-core. Without Chromium the
// suite fails unless SKIP_BROWSER_TESTS=1 is set. `npm run screenshots` keeps its pictures of the
// new link, the invite links section and a link's page in docs/screenshots/ (CLUBS_SCREENSHOTS_DIR).

const SHOTS = process.env.CLUBS_SCREENSHOTS_DIR ?? tempDir('clubs-invites-screenshots-')

const TOKEN = 'invites-browser-admin-token'
const TIMEOUT = 90_000
const CHESS = 'penn-chess-society'
const CLUB = 'Penn Chess Society'
const suite = process.env.SKIP_BROWSER_TESTS === '1' ? describe.skip : describe

/** Tabs to the field labelled `label` (the focus visible on the way) and types `text` over what it holds. */
async function typeInto(page: Page, label: string, text: string) {
  expect(await tabTo(page, page.getByLabel(label, { exact: true }))).toEqual({ visibleFocus: true })
  await page.keyboard.press('ControlOrMeta+A')
  await page.keyboard.type(text)
}

suite('a student joins a club through an invite link in a real browser', () => {
  const site = browserSuite(TOKEN, 'clubs-invites-browser-', { timeout: TIMEOUT })
  const tokens: Record<string, string> = {}

  const api = (path: string, body?: unknown) =>
    fetch(`${site.origin}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })

  beforeAll(async () => {
    Object.assign(tokens, await users(adminSender(site.origin, TOKEN), 'olive', 'sam', 'tess'))
    expect((await api(`/api/clubs/${CHESS}/members/`, { username: 'olive', role: 'officer' })).status).toBe(201)
  }, TIMEOUT)

  /** A page 375 px wide, signed in as `username` by keyboard when asked. */
  async function narrowPage(username?: string) {
    const watched = await watchPage(site.browser, new URL(site.origin).host, NARROW)
    watched.page.setDefaultTimeout(15_000)
    if (username) {
      await watched.page.goto(`${site.origin}/sign-in`)
      await typeInto(watched.page, 'Your token', tokens[username]!)
      await Promise.all([watched.page.waitForURL(`${site.origin}/`), watched.page.keyboard.press('Enter')])
    }
    return watched
  }

  it(
    'an officer makes a one-use link; a student signs in through it and joins; a second student gets the 404 page',
    async () => {
      const officer = await narrowPage('olive')
      const sam = await narrowPage()
      const tess = await narrowPage('tess')
      try {
        const { page } = officer
        await page.goto(`${site.origin}/clubs/${CHESS}/requests`)
        await page.getByRole('heading', { level: 2, name: 'Invite links' }).waitFor()
        await page.getByText('There are no live invite links.').waitFor()
        await typeInto(page, 'Hours until it expires', '24')
        await typeInto(page, 'Uses', '1')
        await press(page, page.getByRole('button', { name: 'Make an invite link' }))
        await page.getByRole('status').getByText('Copy the link now: it is shown this once.').waitFor()
        const link = await page.getByLabel(`Invite link to ${CLUB}`, { exact: true }).inputValue()
        expect(link).toMatch(new RegExp(`^${site.origin}/invites/[A-Za-z0-9_-]{43}$`))
        await checkPage(page, officer.problems, 'the new link')
        await page.screenshot({ path: join(SHOTS, 'site-invite-made-375.png') })
        await press(page, page.getByRole('link', { name: 'Back to the members and invite links' }))
        const row = page.getByRole('row').filter({ hasText: 'olive' })
        expect(await row.getByRole('cell').allTextContents()).toEqual([
          expect.stringContaining('2026'),
          '1 of 1',
          'olive',
          expect.stringContaining('End'),
        ])
        await checkPage(page, officer.problems, 'the members page with the live link')
        await page
          .locator('section[aria-labelledby="invites"]')
          .screenshot({ path: join(SHOTS, 'site-invites-375.png') })

        // The student is not signed in: the link sends them to sign in, then back to it.
        await sam.page.goto(link)
        await sam.page.waitForURL(/\/sign-in\?next=/)
        await typeInto(sam.page, 'Your token', tokens.sam!)
        await Promise.all([sam.page.waitForURL(link), sam.page.keyboard.press('Enter')])
        await sam.page.getByRole('heading', { level: 1, name: `Join ${CLUB}?` }).waitFor()
        await checkPage(sam.page, sam.problems, 'the invite page')
        await sam.page.screenshot({ path: join(SHOTS, 'site-invite-375.png') })
        await press(sam.page, sam.page.getByRole('button', { name: `Join ${CLUB}` }))
        await sam.page.getByRole('heading', { level: 1, name: `Welcome to ${CLUB}` }).waitFor()
        await sam.page.getByRole('status').getByText(`You are now a member of ${CLUB}.`).waitFor()
        await checkPage(sam.page, sam.problems, 'joined')
        const members = (await (await api(`/api/clubs/${CHESS}/members/`)).json()) as { username: string }[]
        expect(members.map((member) => member.username)).toContain('sam')

        // Used up: the link is the site's 404 page for the next student.
        const refused = await tess.page.goto(link)
        expect(refused!.status()).toBe(404)
        await tess.page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor()
        const expected404 = /status of 404/
        expect(tess.problems.filter((problem) => !expected404.test(problem))).toEqual([])
        await checkPage(tess.page, [], 'the used-up link')
        expect((await (await api(`/api/clubs/${CHESS}/members/`)).json()) as { username: string }[]).not.toContainEqual(
          expect.objectContaining({ username: 'tess' }),
        )

        await page.goto(`${site.origin}/clubs/${CHESS}/requests`)
        await page.getByText('There are no live invite links.').waitFor()
        for (const watched of [officer, sam, tess]) expect(offHost(watched)).toEqual([])
      } finally {
        for (const watched of [officer, sam, tess]) await watched.page.context().close()
      }
    },
    TIMEOUT,
  )
})
