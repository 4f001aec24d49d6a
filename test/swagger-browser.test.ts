import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Subprocess } from 'bun'
import type { Browser, Locator, Page } from 'playwright-core'
import { tempDir } from '../harness/app'
import { axeViolations, offHost, serviceAndBrowser, watchPage } from '../harness/browser'
import { stopService } from '../harness/service'

// Swagger UI (/swagger) in a real Chromium against the real service: what a newcomer reads there
// (padlocks only where a token is needed, true/false filters as choices, examples that read well)
// and "Try it out" on the list and on create. Each page is watched (harness/browser.ts: nothing
// from another host, no console error, no CSP violation) and audited with axe-core.
//
// CI installs Chromium at /usr/bin/chromium. Without it the suite fails (not skips) unless
// SKIP_BROWSER_TESTS=1 is set.

const TOKEN = 'swagger-admin-token'
const TIMEOUT = 60_000
/** Swagger UI's own markup, left out of the accessibility audit: it is the package's, not ours. */
const SWAGGER_UI = '#swagger-ui'
const suite = process.env.SKIP_BROWSER_TESTS === '1' ? describe.skip : describe

type Json = any

suite('Swagger UI in a real browser', () => {
  let proc: Subprocess | undefined
  let browser: Browser | undefined
  let dir: string | undefined
  let origin = ''
  let doc: Json

  beforeAll(async () => {
    dir = tempDir('clubs-swagger-')
    ;({ origin, proc, browser } = await serviceAndBrowser(dir, TOKEN))
    doc = await (await fetch(`${origin}/swagger/json`)).json()
  }, TIMEOUT)

  afterAll(async () => {
    await browser?.close().catch(() => {})
    await stopService(proc)
  }, TIMEOUT)

  /** Opens /swagger on a watched page, runs `body`, audits the page, and checks what it did (`allowed`: expected problems). */
  async function onSwagger(body: (page: Page) => Promise<void>, allowed: RegExp[] = []) {
    const watched = await watchPage(browser!, new URL(origin).host)
    const { page } = watched
    try {
      expect((await page.goto(`${origin}/swagger`))?.status()).toBe(200)
      await page.locator('.opblock').first().waitFor({ state: 'visible' })
      await body(page)
      expect(await axeViolations(page, [SWAGGER_UI])).toEqual([])
      expect(offHost(watched)).toEqual([])
      expect(watched.problems.filter((problem) => !allowed.some((pattern) => pattern.test(problem)))).toEqual([])
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      throw new Error(`${message}\n(page problems: ${JSON.stringify(watched.problems)})`, { cause: error })
    } finally {
      await page.context().close()
    }
  }

  /** The operation's block, e.g. operation(page, 'get', '/api/clubs/'), by its operationId. */
  const operation = (page: Page, method: string, path: string): Locator => {
    const { tags, operationId } = doc.paths[path][method]
    return page.locator(`#operations-${tags[0]}-${operationId}`)
  }

  /** Scrolls down half a screen and lets the list redraw; answers whether the page was at its bottom already. */
  async function scrollDown(page: Page): Promise<boolean> {
    const atBottom = await page.evaluate(() => {
      const bottom = window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1
      window.scrollBy(0, window.innerHeight / 2)
      return bottom
    })
    // The list redraws after the scroll event, a few frames later.
    await page.waitForTimeout(150)
    return atBottom
  }

  /**
   * Every operation block's padlock count, by block id. Past 150 tags and operations Swagger UI
   * draws only the blocks in view, so the page is read half a screen at a time, top to bottom.
   */
  async function padlocksOf(page: Page): Promise<Map<string, number>> {
    const seen = new Map<string, number>()
    do {
      const shown = await page.$$eval('.opblock', (blocks) =>
        blocks.map(
          (block) => [block.id, block.querySelectorAll('.opblock-summary .authorization__btn').length] as const,
        ),
      )
      // Swagger UI escapes an id's dots (calendar.ics) as for a CSS selector.
      for (const [id, count] of shown) seen.set(id.replace(/\\(.)/g, '$1'), count)
    } while (!(await scrollDown(page)))
    return seen
  }

  /** Brings an operation's block into view, scrolling down from the top until the list draws it. */
  async function reveal(block: Locator) {
    const page = block.page()
    await page.evaluate(() => window.scrollTo(0, 0))
    while (!(await block.count()) && !(await scrollDown(page)));
    await block.scrollIntoViewIfNeeded()
  }

  /** Sets the bearer token in Swagger UI's "Authorize" dialog. */
  async function authorize(page: Page, token: string) {
    await page.locator('.auth-wrapper .authorize').click()
    const dialog = page.locator('.modal-ux')
    await dialog.locator('input').first().fill(token)
    await dialog.locator('button.modal-btn.authorize').click()
    await dialog.locator('button.modal-btn.btn-done').click()
  }

  /** Expands an operation's block (one named in the URL's #fragment starts expanded). */
  async function open(block: Locator) {
    await reveal(block)
    await block.locator('.opblock-summary').waitFor({ state: 'visible' })
    if (!((await block.getAttribute('class')) ?? '').includes('is-open'))
      await block.locator('.opblock-summary-control').click()
  }

  /** Opens an operation, presses "Try it out", lets `fill` set it up, executes it; answers the shown response. */
  async function tryOut(block: Locator, fill: (block: Locator) => Promise<unknown> = async () => {}) {
    await open(block)
    await block.locator('.try-out__btn').click()
    await fill(block)
    await block.locator('.execute').click()
    const live = block.locator('.live-responses-table .response').first()
    await live.waitFor({ state: 'visible' })
    return {
      status: Number(await live.locator('.response-col_status').textContent()),
      text: (await live.innerText()).toLowerCase(),
      body: JSON.parse((await live.locator('.response-col_description pre.microlight').first().textContent()) ?? ''),
      curl: (await block.locator('.curl-command').textContent()) ?? '',
    }
  }

  it(
    'shows a padlock only where a token is needed, true/false filters as choices, and examples that read well',
    async () => {
      await onSwagger(async (page) => {
        const padlocks = await padlocksOf(page)
        for (const [path, item] of Object.entries(doc.paths) as [string, Json][]) {
          for (const method of Object.keys(item)) {
            const { security, tags, operationId } = item[method]
            const needsToken =
              security.length > 0 && security.every((requirement: Json) => Object.keys(requirement).length)
            const shown = padlocks.get(`operations-${tags[0]}-${operationId}`)
            expect(`${method} ${path} ${shown}`).toBe(`${method} ${path} ${needsToken ? 1 : 0}`)
          }
        }
        const list = operation(page, 'get', '/api/clubs/')
        await open(list)
        await list.locator('.try-out__btn').click()
        for (const name of ['accepting_members', 'approved', 'active']) {
          const row = list.locator(`tr[data-param-name="${name}"]`)
          expect(await row.locator('.parameter__type').textContent()).toBe('boolean')
          expect(await row.locator('select option').allTextContents()).toEqual(['--', 'true', 'false'])
        }
        // The example of a club answer: codes from the examples, not made up from their pattern.
        const retrieve = operation(page, 'get', '/api/clubs/{code}/')
        await open(retrieve)
        const example =
          (await retrieve.locator('.responses-table .example, .responses-table pre').first().textContent()) ?? ''
        expect(example).toContain('"code": "penn-chess-society"')
        expect(example.split('\n').filter((line) => line.length > 120)).toEqual([])
      })
    },
    TIMEOUT,
  )

  it(
    'tries out the list: anonymously, then with a token, which sees the approval queue',
    async () => {
      await onSwagger(async (page) => {
        const anonymous = await tryOut(operation(page, 'get', '/api/clubs/'), async (block) => {
          await block.locator('tr[data-param-name="accepting_members"] select').selectOption('true')
          await block.locator('tr[data-param-name="page"] input').fill('1')
        })
        expect(anonymous.status).toBe(200)
        expect(anonymous.curl).toContain('accepting_members=true')
        expect(anonymous.curl).not.toContain('Authorization')
        expect(anonymous.body.results.length).toBeGreaterThan(0)
        expect(anonymous.body.results.every((club: Json) => club.accepting_members === true)).toBe(true)
        expect(anonymous.text).toContain('x-total-count')

        await page.goto(`${origin}/swagger`)
        await page.locator('.opblock').first().waitFor({ state: 'visible' })
        await authorize(page, TOKEN)
        const admin = await tryOut(operation(page, 'get', '/api/clubs/'), (block) =>
          block.locator('tr[data-param-name="approved"] select').selectOption('false'),
        )
        expect(admin.status).toBe(200)
        expect(admin.curl).toContain(`Authorization: Bearer ${TOKEN}`)
        expect(admin.body.length).toBeGreaterThan(0)
        expect(admin.body.every((club: Json) => club.approved === false)).toBe(true)
      })
    },
    TIMEOUT,
  )

  it(
    'tries out create with a token: 201 with the new club and its Location; without one, 401',
    async () => {
      await onSwagger(
        async (page) => {
          const refused = await tryOut(operation(page, 'post', '/api/clubs/'))
          expect(refused.status).toBe(401)
          expect(refused.text).toContain('www-authenticate')

          await page.goto(`${origin}/swagger`)
          await page.locator('.opblock').first().waitFor({ state: 'visible' })
          await authorize(page, TOKEN)
          // The body Swagger UI starts from is the operation's example.
          const created = await tryOut(operation(page, 'post', '/api/clubs/'))
          expect(created.status).toBe(201)
          expect(created.body).toMatchObject({ name: 'Go Club', code: 'go-club', approved: false })
          expect(created.text).toContain(`location: ${origin}/api/clubs/go-club/`)
        },
        [/status of 401 \(Unauthorized\) \(http:\/\/[^)]+\/api\/clubs\/\)/],
      )
    },
    TIMEOUT,
  )
})
