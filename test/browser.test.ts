import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Subprocess } from 'bun'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { tempDir } from '../harness/app'
import { axeViolations, offHost, serviceAndBrowser, watchPage, type Watched } from '../harness/browser'
import { adminSender, sleep, stopService } from '../harness/service'
import { APPLICATION_REQUIRED, RECRUITING_CYCLES, SIZES } from '../src/model/club'
import { users } from '../harness/users'

// End-to-end checks of the browsable view (`?format=api`) and the Swagger UI (`/swagger`) in a real
// Chromium, against the real service (`bun src/index.ts`) on a free port. Every page the tests open
// is watched (harness/browser.ts): it may only load from the service itself (no CDN) and may log no
// error, throw nothing, and trip no Content-Security-Policy rule. Each of our pages is also audited
// with axe-core: no violations.
//
// CI installs Chromium at /usr/bin/chromium. Without it the suite fails (not skips) unless
// SKIP_BROWSER_TESTS=1 is set.

// The API guide's images (docs/api.md) are refreshed by `npm run screenshots`, which points this at docs/; a test
// run writes them to a folder of its own, so it never changes tracked files.
const SHOTS = process.env.CLUBS_SCREENSHOTS_DIR ?? tempDir('clubs-screenshots-')
const TOKEN = 'browser-admin-token'
const TIMEOUT = 30_000
const SKIP = process.env.SKIP_BROWSER_TESTS === '1'
/** Swagger UI's own markup, left out of the accessibility audit: it is the package's, not ours. */
const SWAGGER_UI = '#swagger-ui'

const suite = SKIP ? describe.skip : describe

suite('in a real browser', () => {
  let proc: Subprocess | undefined
  let browser: Browser | undefined
  let dir: string | undefined
  let port = 0
  let base = ''
  let origin = ''

  const api = (path: string, init: RequestInit = {}, token: string | null = TOKEN) => {
    const headers = new Headers(init.headers)
    if (token) headers.set('authorization', `Bearer ${token}`)
    if (init.body !== undefined) headers.set('content-type', 'application/json')
    return fetch(`${base}${path}`, { ...init, headers })
  }
  const apiJson = async (path: string, token: string | null = null) => (await api(path, {}, token)).json()

  const openPage = (host = `127.0.0.1:${port}`) => watchPage(browser!, host)

  /** Every request went to the service, and nothing went wrong on the page; then the page closes. */
  async function finish(watched: Watched, allowed: RegExp[] = []) {
    try {
      expect(watched.requests.length).toBeGreaterThan(0)
      expect(offHost(watched)).toEqual([])
      expect(watched.problems.filter((problem) => !allowed.some((pattern) => pattern.test(problem)))).toEqual([])
    } finally {
      await watched.page.context().close()
    }
  }

  /**
   * Runs `body` on a watched page, then checks what the page did (`allowed` exempts expected problems).
   * When `body` fails, its error names the page's problems too, since they often explain it.
   */
  async function withPageOn(watched: Watched, body: (page: Page) => Promise<void>, allowed: RegExp[] = []) {
    try {
      await body(watched.page)
    } catch (error) {
      await watched.page.context().close()
      const message = error instanceof Error ? error.message : String(error)
      throw new Error(`${message}\n(page problems: ${JSON.stringify(watched.problems)})`, { cause: error })
    }
    await finish(watched, allowed)
  }

  const withPage = async (body: (page: Page) => Promise<void>, allowed: RegExp[] = [], host?: string) =>
    withPageOn(await openPage(host), body, allowed)

  const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, name), fullPage: false })
  const expectAccessible = async (page: Page, exclude: string[] = []) =>
    expect(await axeViolations(page, exclude)).toEqual([])

  /** The text of the rendered response (`<pre class="response">`), links included as their text. */
  const responseText = async (page: Page) => (await page.locator('pre.response').textContent()) ?? ''
  /** The JSON body the page shows (after the status line and headers). */
  const responseJson = async (page: Page) => {
    const text = await responseText(page)
    return JSON.parse(text.slice(text.indexOf('\n\n') + 2))
  }
  const shownStatus = (page: Page) => page.locator('pre.response').getAttribute('data-status')
  const heading = (page: Page, name: string) =>
    page.getByRole('heading', { level: 1, name, exact: true }).waitFor({ state: 'visible' })

  /** Enters `token` in the page's token bar; the page reloads with it. */
  async function useToken(page: Page, token: string) {
    await page.locator('#token').fill(token)
    await page.getByRole('button', { name: 'Use token' }).click()
    await page.locator('.token .who').waitFor({ state: 'visible' })
  }

  /** Fills the page's request form and sends it; the page becomes its answer, whose status this returns. */
  async function send(page: Page, method: string, body: string | null) {
    const form = page.locator('form.api-form')
    await form.locator('select[name="method"]').selectOption(method)
    if (body !== null) await form.locator('textarea[name="body"]').fill(body)
    await form.getByRole('button', { name: 'Send' }).click()
    await page.locator('p.request .method', { hasText: method }).waitFor({ state: 'visible' })
    return shownStatus(page)
  }

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true })
    dir = mkdtempSync(join(tmpdir(), 'clubs-browser-'))
    const started = await serviceAndBrowser(dir, TOKEN)
    ;({ port, proc, browser } = started)
    base = origin = started.origin
  }, TIMEOUT)

  afterAll(async () => {
    await browser?.close().catch(() => {})
    await stopService(proc)
    if (dir) rmSync(dir, { recursive: true, force: true })
  }, TIMEOUT)

  describe('the watch on every page', () => {
    it(
      'notices what it must: a CSP violation, a request to another host, an uncaught error',
      async () => {
        const watched = await openPage()
        try {
          await watched.page.goto(`${origin}/api/clubs/?format=api`)
          await watched.page.evaluate(() => {
            const inline = document.createElement('script')
            inline.textContent = 'window.__inline = 1'
            document.body.append(inline)
            const image = document.createElement('img')
            image.src = 'http://cdn.invalid/pixel.png'
            document.body.append(image)
            setTimeout(() => {
              throw new Error('thrown on purpose')
            })
          })
          const noticed = () =>
            ['script-src', 'img-src', 'thrown on purpose'].every((what) => watched.problems.join('\n').includes(what))
          for (let i = 0; i < 100 && !noticed(); i++) await sleep(50)
          // The CSP stops the image, but the attempt is still recorded as a request.
          expect(offHost(watched)).toEqual(['http://cdn.invalid/pixel.png'])
          const problems = watched.problems.join('\n')
          expect(problems).toContain('script-src')
          expect(problems).toContain('img-src')
          expect(problems).toContain('thrown on purpose')
          expect(
            await watched.page.evaluate(() => (window as unknown as { __inline?: number }).__inline),
          ).toBeUndefined()
        } finally {
          await watched.page.context().close()
        }
      },
      TIMEOUT,
    )

    it(
      'audits a page with axe-core under its own CSP, and finds a violation planted in it',
      async () => {
        await withPage(
          async (page) => {
            await page.goto(`${origin}/api/clubs/?format=api`)
            await heading(page, 'Club List')
            await expectAccessible(page)
            await page.evaluate(() => {
              const image = document.createElement('img')
              image.src = 'data:image/gif;base64,R0lGODlhAQABAAAAACw='
              document.querySelector('main')!.append(image)
            })
            const found = await axeViolations(page)
            expect(found).toHaveLength(1)
            expect(found[0]).toStartWith('image-alt (critical)')
            // The policy still forbids inline script: the audit did not loosen it.
            expect(
              await page.evaluate(() => {
                const inline = document.createElement('script')
                inline.textContent = 'window.__inline = 1'
                document.body.append(inline)
                return (window as unknown as { __inline?: number }).__inline
              }),
            ).toBeUndefined()
          },
          [/CSP violation: script-src/, /Content Security Policy/],
        )
      },
      TIMEOUT,
    )
  })

  describe('the browsable view', () => {
    it(
      'shows the API root, whose page says where each link leads (/ is the campus site for browsers)',
      async () => {
        await withPage(async (page) => {
          const res = await page.goto(`${origin}/api/`)
          expect(res?.status()).toBe(200)
          expect(new URL(page.url()).pathname).toBe('/api/')
          await heading(page, 'Club Directory API')
          expect(await page.title()).toBe('Club Directory API')
          const links = page.locator('ul.directory li > a')
          expect(await links.allTextContents()).toEqual([
            'Club List',
            'Tag List',
            'Change List',
            'Favorites',
            'Subscriptions',
            'Users',
            'API docs',
          ])
          expect(await page.locator('ul.directory li', { hasText: 'Favorites' }).textContent()).toContain(
            'Needs a token.',
          )
          await expectAccessible(page)
          await shot(page, 'api-root.png')
          await links.getByText('Club List').click()
          await heading(page, 'Club List')
        })
      },
      TIMEOUT,
    )

    it(
      'shows a browser one page of the list at a time, with page links, whatever the JSON answer is',
      async () => {
        await withPage(async (page) => {
          // A browser's own Accept header prefers HTML: the browsable view, without ?format=api.
          const res = await page.goto(`${origin}/api/clubs/`)
          expect(res?.status()).toBe(200)
          expect(res?.headers()['content-type']).toStartWith('text/html')
          await heading(page, 'Club List')
          const whole = await api('/api/clubs/', {}, null)
          const total = Number(whole.headers.get('x-total-count'))
          expect(((await whole.json()) as unknown[]).length).toBe(total)
          expect(total).toBeGreaterThan(30)
          // The page shows exactly what a program gets for page 1.
          expect(await responseJson(page)).toEqual(await apiJson('/api/clubs/?page=1'))
          const pages = page.getByRole('navigation', { name: 'Pages', exact: true })
          expect(await pages.locator('.range').textContent()).toBe(`Clubs 1–15 of ${total}`)
          expect(await pages.locator('[aria-current="page"]').textContent()).toBe('1')
          await expectAccessible(page)
          await shot(page, 'list-view.png')

          await pages.getByRole('link', { name: 'Next »' }).click()
          await page.waitForURL((url) => url.searchParams.get('page') === '2')
          await heading(page, 'Club List')
          expect(await pages.locator('.range').textContent()).toBe(`Clubs 16–30 of ${total}`)
          const { count, results } = await apiJson('/api/clubs/?page=2')
          expect(await responseJson(page)).toMatchObject({ count, results })
          const last = Math.ceil(total / 15)
          await pages.getByRole('link', { name: `Page ${last}`, exact: true }).click()
          await page.waitForURL((url) => url.searchParams.get('page') === String(last))
          expect(await pages.getByText('Next »').getAttribute('aria-disabled')).toBe('true')
          await expectAccessible(page)
        })
      },
      TIMEOUT,
    )

    it(
      'shows the labels of coded values beside them in the list, without changing the JSON text',
      async () => {
        await withPage(async (page) => {
          await page.goto(`${origin}/api/clubs/?format=api`)
          await heading(page, 'Club List')
          const first = (await responseJson(page)).results[0]
          const labels = await page
            .locator('pre.response .label')
            .evaluateAll((spans) => spans.slice(0, 3).map((span) => getComputedStyle(span, '::after').content))
          expect(labels).toEqual(
            [
              APPLICATION_REQUIRED[first.application_required as keyof typeof APPLICATION_REQUIRED],
              RECRUITING_CYCLES[first.recruiting_cycle as keyof typeof RECRUITING_CYCLES],
              SIZES[first.size as keyof typeof SIZES],
            ].map((label) => `"  // ${label}"`),
          )
        })
      },
      TIMEOUT,
    )

    it(
      'orders the list by the "name ↑" link',
      async () => {
        await withPage(async (page) => {
          await page.goto(`${origin}/api/clubs/?format=api`)
          await page.getByRole('link', { name: 'name ↑', exact: true }).click()
          await page.waitForURL((url) => url.searchParams.get('ordering') === 'name')
          expect(new URL(page.url()).searchParams.get('format')).toBe('api')
          await heading(page, 'Club List')
          // The chosen ordering is shown as the current one, no longer as a link.
          expect(await page.locator('nav.ordering strong').textContent()).toBe('name ↑')
          expect(await page.getByRole('link', { name: 'name ↑', exact: true }).count()).toBe(0)
          const { count, results } = await apiJson('/api/clubs/?ordering=name&page=1')
          expect(await responseJson(page)).toMatchObject({ count, results })
        })
      },
      TIMEOUT,
    )

    it(
      'searches and filters with a form made from the list parameters the OpenAPI document declares',
      async () => {
        await withPage(async (page) => {
          await page.goto(`${origin}/api/clubs/?format=api`)
          const form = page.locator('form.filter-form')
          expect(await form.isVisible()).toBe(false)
          await page.getByText('Search and filter').click()
          await form.waitFor({ state: 'visible' })
          const declared = ((await apiJson('/swagger/json')) as any).paths['/api/clubs/'].get.parameters
            .map((param: { name: string }) => param.name)
            .filter((name: string) => !['page', 'fields', 'format'].includes(name))
          const offered = await form
            .locator('[name]')
            .evaluateAll((controls) => [...new Set(controls.map((c) => c.getAttribute('name')))])
          expect(offered).toEqual([...declared, 'format'])

          await form.getByLabel('search').fill('society')
          await form.getByRole('checkbox', { name: '1-20', exact: true }).check()
          await form.getByRole('checkbox', { name: '21-50', exact: true }).check()
          await form.getByLabel('accepting_members').selectOption('true')
          await form.getByLabel('ordering').selectOption('name')
          await expectAccessible(page)
          await shot(page, 'filters.png')
          await form.getByRole('button', { name: 'Apply' }).click()
          await page.waitForURL((url) => url.searchParams.get('search') === 'society')
          const query = new URL(page.url()).searchParams
          expect(Object.fromEntries(query)).toEqual({
            ordering: 'name',
            search: 'society',
            accepting_members: 'true',
            size: '1,2',
            format: 'api',
          })
          const asked = new URLSearchParams(query)
          asked.delete('format')
          const { count, results } = await apiJson(`/api/clubs/?${asked}&page=1`)
          expect(count).toBeGreaterThan(0)
          expect(await responseJson(page)).toMatchObject({ count, results })
          // The form shows the filters in force.
          expect(await form.isVisible()).toBe(true)
          expect(await form.getByLabel('search').inputValue()).toBe('society')
          expect(await form.getByRole('checkbox', { name: '21-50', exact: true }).isChecked()).toBe(true)
          expect(await form.getByRole('checkbox', { name: '51-100', exact: true }).isChecked()).toBe(false)
        })
      },
      TIMEOUT,
    )

    it(
      "links each tag in a club to the tag's list of clubs",
      async () => {
        await withPage(async (page) => {
          await page.goto(`${origin}/api/clubs/penn-chess-society/?format=api`)
          const club = await responseJson(page)
          const tag = club.tags[0] as { id: number; name: string }
          await page.locator('pre.response').getByRole('link', { name: tag.name, exact: true }).click()
          await page.waitForURL((url) => url.searchParams.get('tags') === tag.name)
          await heading(page, 'Club List')
          const { results } = await responseJson(page)
          expect(results.map((c: { code: string }) => c.code)).toContain('penn-chess-society')
          for (const listed of results) expect(listed.tags).toContainEqual(tag)
        })
      },
      TIMEOUT,
    )

    it(
      'shows an officer their pending club and their own flags once their token is entered, on every page they open',
      async () => {
        const { alice } = await users(adminSender(base, TOKEN), 'alice')
        const created = await api(
          '/api/clubs/',
          { method: 'POST', body: JSON.stringify({ name: 'Lantern Makers', subtitle: 'Paper and light' }) },
          alice,
        )
        expect(created.status).toBe(201)
        const favorite = { method: 'POST', body: JSON.stringify({ club: 'penn-chess-society' }) }
        expect((await api('/api/favorites/', favorite, alice)).status).toBe(201)

        const watched = await openPage()
        const carried: string[] = []
        watched.page.on('request', (request) => {
          if (request.headers().authorization) carried.push(request.url())
        })
        await withPageOn(
          watched,
          async (page) => {
            // Anonymously, a pending club is not found, and there is nothing to send to it.
            await page.goto(`${origin}/api/clubs/lantern-makers/?format=api`)
            expect(await shownStatus(page)).toBe('404')
            expect(await page.locator('form.api-form').count()).toBe(0)

            await useToken(page, alice)
            await heading(page, 'Lantern Makers')
            expect(await page.title()).toBe('Lantern Makers – Club Directory')
            expect(await shownStatus(page)).toBe('200')
            expect(await page.locator('.token .username').textContent()).toBe('alice')
            expect(await page.locator('ul.facts').textContent()).toContain('You are a member')
            expect(await responseJson(page)).toMatchObject({ approved: false, is_member: true })
            await expectAccessible(page)
            await shot(page, 'club-view.png')

            // A link carries the token: her own pending club is in her list ...
            await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Clubs' }).click()
            await page.waitForURL(`${origin}/api/clubs/?format=api`)
            await heading(page, 'Club List')
            await page.getByText('Search and filter').click()
            await page.locator('form.filter-form').getByLabel('search').fill('lantern')
            await page.locator('form.filter-form').getByRole('button', { name: 'Apply' }).click()
            await page.waitForURL((url) => url.searchParams.get('search') === 'lantern')
            await page.locator('pre.response').getByRole('link', { name: 'lantern-makers' }).waitFor()
            // So does a download of the same list.
            const [download] = await Promise.all([
              page.waitForEvent('download'),
              page.getByRole('navigation', { name: 'Download' }).getByRole('link', { name: 'CSV' }).click(),
            ])
            expect(download.suggestedFilename()).toBe('clubs.csv')
            expect(readFileSync((await download.path())!, 'utf8')).toContain('lantern-makers')
            // ... and her favorite says so on its page.
            await page.goto(`${origin}/api/clubs/penn-chess-society/?format=api`)
            await heading(page, 'Penn Chess Society')
            await page.locator('ul.facts li.is_favorite').waitFor({ state: 'visible' })
            expect(await responseJson(page)).toMatchObject({ is_favorite: true, is_member: false })

            // Back and forward, and a reload, keep it.
            await page.goBack()
            await page.waitForURL((url) => url.searchParams.get('search') === 'lantern')
            await page.locator('pre.response').getByRole('link', { name: 'lantern-makers' }).click()
            await heading(page, 'Lantern Makers')
            await page.reload()
            await heading(page, 'Lantern Makers')
            expect(await shownStatus(page)).toBe('200')

            // Forgotten, the page is anonymous again.
            await page.getByRole('button', { name: 'Forget token' }).click()
            await page.locator('form.token-form').waitFor({ state: 'visible' })
            expect(await shownStatus(page)).toBe('404')
            expect(await page.context().cookies()).toEqual([])
          },
          [/status of 404/],
        )
        // The token went only to this service's API, in the Authorization header, never in a URL.
        expect(carried.length).toBeGreaterThan(5)
        for (const url of carried) expect(url).toStartWith(`${origin}/api/`)
        expect(watched.requests.filter((url) => url.includes(alice))).toEqual([])
      },
      TIMEOUT,
    )

    it(
      'says so when a token is not accepted, at once or once it has been revoked',
      async () => {
        await withPage(
          async (page) => {
            await page.goto(`${origin}/api/clubs/?format=api`)
            await page.locator('#token').fill('not-a-token')
            await page.getByRole('button', { name: 'Use token' }).click()
            const problem = page.locator('.token .problem')
            await problem.waitFor({ state: 'visible' })
            expect(await problem.textContent()).toBe('This token is not accepted: Invalid token.')
            expect(await page.locator('form.token-form').isVisible()).toBe(true)
            expect(await page.evaluate(() => sessionStorage.length)).toBe(0)

            // A token that stops working says so on the next page.
            await useToken(page, (await users(adminSender(base, TOKEN), 'dave')).dave)
            expect((await api('/api/users/dave/token/', { method: 'DELETE' })).status).toBe(204)
            await page.getByRole('link', { name: 'name ↑', exact: true }).click()
            await problem.waitFor({ state: 'visible' })
            expect(await problem.textContent()).toBe(
              'Your token is not accepted (any more): forget it, or use another.',
            )
            expect(await shownStatus(page)).toBe('401')
          },
          [/status of 401/],
        )
      },
      TIMEOUT,
    )

    it(
      "creates a club through the list page's form, opens it, and deletes it, each answer becoming the page",
      async () => {
        const { carol } = await users(adminSender(base, TOKEN), 'carol')
        await withPage(async (page) => {
          await page.goto(`${origin}/api/clubs/?format=api`)
          await useToken(page, carol)
          expect(await page.locator('.sent-as').textContent()).toBe('Sent with the token of carol.')
          expect(await send(page, 'POST', '{"name": "Browser Made Club"}')).toBe('201')
          const text = await responseText(page)
          expect(text).toContain(`Location: ${origin}/api/clubs/browser-made-club/`)
          expect(text).toContain('"approved": false')
          // Pending approval, yet the link carries the token, so its owner sees it.
          await page.getByRole('link', { name: 'Open what was created' }).click()
          await page.waitForURL(`${origin}/api/clubs/browser-made-club/?format=api`)
          await heading(page, 'Browser Made Club')
          expect(await shownStatus(page)).toBe('200')

          expect(await send(page, 'DELETE', null)).toBe('204')
          expect(await responseText(page)).toStartWith('HTTP 204 No Content')
          expect(await page.locator('form.api-form').count()).toBe(0)
          expect((await api('/api/clubs/browser-made-club/')).status).toBe(404)
        })
      },
      TIMEOUT,
    )

    it(
      'changes a club with PATCH from its page, and keeps a refused body in the form to correct it',
      async () => {
        await withPage(
          async (page) => {
            const res = await page.goto(`${origin}/api/clubs/penn-chess-society/?format=api`)
            expect(res?.status()).toBe(200)
            await heading(page, 'Penn Chess Society')
            await useToken(page, TOKEN)

            expect(await send(page, 'PATCH', '{"subtitle": "Changed in a browser"}')).toBe('200')
            expect(await responseJson(page)).toMatchObject({ subtitle: 'Changed in a browser' })
            // The form's PUT/PATCH template starts from the changed club.
            expect(await page.locator('textarea[name="body"]').inputValue()).toContain(
              '"subtitle": "Changed in a browser"',
            )
            await page.reload()
            await heading(page, 'Penn Chess Society')
            expect(await responseJson(page)).toMatchObject({ subtitle: 'Changed in a browser' })

            expect(await send(page, 'PATCH', '{"size": 9}')).toBe('400')
            expect(Object.keys(await responseJson(page))).toEqual(['size'])
            expect(await page.locator('select[name="method"]').inputValue()).toBe('PATCH')
            expect(await page.locator('textarea[name="body"]').inputValue()).toBe('{"size": 9}')
            await expectAccessible(page)
          },
          [/status of 400/],
        )
      },
      TIMEOUT,
    )

    it(
      'renders a 404 for a club that does not exist, with no form to send',
      async () => {
        // Chromium reports a 404 document on the console; that one report is expected here.
        const notFound =
          /Failed to load resource: the server responded with a status of 404 .*\/api\/clubs\/no-such-club\//
        await withPage(
          async (page) => {
            const res = await page.goto(`${origin}/api/clubs/no-such-club/?format=api`)
            expect(res?.status()).toBe(404)
            expect(res?.headers()['content-type']).toContain('text/html')
            expect(await shownStatus(page)).toBe('404')
            expect(await page.title()).toBe('404 Not Found – Club Instance – Club Directory')
            expect(await responseText(page)).toContain('"detail": "Not found."')
            expect(await page.locator('form.api-form').count()).toBe(0)
            // Only the token can be entered: perhaps it is a pending club of the reader's.
            expect(await page.locator('#token').isVisible()).toBe(true)
            await expectAccessible(page)
          },
          [notFound],
        )
      },
      TIMEOUT,
    )

    it(
      'shows a club name with markup as text, on its page and in the list',
      async () => {
        const name = '<img src=x onerror="window.__pwned=1">Markup Club'
        const created = await api('/api/clubs/', { method: 'POST', body: JSON.stringify({ name }) })
        expect(created.status).toBe(201)
        const { code } = (await created.json()) as { code: string }
        const approved = await api(`/api/clubs/${code}/`, {
          method: 'PATCH',
          body: JSON.stringify({ approved: true }),
        })
        expect(approved.status).toBe(200)

        for (const path of [`/api/clubs/${code}/?format=api`, '/api/clubs/?search=markup&format=api']) {
          await withPage(async (page) => {
            const res = await page.goto(`${origin}${path}`)
            expect(res?.status()).toBe(200)
            await page.getByText('<img src=x', { exact: false }).first().waitFor({ state: 'visible' })
            expect(await responseText(page)).toContain(JSON.stringify(name).slice(1, -1))
            expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined()
            expect(await page.locator('img[src="x"]').count()).toBe(0)
            expect(await page.locator('img').count()).toBe(0)
          })
        }
      },
      TIMEOUT,
    )
  })

  describe('Swagger UI', () => {
    // Trying out operations (list, create with Authorize) is test/swagger-browser.test.ts's.
    it(
      'renders the API operations from local assets',
      async () => {
        await withPage(async (page) => {
          const res = await page.goto(`${origin}/swagger`)
          expect(res?.status()).toBe(200)
          await page.locator('.opblock').first().waitFor({ state: 'visible' })
          expect(await page.locator('.opblock').count()).toBeGreaterThan(5)
          const listClubs = page.locator('.opblock-get', { has: page.locator('[data-path="/api/clubs/"]') }).first()
          await listClubs.waitFor({ state: 'visible' })
          // Swagger UI puts zero-width spaces before each "/" so long paths can wrap.
          const path = await listClubs.locator('.opblock-summary-path').textContent()
          expect(path?.replace(/\u200b/g, '')).toBe('/api/clubs/')
          await listClubs.getByText('List clubs', { exact: true }).waitFor({ state: 'visible' })
          await page.getByText('Club Directory API', { exact: false }).first().waitFor({ state: 'visible' })
          await expectAccessible(page, [SWAGGER_UI])
          await shot(page, 'swagger.png')
        })
      },
      TIMEOUT,
    )

    // Swagger UI leaves some things out when its document's URL contains 127.0.0.1 or localhost (its
    // "online validator badge", an image from validator.swagger.io, is one), so the page is also opened
    // under a public host name, answered by the service through request interception.
    it(
      'renders under a public host name without contacting another host',
      async () => {
        const host = 'clubs.example.test'
        await withPage(
          async (page) => {
            // The browser asks for http://clubs.example.test/...; the test answers from the service.
            // Anything else is refused, so nothing leaves this machine (and the request is still recorded).
            await page.context().route('**/*', async (route) => {
              const url = new URL(route.request().url())
              if (url.host !== host) return route.abort('blockedbyclient')
              const response = await route.fetch({ url: `${base}${url.pathname}${url.search}` })
              return route.fulfill({ response })
            })
            const res = await page.goto(`http://${host}/swagger`)
            expect(res?.status()).toBe(200)
            await page.locator('.opblock').first().waitFor({ state: 'visible' })
            await page.getByText('List clubs', { exact: true }).first().waitFor({ state: 'visible' })
            // Give the badge, if any, time to be rendered and requested.
            await page.waitForLoadState('networkidle')
            expect(await page.locator('img[src*="validator.swagger.io"]').count()).toBe(0)
          },
          [],
          host,
        )
      },
      TIMEOUT,
    )
  })
})
