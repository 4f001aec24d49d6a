import { describe, expect, it } from 'bun:test'
import { browserSuite, checkPage, NARROW, offHost, watchPage } from '../harness/browser'

// A club page's JSON-LD and the links to the feed and the search description (docs/reference.md §24), in
// Chromium under the page's own Content-Security-Policy: the ld+json script is data, which the
// browser neither runs nor blocks, so nothing is reported; the browser's HTML parser (not a regular
// expression) ends the script where the JSON ends, even with `</script>` in a description.

const TOKEN = 'web-formats-admin-token'
const TIMEOUT = 90_000
const CHESS = 'penn-chess-society'
const suite = process.env.SKIP_BROWSER_TESTS === '1' ? describe.skip : describe

suite("a club page's web formats in Chromium", () => {
  const site = browserSuite(TOKEN, 'clubs-web-formats-', { env: { CLUBS_TIMEZONE: 'Europe/Berlin' }, timeout: TIMEOUT })

  it(
    'holds JSON-LD the browser reads whole, reports no console or CSP error, and links the feed and the search',
    async () => {
      const description = 'Openings & endgames.</script><script>document.title = "owned"</script><!-- end'
      const res = await fetch(`${site.origin}/api/clubs/${CHESS}/`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          description,
          meetings: [{ day: 'thursday', start: '19:00', end: '21:00', location: 'Library <B>', note: '' }],
        }),
      })
      expect(res.status).toBe(200)
      for (const viewport of [undefined, NARROW]) {
        const watched = await watchPage(site.browser, new URL(site.origin).host, viewport)
        const { page } = watched
        await page.goto(`${site.origin}/clubs/${CHESS}`)
        await page.waitForLoadState('load')
        const scripts = await page.evaluate(() =>
          [...document.querySelectorAll('script')].map((script) => ({
            type: script.type,
            text: script.textContent ?? '',
          })),
        )
        // The site's own script, and the JSON-LD: nothing injected by the description.
        expect(scripts.map((script) => script.type).sort()).toEqual(['', 'application/ld+json'])
        const ld = JSON.parse(scripts.find((script) => script.type === 'application/ld+json')!.text)
        expect(ld['@type']).toBe('Organization')
        expect(ld.description).toBe(description)
        expect(ld.url).toBe(`${site.origin}/clubs/${CHESS}`)
        expect(ld.event[0].eventSchedule).toMatchObject({
          '@type': 'Schedule',
          byDay: 'https://schema.org/Thursday',
          scheduleTimezone: 'Europe/Berlin',
          repeatFrequency: 'P1W',
        })
        expect(ld.event[0].location.name).toBe('Library <B>')
        expect(await page.title()).not.toBe('owned')
        const links = await page.evaluate(() =>
          [...document.querySelectorAll('link[rel="alternate"], link[rel="search"]')].map((link) => [
            link.getAttribute('rel'),
            link.getAttribute('type'),
            (link as HTMLLinkElement).href,
          ]),
        )
        expect(links).toEqual([
          ['alternate', 'application/atom+xml', `${site.origin}/feeds/clubs.atom`],
          ['search', 'application/opensearchdescription+xml', `${site.origin}/opensearch.xml`],
        ])
        await checkPage(page, watched.problems, `club page at ${viewport?.width ?? 1280} px`)
        expect(offHost(watched)).toEqual([])
        await page.context().close()
      }
      // What the links name is there, for the browser's own request.
      for (const [path, type] of [
        ['/feeds/clubs.atom', 'application/atom+xml; charset=utf-8'],
        ['/opensearch.xml', 'application/opensearchdescription+xml; charset=utf-8'],
      ] as const) {
        const answer = await fetch(`${site.origin}${path}`)
        expect([path, answer.status, answer.headers.get('content-type')]).toEqual([path, 200, type])
      }
    },
    TIMEOUT,
  )
})
