import { describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import jsQR from 'jsqr'
import sharp from 'sharp'
import { tempDir } from '../harness/app'
import { browserSuite, checkPage, NARROW, offHost, watchPage } from '../harness/browser'

// A club's poster for the club fair (docs/reference.md §23) in Chromium: reached from the club's page,
// clean for axe-core at 1280 and 375 px, printed to PDF on exactly one A4 and one Letter sheet,
// and its QR code, read by jsQR from the pixels of a print-media screenshot, is the club's URL.
// `npm run screenshots` keeps the picture the campus guide shows (docs/screenshots/site-poster.png).

const SHOTS = process.env.CLUBS_SCREENSHOTS_DIR ?? tempDir('clubs-poster-screenshots-')
const TOKEN = 'site-poster-admin-token'
const TIMEOUT = 90_000
const CHESS = 'penn-chess-society'
const suite = process.env.SKIP_BROWSER_TESTS === '1' ? describe.skip : describe
/** An A4 sheet at 96 px an inch (210 × 297 mm): the print screenshot shows the page as printed. */
const A4_PIXELS = { width: 794, height: 1123 }

/** How many pages a PDF has: its page objects (`/Type /Page`, not the `/Type /Pages` tree above them). */
const pdfPages = (pdf: Uint8Array) =>
  Buffer.from(pdf)
    .toString('latin1')
    .match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length

/** What the QR code in a PNG says, or null when jsQR finds none. */
async function decodePng(png: Uint8Array): Promise<string | null> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height)?.data ?? null
}

suite("a club's poster in Chromium", () => {
  const site = browserSuite(TOKEN, 'clubs-poster-', {
    env: { CLUBS_SITE_TITLE: 'Example University' },
    timeout: TIMEOUT,
  })

  /** The seed's chess club, with the most meetings a club may have, each with a place and a note. */
  async function tenMeetings() {
    const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']
    const meetings = Array.from({ length: 10 }, (_, i) => ({
      day: days[i % 7],
      start: `${String(8 + i).padStart(2, '0')}:00`,
      end: `${String(9 + i).padStart(2, '0')}:30`,
      location: `Houston Hall, room ${200 + i}`,
      note: i % 2 ? 'Blitz and puzzles; beginners welcome, boards provided' : '',
    }))
    const res = await fetch(`${site.origin}/api/clubs/${CHESS}/`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ meetings }),
    })
    expect(res.status).toBe(200)
  }

  it(
    'is linked from the club page, prints on one A4 and one Letter page, and its QR code reads as the club page',
    async () => {
      await tenMeetings()
      const watched = await watchPage(site.browser, new URL(site.origin).host)
      const { page } = watched
      await page.goto(`${site.origin}/clubs/${CHESS}`)
      await Promise.all([
        page.waitForURL(/\/poster$/),
        page.getByRole('link', { name: 'Poster for the club fair' }).click(),
      ])
      await page.waitForLoadState('load')
      await checkPage(page, watched.problems, 'poster')
      expect(offHost(watched)).toEqual([])
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Penn Chess Society')
      expect(await page.locator('.poster .meetings li').count()).toBe(10)
      // The script shows the Print button; print media hides it, with the site's frame.
      const print = page.getByRole('button', { name: 'Print' })
      expect(await print.isVisible()).toBe(true)
      // It opens the browser's print dialog, which a headless browser has none of: counted instead.
      await page.evaluate(() => {
        const counted = window as unknown as { printed: number }
        counted.printed = 0
        window.print = () => void counted.printed++
      })
      await print.click()
      expect(await page.evaluate(() => (window as unknown as { printed: number }).printed)).toBe(1)
      const url = `${site.origin}/clubs/${CHESS}`
      expect(await page.getByRole('img', { name: `QR code of ${url}` }).isVisible()).toBe(true)

      for (const format of ['A4', 'Letter'] as const)
        expect([format, pdfPages(await page.pdf({ format, printBackground: true }))]).toEqual([format, 1])

      await page.setViewportSize(A4_PIXELS)
      await page.emulateMedia({ media: 'print' })
      expect(await print.isVisible()).toBe(false)
      expect(await page.locator('.masthead').isVisible()).toBe(false)
      // Nothing of the sheet is cut off: its ten meetings all fit below the code.
      const sheet = page.locator('.poster')
      expect(await sheet.evaluate((element) => element.scrollHeight <= element.clientHeight)).toBe(true)
      expect(await page.locator('.poster .meetings li').last().isVisible()).toBe(true)
      const shot = await page.screenshot({ path: join(SHOTS, 'site-poster.png') })
      expect(await decodePng(shot)).toBe(url)
      expect(watched.problems).toEqual([])
      await page.context().close()
    },
    TIMEOUT,
  )

  it(
    'reads on a narrow screen without scrolling sideways, its code still whole',
    async () => {
      const watched = await watchPage(site.browser, new URL(site.origin).host, NARROW)
      const { page } = watched
      await page.goto(`${site.origin}/clubs/${CHESS}/poster`)
      await checkPage(page, watched.problems, 'poster at 375 px')
      const box = (await page.locator('.poster-qr svg').boundingBox())!
      expect(box.width).toBeGreaterThan(200)
      expect(box.x + box.width).toBeLessThanOrEqual(NARROW.width)
      const shot = await page.locator('.poster-qr').screenshot()
      expect(await decodePng(shot)).toBe(`${site.origin}/clubs/${CHESS}`)
      await page.context().close()
    },
    TIMEOUT,
  )
})
