import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Subprocess } from 'bun'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { tempDir } from '../harness/app'
import { freePort, sleep, spawnService, waitForHealth } from '../harness/service'

// End-to-end checks of the browsable view (`?format=api`) and the Swagger UI (`/swagger`) in a real
// Chromium, against the real service (`bun src/index.ts`) on a free port. Every page the tests open
// is watched: it may only load from the service itself (no CDN) and may log no error, throw nothing,
// and trip no Content-Security-Policy rule.
//
// CI installs Chromium at /usr/bin/chromium. Without it the suite fails (not skips) unless
// SKIP_BROWSER_TESTS=1 is set.

// The README's images are refreshed by `npm run screenshots`, which points this at docs/; a test
// run writes them to a folder of its own, so it never changes tracked files.
const SHOTS = process.env.CLUBS_SCREENSHOTS_DIR ?? tempDir('clubs-screenshots-')
const CHROMIUM = '/usr/bin/chromium'
const TOKEN = 'browser-admin-token'
const TIMEOUT = 30_000
const VIEWPORT = { width: 1280, height: 900 }
const SKIP = process.env.SKIP_BROWSER_TESTS === '1'

/** What one page did that it should not have: requests elsewhere, console errors, uncaught errors. */
interface Watched {
  page: Page
  /** The one host (with port) the page may load from. */
  host: string
  requests: string[]
  problems: string[]
}

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

  /** A fresh page (its own context, so no shared sessionStorage) that records what it does. */
  async function openPage(host = `127.0.0.1:${port}`): Promise<Watched> {
    const context = await browser!.newContext({ viewport: VIEWPORT })
    // Reported on the console too, but this names the directive whatever Chromium's wording.
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) =>
        console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI}`),
      )
    })
    const page = await context.newPage()
    const watched: Watched = { page, host, requests: [], problems: [] }
    page.on('request', (request) => watched.requests.push(request.url()))
    page.on('console', (message) => {
      if (message.type() !== 'error') return
      const at = message.location().url
      // Chromium asks for /favicon.ico on its own (the pages name no icon); its 404 is not the page's error.
      if (at && new URL(at).pathname === '/favicon.ico' && / 404 /.test(message.text())) return
      watched.problems.push(`console error: ${message.text()}${at ? ` (${at})` : ''}`)
    })
    page.on('pageerror', (error) => watched.problems.push(`page error: ${error.message}`))
    return watched
  }

  /** The requests the page made to any host but its own. */
  const offHost = (watched: Watched) =>
    watched.requests.filter((url) => {
      const { protocol, host } = new URL(url)
      return protocol !== 'data:' && protocol !== 'blob:' && host !== watched.host
    })

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
  async function withPage(body: (page: Page) => Promise<void>, allowed: RegExp[] = [], host?: string) {
    const watched = await openPage(host)
    try {
      await body(watched.page)
    } catch (error) {
      await watched.page.context().close()
      const message = error instanceof Error ? error.message : String(error)
      throw new Error(`${message}\n(page problems: ${JSON.stringify(watched.problems)})`, { cause: error })
    }
    await finish(watched, allowed)
  }

  const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, name), fullPage: false })

  /** The text of the rendered response (`<pre class="response">`), links included as their text. */
  const responseText = async (page: Page) => (await page.locator('pre.response').textContent()) ?? ''

  /** Fills the page's request form and sends it; returns the shown result once it has arrived. */
  async function send(page: Page, method: string, body: string | null) {
    const form = page.locator('form.api-form')
    await form.locator('input[name="token"]').fill(TOKEN)
    await form.locator('select[name="method"]').selectOption(method)
    if (body !== null) await form.locator('textarea[name="body"]').fill(body)
    await form.getByRole('button', { name: 'Send' }).click()
    const result = page.locator('.result')
    await result.and(page.locator('[data-status]')).waitFor({ state: 'visible' })
    return result
  }

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium is not installed at ${CHROMIUM}, so the browser tests cannot run. ` +
          'Install it (Debian: apt-get install chromium) or set SKIP_BROWSER_TESTS=1 to skip them.',
      )
    }
    mkdirSync(SHOTS, { recursive: true })
    dir = mkdtempSync(join(tmpdir(), 'clubs-browser-'))
    port = freePort()
    base = origin = `http://127.0.0.1:${port}`
    proc = spawnService(
      port,
      {
        CLUBS_DATA_FILE: join(dir, 'db.json'),
        CLUBS_ADMIN_TOKEN: TOKEN,
        CLUBS_LOG_LEVEL: 'warn',
      },
      {
        stdout: 'ignore',
        stderr: 'pipe',
      },
    )
    const launching = chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    })
    const [launched] = await Promise.all([launching, waitForHealth(base, proc)])
    browser = launched
  }, TIMEOUT)

  afterAll(async () => {
    await browser?.close().catch(() => {})
    if (proc && proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM')
      const exited = await Promise.race([proc.exited.then(() => true), sleep(5_000).then(() => false)])
      if (!exited) proc.kill('SIGKILL')
    }
    if (dir) rmSync(dir, { recursive: true, force: true })
  }, TIMEOUT)

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
        expect(await watched.page.evaluate(() => (window as unknown as { __inline?: number }).__inline)).toBeUndefined()
      } finally {
        await watched.page.context().close()
      }
    },
    TIMEOUT,
  )

  it(
    'lists the sample clubs, and the "name ↑" link shows them ordered by name',
    async () => {
      await withPage(async (page) => {
        const res = await page.goto(`${origin}/api/clubs/?format=api`)
        expect(res?.status()).toBe(200)
        await page.getByRole('heading', { level: 1, name: 'Club List' }).waitFor({ state: 'visible' })
        await page.getByText('Penn Chess Society').first().waitFor({ state: 'visible' })
        expect(await page.locator('pre.response b').first().textContent()).toBe('HTTP 200 OK')
        await shot(page, 'list-view.png')

        await page.getByRole('link', { name: 'name ↑', exact: true }).click()
        await page.waitForURL((url) => url.searchParams.get('ordering') === 'name')
        expect(new URL(page.url()).searchParams.get('format')).toBe('api')
        await page.getByRole('heading', { level: 1, name: 'Club List' }).waitFor({ state: 'visible' })
        // The chosen ordering is shown as the current one, no longer as a link.
        expect(await page.locator('nav.ordering strong').textContent()).toBe('name ↑')
        expect(await page.getByRole('link', { name: 'name ↑', exact: true }).count()).toBe(0)
        // The page shows exactly what a program gets for the same URL.
        const ordered = await (await api('/api/clubs/?ordering=name', {}, null)).json()
        const names = (ordered as { name: string }[]).map((club) => club.name)
        expect(names).toContain('Penn Chess Society')
        expect(await responseText(page)).toContain(JSON.stringify(ordered, null, 2))
      })
    },
    TIMEOUT,
  )

  it(
    'creates a club through the form on the list page, and its link opens the club once approved',
    async () => {
      await withPage(async (page) => {
        await page.goto(`${origin}/api/clubs/?format=api`)
        const result = await send(page, 'POST', '{"name": "Browser Made Club"}')
        const text = (await result.textContent()) ?? ''
        expect(text).toStartWith('HTTP 201')
        expect(await result.getAttribute('data-status')).toBe('201')
        expect(text).toContain(`location: ${origin}/api/clubs/browser-made-club/`)
        expect(text).toContain('"name": "Browser Made Club"')
        expect(text).toContain('"code": "browser-made-club"')
        // The club is real: the API has it (pending approval, so only the admin sees it).
        expect((await api('/api/clubs/browser-made-club/')).status).toBe(200)

        const open = result.getByRole('link', { name: 'Open the new club' })
        expect(await open.getAttribute('href')).toBe('/api/clubs/browser-made-club/?format=api')
        // A browser's navigation carries no token, so the page can show the club once it is public.
        const approved = await api('/api/clubs/browser-made-club/', {
          method: 'PATCH',
          body: JSON.stringify({ approved: true }),
        })
        expect(approved.status).toBe(200)
        await open.click()
        await page.waitForURL(`${origin}/api/clubs/browser-made-club/?format=api`)
        await page.getByRole('heading', { level: 1, name: 'Club Instance' }).waitFor({ state: 'visible' })
        expect(await page.locator('pre.response').getAttribute('data-status')).toBe('200')
        await page.getByText('Browser Made Club').first().waitFor({ state: 'visible' })
        expect(await responseText(page)).toContain('"code": "browser-made-club"')
      })
    },
    TIMEOUT,
  )

  it(
    'opens a new pending club from its link, and GET with the token shows it to its owner',
    async () => {
      await withPage(
        async (page) => {
          await page.goto(`${origin}/api/clubs/?format=api`)
          const result = await send(page, 'POST', '{"name": "Browser Linked Club"}')
          expect(await result.getAttribute('data-status')).toBe('201')
          expect(await result.textContent()).toContain('awaits approval')
          await result.getByRole('link', { name: 'Open the new club' }).click()
          await page.waitForURL(`${origin}/api/clubs/browser-linked-club/?format=api`)
          // A link sends no token: anonymously, a pending club is not found ...
          expect(await page.locator('pre.response').getAttribute('data-status')).toBe('404')
          // ... and the page's own form fetches it with the token.
          const mine = await send(page, 'GET', null)
          expect(await mine.getAttribute('data-status')).toBe('200')
          expect(await mine.textContent()).toContain('"name": "Browser Linked Club"')
        },
        [/status of 404/],
      )
    },
    TIMEOUT,
  )

  it(
    'changes a club with PATCH from its page, and a reload shows the change',
    async () => {
      await withPage(async (page) => {
        const res = await page.goto(`${origin}/api/clubs/penn-chess-society/?format=api`)
        expect(res?.status()).toBe(200)
        await page.getByRole('heading', { level: 1, name: 'Club Instance' }).waitFor({ state: 'visible' })
        await page.getByText('Penn Chess Society').first().waitFor({ state: 'visible' })
        await shot(page, 'club-view.png')

        const result = await send(page, 'PATCH', '{"subtitle": "Changed in a browser"}')
        const text = (await result.textContent()) ?? ''
        expect(text).toStartWith('HTTP 200')
        expect(text).toContain('"subtitle": "Changed in a browser"')

        await page.reload()
        await page.getByRole('heading', { level: 1, name: 'Club Instance' }).waitFor({ state: 'visible' })
        expect(await responseText(page)).toContain('"subtitle": "Changed in a browser"')
        // The form's PUT/PATCH template starts from the changed club too.
        expect(await page.locator('textarea[name="body"]').inputValue()).toContain('"subtitle": "Changed in a browser"')
      })
    },
    TIMEOUT,
  )

  it(
    'renders a 404 for a club that does not exist',
    async () => {
      // Chromium reports a 404 document on the console; that one report is expected here.
      const notFound =
        /Failed to load resource: the server responded with a status of 404 .*\/api\/clubs\/no-such-club\//
      await withPage(
        async (page) => {
          const res = await page.goto(`${origin}/api/clubs/no-such-club/?format=api`)
          expect(res?.status()).toBe(404)
          expect(res?.headers()['content-type']).toContain('text/html')
          const response = page.locator('pre.response')
          await response.waitFor({ state: 'visible' })
          expect(await response.getAttribute('data-status')).toBe('404')
          await page.getByText('HTTP 404').first().waitFor({ state: 'visible' })
          await page.getByText('Not found.').first().waitFor({ state: 'visible' })
          expect(await responseText(page)).toContain('"detail": "Not found."')
        },
        [notFound],
      )
    },
    TIMEOUT,
  )

  it(
    'renders the API operations in Swagger UI from local assets',
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
        await shot(page, 'swagger.png')
      })
    },
    TIMEOUT,
  )

  // Swagger UI leaves some things out when its document's URL contains 127.0.0.1 or localhost (its
  // "online validator badge", an image from validator.swagger.io, is one), so the page is also opened
  // under a public host name, answered by the service through request interception.
  it(
    'renders Swagger UI under a public host name without contacting another host',
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

      for (const path of [`/api/clubs/${code}/?format=api`, '/api/clubs/?format=api']) {
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
