import { beforeAll, describe, expect, it } from 'bun:test'
import type { Page } from 'playwright-core'
import { browserSuite, checkPage, NARROW, signIn, VIEWPORT, watchPage, type Watched } from '../harness/browser'
import { users } from '../harness/users'
import { adminSender } from '../harness/service'

// An officer's year on the campus site in Chromium (docs/reference.md §22), as people use it: found by
// visible labels and roles, every page on the way audited with axe-core, none scrolling sideways.
// A student on a phone (375 px) registers a club on /clubs/new; an admin at a desk (1280 px, a
// second browser context) rejects it with a comment on Review; the student reads the rejection and
// the comment on My clubs and on the edit page, fixes the subtitle, and the admin finds the club in
// the Review queue again and approves it; the owner adds an officer with a title, public, on the
// members page, and the club's page shows them with that title. Without Chromium the suite fails
// unless SKIP_BROWSER_TESTS=1 is set.

const TOKEN = 'officer-year-browser-admin-token'
const TIMEOUT = 120_000
const CLUB = { code: 'night-kite-flyers', name: 'Night Kite Flyers' }
const COMMENT = 'Say what the club does in the subtitle, please.'
const suite = process.env.SKIP_BROWSER_TESTS === '1' ? describe.skip : describe

suite('an officer’s year in a real browser', () => {
  const site = browserSuite(TOKEN, 'clubs-officer-year-browser-', { timeout: TIMEOUT })
  const tokens: Record<string, string> = {}

  const api = async (path: string, token = TOKEN) => {
    const res = await fetch(`${site.origin}${path}`, { headers: { authorization: `Bearer ${token}` } })
    return res.json() as Promise<any>
  }
  /** Where the club stands in review, as the API says it (docs/reference.md §4: pending is not approved, never decided). */
  const standing = async () => {
    const club = await api(`/api/clubs/${CLUB.code}/`, tokens.lena)
    return club.approved ? 'approved' : club.approved_on ? 'rejected' : 'pending'
  }

  beforeAll(async () => {
    Object.assign(tokens, await users(adminSender(site.origin, TOKEN), 'lena', 'omar'))
  }, TIMEOUT)

  /** The admin's Review page, and the club's section on it. */
  const openReview = async (page: Page) => {
    await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Review' }).click()
    await page.getByRole('heading', { level: 1, name: 'Review' }).waitFor()
    return page.getByRole('region', { name: CLUB.name })
  }

  it(
    'registers a club, reads its rejection and the comment, fixes it, is approved, and adds a public officer whom the club’s page shows',
    async () => {
      const student: Watched = await watchPage(site.browser, new URL(site.origin).host, NARROW)
      const admin: Watched = await watchPage(site.browser, new URL(site.origin).host, VIEWPORT)
      const { page } = student
      const office = admin.page
      page.setDefaultTimeout(15_000)
      office.setDefaultTimeout(15_000)
      try {
        // The student registers a club: it awaits review.
        await signIn(page, site.origin, tokens.lena!)
        await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'My clubs' }).click()
        await page.getByRole('heading', { level: 1, name: 'My clubs' }).waitFor()
        await checkPage(page, student.problems, 'My clubs, no club yet')
        await page.getByRole('main').getByRole('link', { name: 'Register a club', exact: true }).click()
        await page.waitForURL(`${site.origin}/clubs/new`)
        await checkPage(page, student.problems, 'Register a club')
        await page.getByLabel('Name', { exact: true }).fill(CLUB.name)
        await page.getByLabel('Subtitle', { exact: true }).fill('We fly')
        await page.getByRole('button', { name: 'Register', exact: true }).click()
        await page
          .getByRole('status')
          .getByText('Your club is registered, with you as its owner. It awaits review', { exact: false })
          .waitFor()
        const runs = page.getByRole('region', { name: 'Clubs you run' })
        await runs.getByRole('link', { name: CLUB.name, exact: true }).waitFor()
        await checkPage(page, student.problems, 'My clubs, registered')
        expect(await standing()).toBe('pending')

        // The admin rejects it on Review, with a comment.
        await signIn(office, site.origin, TOKEN)
        let inQueue = await openReview(office)
        await checkPage(office, admin.problems, 'Review, the new club')
        await inQueue.getByLabel('Comment').fill(COMMENT)
        await Promise.all([office.waitForURL(/decided=/), inQueue.getByRole('button', { name: 'Reject' }).click()])
        await office.getByText(`Rejected “${CLUB.name}”: it stays out of the public directory.`).waitFor()
        expect(await office.getByRole('region', { name: CLUB.name }).count()).toBe(0)
        await checkPage(office, admin.problems, 'Review, rejected')
        expect(await standing()).toBe('rejected')

        // The student reads the rejection and the comment on My clubs and on the edit page, and fixes the subtitle.
        await page.reload()
        await runs.getByText(`Rejected by admin on`, { exact: false }).waitFor()
        await runs.getByText(`“${COMMENT}”`, { exact: false }).waitFor()
        await checkPage(page, student.problems, 'My clubs, rejected')
        await runs.getByRole('link', { name: `Edit ${CLUB.name}` }).click()
        await page.waitForURL(`${site.origin}/clubs/${CLUB.code}/edit`)
        const latest = page.getByRole('region', { name: 'Latest decision' })
        await latest.getByText('admin rejected this club on', { exact: false }).waitFor()
        await latest.getByText(COMMENT, { exact: true }).waitFor()
        await latest.getByRole('button', { name: 'Submit for review again' }).waitFor()
        await checkPage(page, student.problems, 'Edit, rejected')
        await page
          .getByLabel('Subtitle', { exact: true })
          .fill('Kites with lights, flown after dark on the playing fields')
        await Promise.all([page.waitForURL(/saved=/), page.getByRole('button', { name: 'Save', exact: true }).click()])
        await page
          .getByRole('status')
          .getByText('The club is sent for review again: the activities office decides on it as it stands now.')
          .waitFor()
        expect(await page.getByRole('button', { name: 'Submit for review again' }).count()).toBe(0)
        await checkPage(page, student.problems, 'Edit, sent for review again')
        expect(await standing()).toBe('pending')

        // The club is in the admin's queue again, with its new subtitle; the admin approves it.
        inQueue = await openReview(office)
        await inQueue.getByText('Kites with lights, flown after dark on the playing fields').first().waitFor()
        await checkPage(office, admin.problems, 'Review, the club again')
        await Promise.all([office.waitForURL(/decided=/), inQueue.getByRole('button', { name: 'Approve' }).click()])
        await office.getByText(`Approved “${CLUB.name}”: the public sees it as it stands now.`).waitFor()
        await checkPage(office, admin.problems, 'Review, approved')
        expect((await fetch(`${site.origin}/api/clubs/${CLUB.code}/`)).status).toBe(200)

        // The owner adds omar as a public officer with a title on the members page.
        await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'My clubs' }).click()
        await page.getByRole('heading', { level: 1, name: 'My clubs' }).waitFor()
        expect(await runs.getByText('Rejected by admin', { exact: false }).count()).toBe(0)
        await runs.getByRole('link', { name: new RegExp(`^Join requests and members of ${CLUB.name}`) }).click()
        await page.getByRole('heading', { level: 2, name: 'Members' }).waitFor()
        await checkPage(page, student.problems, 'Members')
        await page.getByLabel('Username', { exact: true }).fill('omar')
        await page.getByLabel('Role', { exact: true }).selectOption({ label: 'Officer' })
        await page.getByLabel('Title', { exact: true }).fill('Chief of Spools')
        await page.getByLabel('Public: listed with their title on the club’s page', { exact: true }).check()
        await Promise.all([page.waitForURL(/added=omar/), page.getByRole('button', { name: 'Add member' }).click()])
        await page.getByRole('status').getByText('omar is a member now.').waitFor()
        await checkPage(page, student.problems, 'Members, officer added')

        // Everyone sees the officer with the title on the club's page.
        await page.getByRole('link', { name: 'The club’s page' }).click()
        await page.getByRole('heading', { level: 1, name: CLUB.name }).waitFor()
        const whom = page.getByRole('region', { name: 'Whom to ask' })
        expect(await whom.getByRole('listitem').filter({ hasText: 'omar' }).textContent()).toContain(
          'omar, Chief of Spools',
        )
        await checkPage(page, student.problems, 'the club’s page')
        const anonymous = await (await fetch(`${site.origin}/clubs/${CLUB.code}`)).text()
        expect(anonymous).toContain('Chief of Spools')
      } finally {
        await page.context().close()
        await office.context().close()
      }
    },
    TIMEOUT,
  )
})
