// Issue 25: the campus site's directory page, as a browser gets it. Two rows, from one server:
// - throughput: the first page (`GET /`, Accept: text/html, gzip, anonymous) beside the JSON list
//   page of the very clubs it shows (`/api/clubs/?page=1&page_size=24`, gzip). Both are answers
//   kept per data version, so the page should come as cheaply as the JSON. Goal: ≥ 0.8× the JSON.
// - weight: the gzipped bytes of the page and of everything it loads (its <link>, <script>, <img>
//   and <source> addresses, and the url()s and @imports of its style sheets), all from this
//   service and no other host. Goal: ≤ 60 KB (60,000 bytes).
//   npx bun bench/site-page.ts            (or as part of npm run bench; about 45 s)
//   SITE_PAGE_CLUBS=1000 BENCH_SECONDS=5
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DIRECTORY_PAGE_SIZE } from '../src/site/public-pages'
import { writeDataSet } from './generate'
import { measure, settler, type Measured } from './measure'
import { stopAll } from './procs'
import { startOurs } from './servers'

export const SITE_PAGE_CLUBS = Number(process.env.SITE_PAGE_CLUBS ?? 1000)
export const GOAL_RATIO = 0.8
export const GOAL_BYTES = 60_000
/** The two answers alternate for this many rounds; each keeps its best run (noise only takes throughput away). */
const ROUNDS = 3

interface Answer {
  readonly path: string
  readonly headers: Record<string, string>
}

const PAGE: Answer = { path: '/', headers: { Accept: 'text/html', 'Accept-Encoding': 'gzip' } }
const JSON_PAGE: Answer = {
  path: `/api/clubs/?page=1&page_size=${DIRECTORY_PAGE_SIZE}`,
  headers: { 'Accept-Encoding': 'gzip' },
}

export interface Loaded {
  readonly path: string
  /** Bytes on the wire (the gzip form when the service gave one). */
  readonly bytes: number
  readonly gzip: boolean
}

export interface SitePageResult {
  readonly clubs: number
  readonly shown: number
  readonly page: Measured
  readonly json: Measured
  readonly loaded: Loaded[]
  readonly totalBytes: number
  /** Addresses the page would load from any other host: there must be none. */
  readonly offHost: string[]
}

/** The rels of a <link> a browser fetches; a canonical or next-page link is not loaded. */
const LOADED_RELS = /\b(stylesheet|icon|apple-touch-icon|preload|modulepreload|prefetch|manifest)\b/i

/** What an HTML page loads: the addresses in its link, script, img and source elements (data: URLs cost nothing more). */
export async function addressesInHtml(html: string): Promise<string[]> {
  const found: string[] = []
  const take = (attribute: string) => ({
    element(element: HTMLRewriterTypes.Element) {
      const value = element.getAttribute(attribute)
      if (!value) return
      if (element.tagName === 'link' && !LOADED_RELS.test(element.getAttribute('rel') ?? '')) return
      if (attribute === 'srcset') found.push(...value.split(',').map((part) => part.trim().split(/\s+/)[0]!))
      else found.push(value)
    },
  })
  await new HTMLRewriter()
    .on('link[href]', take('href'))
    .on('script[src]', take('src'))
    .on('img[src]', take('src'))
    .on('img[srcset]', take('srcset'))
    .on('source[src]', take('src'))
    .on('source[srcset]', take('srcset'))
    .on('video[poster]', take('poster'))
    .transform(new Response(html))
    .text()
  return found.filter((address) => address !== '' && !address.startsWith('data:'))
}

/** What a style sheet loads: its url()s and @imports (data: URLs cost nothing more). */
export function addressesInCss(css: string): string[] {
  const urls = [...css.matchAll(/url\(\s*(['"]?)([^'")]+)\1\s*\)/g)].map((m) => m[2]!.trim())
  const imports = [...css.matchAll(/@import\s+(['"])([^'"]+)\1/g)].map((m) => m[2]!)
  return [...urls, ...imports].filter((address) => !address.startsWith('data:'))
}

/** One answer as a browser taking gzip gets it: its bytes on the wire, and its text. */
async function load(url: string, headers: Record<string, string>) {
  const res = await fetch(url, { headers, decompress: false } as RequestInit)
  const wire = new Uint8Array(await res.arrayBuffer())
  if (res.status !== 200) throw new Error(`site page bench: ${url} answered ${res.status}`)
  const gzip = res.headers.get('content-encoding') === 'gzip'
  const text = new TextDecoder().decode(gzip ? Bun.gunzipSync(wire) : wire)
  return { bytes: wire.length, gzip, text, type: res.headers.get('content-type') ?? '' }
}

/** The page at `path` (the directory's first) and everything it loads from us, each once; anything from elsewhere is listed, not loaded. */
export async function pageWeight(base: string, path = PAGE.path): Promise<Weighed> {
  const origin = new URL(base).origin
  const page = await load(base + path, PAGE.headers)
  const loaded: Loaded[] = [{ path, bytes: page.bytes, gzip: page.gzip }]
  const offHost: string[] = []
  const seen = new Set([base + path])
  const queue = (await addressesInHtml(page.text)).map((address) => new URL(address, base + path))
  for (let url = queue.shift(); url; url = queue.shift()) {
    url.hash = ''
    if (seen.has(url.href)) continue
    seen.add(url.href)
    if (url.origin !== origin) {
      offHost.push(url.href)
      continue
    }
    const answer = await load(url.href, { 'Accept-Encoding': 'gzip' })
    loaded.push({ path: url.pathname + url.search, bytes: answer.bytes, gzip: answer.gzip })
    if (answer.type.startsWith('text/css'))
      queue.push(...addressesInCss(answer.text).map((address) => new URL(address, url)))
  }
  return { loaded, totalBytes: loaded.reduce((sum, one) => sum + one.bytes, 0), offHost }
}

/** The clubs' codes, in order, as the directory page links them and as the JSON page lists them. */
async function sameClubs(base: string): Promise<number> {
  const html = await (await fetch(base + PAGE.path, { headers: PAGE.headers })).text()
  const onPage = [...html.matchAll(/<h3><a href="\/clubs\/([^"]+)"/g)].map((m) => m[1]!)
  const json = (await (await fetch(base + JSON_PAGE.path)).json()) as { results: { code: string }[] }
  const listed = json.results.map((club) => club.code)
  if (onPage.length !== DIRECTORY_PAGE_SIZE || onPage.join() !== listed.join())
    throw new Error(`site page bench: the page shows ${onPage.join()}, the JSON page lists ${listed.join()}`)
  return onPage.length
}

export async function benchSitePage(tmp: string, say: (line: string) => void): Promise<SitePageResult> {
  const dataSet = join(tmp, `site-page-${SITE_PAGE_CLUBS}.json`)
  await writeDataSet(SITE_PAGE_CLUBS, dataSet)
  const server = await startOurs(dataSet, join(tmp, 'site-page-db.json'))
  try {
    const shown = await sameClubs(server.base)
    const weight = await pageWeight(server.base)
    const settle = settler(`${server.base}/health`)
    const run = (answer: Answer) =>
      measure(server.child.pid, () => ({ url: server.base + answer.path, headers: answer.headers }), settle, 1)
    const pages: Measured[] = []
    const jsons: Measured[] = []
    for (let round = 0; round < ROUNDS; round++) {
      pages.push(await run(PAGE))
      jsons.push(await run(JSON_PAGE))
    }
    const result: SitePageResult = {
      clubs: SITE_PAGE_CLUBS,
      shown,
      page: bestRun(pages),
      json: bestRun(jsons),
      ...weight,
    }
    for (const line of sitePageLines(result)) say(line)
    return result
  } finally {
    await server.stop()
  }
}

/** The run of the most requests per second: noise on a shared machine only ever takes throughput away. */
export const bestRun = (runs: Measured[]) => runs.reduce((a, b) => (b.rps > a.rps ? b : a))

export const num = (n: number, digits = 0) =>
  n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits })
const kb = (bytes: number) => `${num(bytes / 1000, 1)} KB`

/** What a page weighs: the answers it took, and what it would load from other hosts. */
export type Weighed = Pick<SitePageResult, 'loaded' | 'totalBytes' | 'offHost'>

/** A page's weight row, one line: `label`, then each answer's bytes, against `goal` bytes. */
export const weightLine = (label: string, r: Weighed, goal: number) =>
  `${label} weight, gzip: ${kb(r.totalBytes)} (${r.loaded.map((one) => `${one.path} ${num(one.bytes)} B${one.gzip ? '' : ' plain'}`).join(', ')}); ` +
  `from other hosts: ${r.offHost.length ? r.offHost.join(', ') : 'none'} (goal ≤ ${kb(goal)}, none elsewhere: ${weightMet(r, goal) ? 'met' : 'NOT met'})`

/** The table of what a page loads, for docs/performance.md. */
export const loadedTable = (what: string, r: Weighed) => [
  `| ${what} | bytes on the wire |`,
  '|---|---|',
  ...r.loaded.map(
    (one) => `| \`${one.path}\` | ${num(one.bytes)}${one.gzip ? ' (gzip)' : ' (plain: too small to compress)'} |`,
  ),
  `| **total** | **${num(r.totalBytes)}** |`,
]

export const ratioMet = (r: SitePageResult) => r.page.rps >= GOAL_RATIO * r.json.rps
export const weightMet = (r: Weighed, goal = GOAL_BYTES) => r.totalBytes <= goal && r.offHost.length === 0

/** The two rows' figures, one line each. */
export function sitePageLines(r: SitePageResult): string[] {
  const errors = (m: Measured) => m.non2xx3xx + m.socketErrors
  return [
    `Directory page (${num(r.clubs)} clubs, first page of ${r.shown}, gzip): ${num(r.page.rps)} req/s, p99 ${num(r.page.p99Ms, 2)} ms; ` +
      `JSON list page of the same clubs: ${num(r.json.rps)} req/s, p99 ${num(r.json.p99Ms, 2)} ms; ` +
      `${num(r.page.rps / r.json.rps, 2)}× (goal ≥ ${GOAL_RATIO}×: ${ratioMet(r) ? 'met' : 'NOT met'}; errors ${errors(r.page)} / ${errors(r.json)})`,
    weightLine('Directory page', r, GOAL_BYTES),
  ]
}

/** The section of docs/performance.md. */
export function sitePageSection(r: SitePageResult): string[] {
  return [
    `## The campus site's directory page (${num(r.clubs)} clubs)`,
    '',
    '| answer | req/s | avg | p99 | errors |',
    '|---|---|---|---|---|',
    ...[
      [`\`GET /\`, \`Accept: text/html\`, gzip (the first ${r.shown} clubs)`, r.page],
      [`\`GET ${JSON_PAGE.path}\`, gzip (the same clubs)`, r.json],
    ].map(
      ([label, m]) =>
        `| ${label} | ${num((m as Measured).rps)} | ${num((m as Measured).avgMs, 2)} ms | ${num((m as Measured).p99Ms, 2)} ms | ` +
        `${num((m as Measured).non2xx3xx + (m as Measured).socketErrors)} |`,
    ),
    '',
    ...loadedTable('the page loads', r),
    '',
    '- bench/site-page.ts: one server (`CLUBS_LOG_LEVEL=warn`), anonymous; the two answers alternate for',
    `  ${ROUNDS} rounds and each keeps its best run. It first checks that the page links the very clubs the JSON page lists.`,
    '- The weight is what a browser taking gzip downloads on a first visit: the page, then every address in its',
    '  `<link>`, `<script>`, `<img>` and `<source>` elements and the `url()`s and `@import`s of its style sheets.',
    `  From other hosts: ${r.offHost.length ? r.offHost.join(', ') : 'nothing'}.`,
  ]
}

if (import.meta.main) {
  const tmp = mkdtempSync(join(tmpdir(), 'club-site-page-'))
  try {
    await benchSitePage(tmp, console.log)
  } finally {
    await stopAll()
    rmSync(tmp, { recursive: true, force: true })
  }
}
