import { beforeAll, describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import {
  browserSuite,
  checkPage,
  enter,
  NARROW,
  press,
  signIn,
  tabTo,
  VIEWPORT,
  watchPage,
  type Watched,
} from '../harness/browser'
import { users } from '../harness/users'
import { adminSender } from '../harness/service'

// "I'm interested" in Chromium (docs/reference.md §23), as people use it: found by visible labels and roles,
// every page on the way audited with axe-core, none scrolling sideways. An anonymous reader on a
// phone (375 px), by keyboard alone, sends the form without the consent box (refused, the error
// beside it), ticks it and is thanked; an officer at a desk (1280 px) signs in, finds the entry on
// the club's people page and downloads the CSV holding it. Without Chromium the suite fails unless
// SKIP_BROWSER_TESTS=1 is set.

const TOKEN = 'interested-browser-admin-token'
const TIMEOUT = 120_000
const CLUB = { code: 'penn-chess-society', name: 'Penn Chess Society' }
const ADA = { name: 'Ada Lovelace', email: 'ada@campus.example.edu' }
const suite = process.env.SKIP_BROWSER_TESTS === '1' ? describe.skip : describe

suite('an interested student and an officer in a real browser', () => {
  const site = browserSuite(TOKEN, 'clubs-interested-browser-', { timeout: TIMEOUT })
  let officer = ''

  beforeAll(async () => {
    const send = (path: string, body: unknown) =>
      fetch(`${site.origin}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    officer = (await users(adminSender(site.origin, TOKEN), 'olive')).olive
    expect((await send(`/api/clubs/${CLUB.code}/members/`, { username: 'olive', role: 'officer' })).status).toBe(201)
  }, TIMEOUT)

  it(
    'leaves a name and an address with consent on a club page, and the officer reads it and downloads it as CSV',
    async () => {
      const reader: Watched = await watchPage(site.browser, new URL(site.origin).host, NARROW)
      const desk: Watched = await watchPage(site.browser, new URL(site.origin).host, VIEWPORT)
      const { page } = reader
      const office = desk.page
      page.setDefaultTimeout(15_000)
      office.setDefaultTimeout(15_000)
      try {
        // The anonymous reader finds the form on the club's page.
        await page.goto(`${site.origin}/clubs/${CLUB.code}`)
        const form = page.getByRole('region', { name: 'I’m interested' })
        await form.waitFor()
        await checkPage(page, reader.problems, 'The club page')
        const consent = form.getByLabel(/keeps my name and e-mail address/)
        expect(await consent.isChecked()).toBe(false)
        expect(await form.getByText('deleted after a year', { exact: false }).count()).toBe(1)

        // By keyboard: the name and the address, but not the box; refused, the error beside it, what was typed kept.
        await tabTo(page, form.getByLabel('Your name'))
        await page.keyboard.type(ADA.name)
        await page.keyboard.press('Tab')
        await page.keyboard.type(ADA.email)
        await press(page, form.getByRole('button', { name: 'I’m interested' }))
        await page.getByRole('alert').getByText('There is a problem; nothing was saved').waitFor()
        const refused = page.getByRole('region', { name: 'I’m interested' })
        await refused.getByText('Tick the box to agree', { exact: false }).first().waitFor()
        expect(await refused.getByLabel('Your name').inputValue()).toBe(ADA.name)
        expect(await refused.getByLabel('Your e-mail address').inputValue()).toBe(ADA.email)
        // The one 400 the browser logs is the refusal this test sent on purpose.
        const refusal = /status of 400 .*\/clubs\/penn-chess-society\/interest#interest\)$/
        expect(reader.problems.filter((problem) => refusal.test(problem))).toHaveLength(1)
        reader.problems.splice(
          0,
          reader.problems.length,
          ...reader.problems.filter((problem) => !refusal.test(problem)),
        )
        await checkPage(page, reader.problems, 'The form refused without consent')

        // The box ticked with the space bar, the form sent with Enter: thanked.
        const box = refused.getByLabel(/keeps my name and e-mail address/)
        const { visibleFocus } = await tabTo(page, box)
        expect(visibleFocus).toBe(true)
        await page.keyboard.press('Space')
        expect(await box.isChecked()).toBe(true)
        await page.keyboard.press('Tab')
        await enter(page)
        await page.waitForURL(`${site.origin}/clubs/${CLUB.code}?interest=thanks#interest`)
        await page.getByRole('status').getByText('Thank you!', { exact: false }).waitFor()
        await checkPage(page, reader.problems, 'Thanked')

        // The officer signs in, goes from the club's page to its people, and finds the entry.
        await signIn(office, site.origin, officer)
        await office.goto(`${site.origin}/clubs/${CLUB.code}`)
        await office.getByRole('link', { name: 'Join requests and members' }).click()
        const list = office.getByRole('region', { name: 'Interested students' })
        await list.getByRole('cell', { name: ADA.name, exact: true }).waitFor()
        await list.getByRole('cell', { name: ADA.email, exact: true }).waitFor()
        await list.getByRole('button', { name: `Delete ${ADA.name}` }).waitFor()
        await checkPage(office, desk.problems, 'The people page with the entry')

        // The CSV holds it.
        const [download] = await Promise.all([
          office.waitForEvent('download'),
          list.getByRole('link', { name: 'Download CSV' }).click(),
        ])
        expect(download.suggestedFilename()).toBe(`${CLUB.code}-interested.csv`)
        const csv = readFileSync((await download.path())!, 'utf8')
        expect(csv.split(/\r?\n/)[0]).toBe('id,name,email,created_at')
        expect(csv).toContain(`,${ADA.name},${ADA.email},`)
      } finally {
        await page.context().close()
        await office.context().close()
      }
    },
    TIMEOUT,
  )
})
