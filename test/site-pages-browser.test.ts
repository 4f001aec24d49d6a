import sharp from 'sharp'
import { beforeAll, describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { tempDir } from '../harness/app'
import { axeViolations, browserSuite, offHost, sidewaysScroll, watchPage } from '../harness/browser'
import { users } from '../harness/users'
import { adminSender } from '../harness/service'

// Every page of the campus site (docs/reference.md §20), as each kind of person sees it, in Chromium at
// 1280 and at 375 px: axe-core finds no violation, nothing scrolls sideways, the page loads only
// from the service and logs no error. `npm run screenshots` points CLUBS_SCREENSHOTS_DIR at
// docs/screenshots/ and keeps the pictures the README shows; a test run keeps them elsewhere.

const SHOTS = process.env.CLUBS_SCREENSHOTS_DIR ?? tempDir('clubs-site-screenshots-')
const TOKEN = 'site-pages-admin-token'
const TIMEOUT = 90_000
const WIDTHS = [1280, 375] as const
const suite = process.env.SKIP_BROWSER_TESTS === '1' ? describe.skip : describe

type Who = 'anonymous' | 'student' | 'officer' | 'admin'

/** The pages, each named as its screenshot is, and who looks at it. */
const PAGES: readonly { name: string; path: string; who: Who }[] = [
  { name: 'site-directory', path: '/', who: 'anonymous' },
  { name: 'site-search', path: '/?search=chess', who: 'anonymous' },
  { name: 'site-club', path: '/clubs/penn-chess-society', who: 'student' },
  { name: 'site-club-anonymous', path: '/clubs/lantern-society', who: 'anonymous' },
  { name: 'site-interest', path: '/clubs/lantern-society#interest', who: 'anonymous' },
  { name: 'site-sign-in', path: '/sign-in', who: 'anonymous' },
  { name: 'site-not-found', path: '/clubs/no-such-club', who: 'anonymous' },
  { name: 'site-my-clubs', path: '/my-clubs', who: 'officer' },
  { name: 'site-my-clubs-student', path: '/my-clubs', who: 'student' },
  { name: 'site-new-club', path: '/clubs/new', who: 'student' },
  { name: 'site-edit', path: '/clubs/lantern-society/edit', who: 'officer' },
  { name: 'site-edit-rejected', path: '/clubs/olive-knitters/edit', who: 'officer' },
  { name: 'site-requests', path: '/clubs/lantern-society/requests', who: 'officer' },
  { name: 'site-review', path: '/review', who: 'admin' },
  { name: 'site-revoke', path: '/review/penn-chess-society/revoke', who: 'admin' },
  { name: 'site-users', path: '/admin/users', who: 'admin' },
  { name: 'site-user', path: '/admin/users/olive', who: 'admin' },
  { name: 'site-new-token', path: '/admin/users/olive/token', who: 'admin' },
  { name: 'site-club-admin', path: '/clubs/penn-chess-society', who: 'admin' },
]

suite('every page of the site in Chromium', () => {
  const site = browserSuite(TOKEN, 'clubs-site-pages-', {
    env: { CLUBS_SITE_TITLE: 'Example University' },
    timeout: TIMEOUT,
  })
  const tokens: Record<Exclude<Who, 'anonymous'>, string> = { student: '', officer: '', admin: TOKEN }

  const api = async (path: string, json?: unknown, token = TOKEN, method = json === undefined ? 'GET' : 'POST') => {
    const res = await fetch(`${site.origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: json === undefined ? undefined : JSON.stringify(json),
    })
    if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
    return res.json() as Promise<any>
  }

  beforeAll(async () => {
    const { sam, olive } = await users(adminSender(site.origin, TOKEN), 'sam', 'olive')
    tokens.student = sam
    tokens.officer = olive
    // Olive's club, approved, then a change of hers that awaits review; Sam favors the chess club.
    await api(
      '/api/clubs/',
      {
        name: 'Lantern Society',
        subtitle: 'Paper lanterns by the river',
        description: 'We fold lanterns and float them on the first Friday of each month.',
        accepting_members: true,
      },
      tokens.officer,
    )
    await api('/api/clubs/lantern-society/', { approved: true }, TOKEN, 'PATCH')
    await api('/api/clubs/lantern-society/', { subtitle: 'Paper lanterns, and now kites' }, tokens.officer, 'PATCH')
    await api('/api/clubs/lantern-society/requests/', { message: 'I would love to fold lanterns.' }, tokens.student)
    // A club of hers the office rejected, with a comment: its edit page offers Submit for review again.
    await api('/api/clubs/', { name: 'Olive Knitters', subtitle: 'Wool' }, tokens.officer)
    await api(
      '/api/clubs/olive-knitters/',
      { approved: false, approved_comment: 'Tell students when and where you meet.' },
      TOKEN,
      'PATCH',
    )
    await api('/api/favorites/', { club: 'penn-chess-society' }, tokens.student)
    // The chess club's profile (docs/reference.md §21): a logo, two meetings, and an officer people can ask.
    const logo = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#0b4a8b' } })
      .composite([
        {
          input: Buffer.from('<svg width="256" height="256"><circle cx="128" cy="128" r="80" fill="#f2c14e"/></svg>'),
        },
      ])
      .png()
      .toBuffer()
    const uploaded = await fetch(`${site.origin}/api/clubs/penn-chess-society/logo/`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: logo,
    })
    expect(uploaded.status).toBe(200)
    await api(
      '/api/clubs/penn-chess-society/',
      {
        meetings: [
          { day: 'tuesday', start: '19:00', end: '21:30', location: 'Houston Hall 202', note: 'Open play' },
          { day: 'saturday', start: '10:00', end: '12:00', location: 'Van Pelt Library, room 4', note: 'Lessons' },
        ],
      },
      TOKEN,
      'PATCH',
    )
    await api('/api/clubs/penn-chess-society/members/', {
      username: 'olive',
      role: 'officer',
      title: 'President',
      public: true,
    })
  }, TIMEOUT)

  for (const { name, path, who } of PAGES)
    it(
      `${name} (${path}, ${who}): no axe violation and no sideways scroll at ${WIDTHS.join(' and ')} px`,
      async () => {
        const watched = await watchPage(site.browser, new URL(site.origin).host)
        const { page, problems } = watched
        if (who !== 'anonymous') {
          await page.goto(`${site.origin}/sign-in`)
          await page.getByLabel('Your token').fill(tokens[who])
          await Promise.all([
            page.waitForEvent('framenavigated'),
            page.getByRole('button', { name: 'Sign in' }).click(),
          ])
        }
        for (const width of WIDTHS) {
          await page.setViewportSize({ width, height: 900 })
          await page.goto(`${site.origin}${path}`)
          expect(await page.title()).toContain('Example University')
          expect([width, await axeViolations(page)]).toEqual([width, []])
          expect([width, await sidewaysScroll(page)]).toEqual([width, 0])
          await page.screenshot({ path: join(SHOTS, `${name}${width === 375 ? '-375' : ''}.png`), fullPage: false })
        }
        // Everything but the deliberate 404's own answer, which Chromium reports on the console.
        expect(problems.filter((line) => !/404/.test(line) || !path.includes('no-such'))).toEqual([])
        expect(offHost(watched)).toEqual([])
        await page.context().close()
      },
      TIMEOUT,
    )

  it(
    'the directory: each tag checkbox has its label beside it at 1280 and 375 px, the icon loads, no axe violation',
    async () => {
      const watched = await watchPage(site.browser, new URL(site.origin).host)
      const { page, problems } = watched
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 900 })
        await page.goto(`${site.origin}/?sort=name&tags=Academic`)
        const boxes = await page.evaluate(() =>
          [...document.querySelectorAll<HTMLInputElement>('input[type=checkbox]')].map((box) => {
            const label = document.querySelector(`label[for="${box.id}"]`)
            const { left, right, top, bottom } = box.getBoundingClientRect()
            const at = label?.getBoundingClientRect()
            return {
              id: box.id,
              box: { left, right, top, bottom },
              label: at && { left: at.left, top: at.top, bottom: at.bottom },
            }
          }),
        )
        expect(boxes.length).toBeGreaterThan(10)
        // Beside: the label starts just right of its box, on the same line (their heights overlap).
        const apart = boxes.filter(
          ({ box, label }) =>
            !label ||
            label.left < box.right ||
            label.left - box.right > 16 ||
            label.top >= box.bottom ||
            label.bottom <= box.top,
        )
        expect([width, apart]).toEqual([width, []])
        expect([width, await axeViolations(page)]).toEqual([width, []])
        expect([width, await sidewaysScroll(page)]).toEqual([width, 0])
      }
      // What a browser asks on its own, and what the page names.
      expect(await page.evaluate(async () => (await fetch('/favicon.ico')).headers.get('content-type'))).toBe(
        'image/x-icon',
      )
      const named = await page.evaluate(() => document.querySelector<HTMLLinkElement>('link[rel=icon]')?.href ?? '')
      expect((await page.request.get(named)).status()).toBe(200)
      expect(problems).toEqual([])
      expect(offHost(watched)).toEqual([])
      await page.context().close()
    },
    TIMEOUT,
  )
})
