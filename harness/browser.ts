import { afterAll, beforeAll, expect } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type Locator, type Page } from 'playwright-core'
import { tempDir } from './app'
import { freePort, ROOT, spawnService, stopService, waitForHealth } from './service'

// Driving Debian's Chromium for the browser tests: every page opened here is watched, so a test
// can tell that it loaded only from the service, logged no error, threw nothing and tripped no
// Content-Security-Policy rule; and it can be audited for accessibility with axe-core.

export const CHROMIUM = '/usr/bin/chromium'
export const VIEWPORT = { width: 1280, height: 900 }

export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}, so the browser tests cannot run. ` +
        'Install it (Debian: apt-get install chromium) or set SKIP_BROWSER_TESTS=1 to skip them.',
    )
  return chromium.launch({
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
}

/**
 * The service on a free port (or `port`) over a data file in `dir` with the admin `token` and
 * `env`, and a Chromium to drive it.
 */
export async function serviceAndBrowser(
  dir: string,
  token: string,
  { port = freePort(), env = {} }: { port?: number; env?: Record<string, string> } = {},
) {
  const origin = `http://127.0.0.1:${port}`
  const proc = spawnService(
    port,
    { CLUBS_DATA_FILE: join(dir, 'db.json'), CLUBS_ADMIN_TOKEN: token, CLUBS_LOG_LEVEL: 'warn', ...env },
    { stdout: 'ignore', stderr: 'pipe' },
  )
  const [browser] = await Promise.all([launchChromium(), waitForHealth(origin, proc)])
  return { port, origin, proc, browser }
}

/** The service and the Chromium that one suite of browser tests drives. */
export interface BrowserSuite {
  readonly origin: string
  readonly browser: Browser
}

/**
 * Starts the service (a data file in a new folder named `prefix`…, the admin `token`, `env`) and a
 * Chromium before the suite's tests, and stops both after them; the folder, a tempDir, goes when
 * the run ends. Called in a suite before its own beforeAll, whose setup then finds them started.
 */
export function browserSuite(
  token: string,
  prefix: string,
  { env = {}, timeout = 60_000 }: { env?: Record<string, string>; timeout?: number } = {},
): BrowserSuite {
  const dir = tempDir(prefix)
  let started: Awaited<ReturnType<typeof serviceAndBrowser>> | null = null
  const running = () => {
    if (!started) throw new Error('browserSuite: the service and Chromium are not started (outside the suite?)')
    return started
  }
  beforeAll(async () => {
    started = await serviceAndBrowser(dir, token, { env })
  }, timeout)
  afterAll(async () => {
    await started?.browser.close().catch(() => {})
    await stopService(started?.proc)
  }, timeout)
  return {
    get origin() {
      return running().origin
    },
    get browser() {
      return running().browser
    },
  }
}

/** What one page did that it should not have: requests elsewhere, console errors, uncaught errors. */
export interface Watched {
  page: Page
  /** The one host (with port) the page may load from. */
  host: string
  requests: string[]
  problems: string[]
}

/** How a page's script names an address it loaded, on the console. */
const LOADED = 'clubs-test-loaded: '

/** A fresh page (its own context, so no shared sessionStorage) that records what it does; `viewport` for a narrow screen. */
export async function watchPage(browser: Browser, host: string, viewport = VIEWPORT): Promise<Watched> {
  const context = await browser.newContext({ viewport })
  // The page tells what it loads, as the browser's own timings list it, and what the CSP stopped:
  // listening to Playwright's request events instead raced its driver under load ("Object with
  // guid request@… was not bound in the connection", microsoft/playwright#22210).
  await context.addInitScript((mark: string) => {
    console.debug(mark + location.href)
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) console.debug(mark + entry.name)
    }).observe({ type: 'resource', buffered: true })
    // Reported on the console too, but this names the directive whatever Chromium's wording.
    document.addEventListener('securitypolicyviolation', (event) => {
      if (/^[a-z]+:/.test(event.blockedURI)) console.debug(mark + event.blockedURI)
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI}`)
    })
  }, LOADED)
  const page = await context.newPage()
  const watched: Watched = { page, host, requests: [], problems: [] }
  page.on('console', (message) => {
    if (message.type() === 'debug' && message.text().startsWith(LOADED))
      return void watched.requests.push(message.text().slice(LOADED.length))
    if (message.type() !== 'error') return
    // A 404 for the icon counts too: the site serves one (docs/reference.md §22).
    const at = message.location().url
    watched.problems.push(`console error: ${message.text()}${at ? ` (${at})` : ''}`)
  })
  page.on('pageerror', (error) => watched.problems.push(`page error: ${error.message}`))
  return watched
}

/** The requests the page made to any host but its own. */
export const offHost = (watched: Watched) => [
  // Each once: a load the CSP stopped is both in the timings and in its violation.
  ...new Set(
    watched.requests.filter((url) => {
      const { protocol, host } = new URL(url)
      return protocol !== 'data:' && protocol !== 'blob:' && host !== watched.host
    }),
  ),
]

const AXE_SOURCE = readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8')

/**
 * axe-core's violations on the page, one line each (rule, impact, where). axe is evaluated through
 * the DevTools protocol, which the page's CSP does not govern: no <script> is added, so the page is
 * audited under its own strict policy, and a CSP report during the audit would still be noticed.
 * `exclude`: selectors of markup that is not ours (Swagger UI's).
 */
export async function axeViolations(page: Page, exclude: readonly string[] = []): Promise<string[]> {
  await page.evaluate(AXE_SOURCE)
  return page.evaluate(async (exclude) => {
    type Result = { id: string; impact: string; help: string; nodes: { target: string[] }[] }
    const axe = (window as unknown as { axe: { run(context: unknown): Promise<{ violations: Result[] }> } }).axe
    const { violations } = await axe.run(exclude.length ? { exclude: exclude.map((selector) => [selector]) } : document)
    return violations.map(
      ({ id, impact, help, nodes }) =>
        `${id} (${impact}): ${help} at ${nodes.map((n) => n.target.join(' ')).join(', ')}`,
    )
  }, exclude)
}

/**
 * Moves the focus with the Tab key, as a person on a keyboard does, until `target` has it; fails
 * after `most` presses. Answers whether the focused element shows a visible focus ring.
 */
export async function tabTo(page: Page, target: Locator, most = 80): Promise<{ visibleFocus: boolean }> {
  const handle = await target.elementHandle()
  if (!handle) throw new Error(`tabTo: nothing matches ${target}`)
  for (let i = 0; i < most; i++) {
    await page.keyboard.press('Tab')
    if (await handle.evaluate((element) => element === document.activeElement)) {
      const visibleFocus = await handle.evaluate((element) => {
        const style = getComputedStyle(element)
        return (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none'
      })
      return { visibleFocus }
    }
  }
  throw new Error(`tabTo: ${most} presses of Tab never reached ${target}`)
}

/** How far the page scrolls sideways at its viewport's width, in CSS pixels (0: it does not). */
export const sidewaysScroll = (page: Page) =>
  page.evaluate(() => Math.max(0, document.documentElement.scrollWidth - window.innerWidth))

/** The narrow screen the site is checked at (a phone held upright). */
export const NARROW = { width: 375, height: 800 }

/**
 * The visible checkboxes and radio buttons whose label text does not sit beside them (docs/reference.md
 * §22): on the same line, at most `gap` CSS pixels away. One line each: the label's text, and where
 * the two are.
 */
export const checkboxesApart = (page: Page, gap = 16) =>
  page.evaluate((gap) => {
    const apart: string[] = []
    for (const box of document.querySelectorAll<HTMLInputElement>('input[type=checkbox], input[type=radio]')) {
      const element = box.getBoundingClientRect()
      if (!element.width || !element.height) continue
      // The box as drawn: a square centred in the element, which a stretched element leaves far from its edges.
      const side = Math.min(element.width, element.height)
      const middle = element.left + element.width / 2
      const at = { left: middle - side / 2, right: middle + side / 2, top: element.top, bottom: element.bottom }
      const label = box.labels?.[0]
      if (!label) {
        apart.push(`${box.name}: no label`)
        continue
      }
      // The first line of the label's own text: where a reader looks for it.
      const range = document.createRange()
      range.selectNodeContents(label)
      const text = [...range.getClientRects()].find(
        (rect) => rect.width > 0 && (rect.right <= at.left || rect.left >= at.right),
      )
      const near =
        text &&
        text.top < at.bottom &&
        text.bottom > at.top &&
        Math.min(Math.abs(text.left - at.right), Math.abs(at.left - text.right)) <= gap
      if (!near)
        apart.push(
          `“${label.textContent?.trim()}”: box at ${Math.round(at.left)},${Math.round(at.top)}, text at ${
            text ? `${Math.round(text.left)},${Math.round(text.top)}` : 'nowhere beside it'
          }`,
        )
    }
    return apart
  }, gap)

/**
 * Every page of a journey is checked the same way before the person acts on it: no axe-core
 * violation, no sideways scroll, every checkbox beside its label, nothing logged; `name` says
 * which page failed.
 */
export async function checkPage(page: Page, problems: string[], name: string) {
  expect([name, await axeViolations(page)]).toEqual([name, []])
  expect([name, await sidewaysScroll(page)]).toEqual([name, 0])
  expect([name, await checkboxesApart(page)]).toEqual([name, []])
  expect([name, problems]).toEqual([name, []])
}

/** Presses Enter and waits for the page it leads to. */
export async function enter(page: Page) {
  await Promise.all([page.waitForEvent('framenavigated'), page.keyboard.press('Enter')])
  await page.waitForLoadState('load')
}

/** Tabs to `target` and presses Enter, checking that the focus could be seen on the way. */
export async function press(page: Page, target: Locator) {
  const { visibleFocus } = await tabTo(page, target)
  expect(visibleFocus).toBe(true)
  await enter(page)
}

/** Signs in on the site at `origin` with a service token, as a person does: the field by its label, the button by its name. */
export async function signIn(page: Page, origin: string, token: string) {
  await page.goto(`${origin}/sign-in`)
  await page.getByLabel('Your token').fill(token)
  await Promise.all([page.waitForURL(`${origin}/`), page.getByRole('button', { name: 'Sign in' }).click()])
}
