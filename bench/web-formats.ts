// Issue 38: the web's own formats (docs/reference.md §24), served from the answers kept per data version.
// One server over WEB_FORMATS_CLUBS clubs (10,000), 60 public changes made first so the feed is
// full (50 entries); three answers, gzip, anonymous:
// - `GET /feeds/clubs.atom`: the newest 50 public changes;
// - `GET /sitemap.xml`: every public club page;
// - `GET /api/clubs/`: the list, every club (kept per data version as the feed and sitemap are);
// - `GET /api/clubs/?page=1&page_size=20`: one list page, for comparison (no goal).
// Goal: the feed and the sitemap each ≥ 0.8× the list.
//   npx bun bench/web-formats.ts              (or as part of npm run bench; about a minute)
//   WEB_FORMATS_CLUBS=10000 BENCH_SECONDS=5
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeDataSet } from './generate'
import { measure, settler, type Measured } from './measure'
import { stopAll } from './procs'
import { ADMIN_TOKEN, startOurs } from './servers'
import { bestRun, num } from './site-page'

export const WEB_FORMATS_CLUBS = Number(process.env.WEB_FORMATS_CLUBS ?? 10_000)
export const WEB_FORMATS_GOAL_RATIO = 0.8
/** Public changes made before measuring: more than the feed holds. */
const CHANGES = 60
/** The answers alternate for this many rounds; each keeps its best run (noise only takes throughput away). */
const ROUNDS = 3
const FEED_PATH = '/feeds/clubs.atom'
const SITEMAP_PATH = '/sitemap.xml'
const LIST_PATH = '/api/clubs/'
const LIST_PAGE_PATH = '/api/clubs/?page=1&page_size=20'
const GZIP = { 'Accept-Encoding': 'gzip' }

export interface WebFormatsResult {
  readonly clubs: number
  readonly feed: Measured
  readonly sitemap: Measured
  readonly list: Measured
  readonly listPage: Measured
  /** Each answer's gzip bytes. */
  readonly bytes: { readonly feed: number; readonly sitemap: number; readonly list: number; readonly listPage: number }
}

/** CHANGES subtitle edits of the first clubs: the feed's entries. */
async function makeChanges(base: string) {
  const page = (await (await fetch(`${base}${LIST_PATH}?page=1&page_size=${CHANGES}`)).json()) as {
    results: { code: string }[]
  }
  for (const [i, { code }] of page.results.entries()) {
    const res = await fetch(`${base}/api/clubs/${code}/`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ subtitle: `Changed for the feed, ${i + 1}` }),
    })
    if (res.status !== 200) throw new Error(`web formats bench: PATCH ${code} answered ${res.status}`)
  }
}

/** An answer's gzip bytes, checking it is what it should be. */
async function gzipBytes(base: string, path: string, type: string): Promise<number> {
  const res = await fetch(base + path, { headers: GZIP, decompress: false } as RequestInit)
  if (res.status !== 200 || !res.headers.get('content-type')?.startsWith(type))
    throw new Error(`web formats bench: ${path} answered ${res.status} ${res.headers.get('content-type')}`)
  if (res.headers.get('content-encoding') !== 'gzip') throw new Error(`web formats bench: ${path} was not gzipped`)
  return (await res.arrayBuffer()).byteLength
}

export async function benchWebFormats(tmp: string, say: (line: string) => void): Promise<WebFormatsResult> {
  const dataSet = join(tmp, `web-formats-${WEB_FORMATS_CLUBS}.json`)
  await writeDataSet(WEB_FORMATS_CLUBS, dataSet)
  const server = await startOurs(dataSet, join(tmp, 'web-formats-db.json'))
  try {
    await makeChanges(server.base)
    const feedText = await (await fetch(server.base + FEED_PATH)).text()
    const entries = feedText.split('<entry>').length - 1
    if (entries !== 50) throw new Error(`web formats bench: the feed holds ${entries} entries, not 50`)
    const bytes = {
      feed: await gzipBytes(server.base, FEED_PATH, 'application/atom+xml'),
      sitemap: await gzipBytes(server.base, SITEMAP_PATH, 'application/xml'),
      list: await gzipBytes(server.base, LIST_PATH, 'application/json'),
      listPage: await gzipBytes(server.base, LIST_PAGE_PATH, 'application/json'),
    }
    const settle = settler(`${server.base}/health`)
    const run = (path: string) =>
      measure(server.child.pid, () => ({ url: server.base + path, headers: GZIP }), settle, 1)
    const runs: Record<'feed' | 'sitemap' | 'list' | 'listPage', Measured[]> = {
      feed: [],
      sitemap: [],
      list: [],
      listPage: [],
    }
    for (let round = 0; round < ROUNDS; round++) {
      runs.feed.push(await run(FEED_PATH))
      runs.sitemap.push(await run(SITEMAP_PATH))
      runs.list.push(await run(LIST_PATH))
      runs.listPage.push(await run(LIST_PAGE_PATH))
    }
    const result: WebFormatsResult = {
      clubs: WEB_FORMATS_CLUBS,
      feed: bestRun(runs.feed),
      sitemap: bestRun(runs.sitemap),
      list: bestRun(runs.list),
      listPage: bestRun(runs.listPage),
      bytes,
    }
    for (const line of webFormatsLines(result)) say(line)
    return result
  } finally {
    await server.stop()
  }
}

export const feedRatioMet = (r: WebFormatsResult) => r.feed.rps >= WEB_FORMATS_GOAL_RATIO * r.list.rps
export const sitemapRatioMet = (r: WebFormatsResult) => r.sitemap.rps >= WEB_FORMATS_GOAL_RATIO * r.list.rps

/** The rows' figures, one line each. */
export function webFormatsLines(r: WebFormatsResult): string[] {
  const errors = (m: Measured) => m.non2xx3xx + m.socketErrors
  const line = (label: string, m: Measured, bytes: number, met: boolean) =>
    `${label} (${num(r.clubs)} clubs, ${num(bytes)} B gzip): ${num(m.rps)} req/s, p99 ${num(m.p99Ms, 2)} ms; ` +
    `${num(m.rps / r.list.rps, 2)}× the list (goal ≥ ${WEB_FORMATS_GOAL_RATIO}×: ${met ? 'met' : 'NOT met'}; errors ${errors(m)})`
  return [
    line('Atom feed', r.feed, r.bytes.feed, feedRatioMet(r)),
    line('Sitemap', r.sitemap, r.bytes.sitemap, sitemapRatioMet(r)),
    `The list they are measured against (${num(r.bytes.list)} B gzip): ${num(r.list.rps)} req/s, p99 ${num(r.list.p99Ms, 2)} ms; errors ${errors(r.list)}`,
    `One list page of 20, for comparison (${num(r.bytes.listPage)} B gzip): ${num(r.listPage.rps)} req/s, p99 ${num(r.listPage.p99Ms, 2)} ms; ` +
      `the feed ${num(r.feed.rps / r.listPage.rps, 2)}×, the sitemap ${num(r.sitemap.rps / r.listPage.rps, 2)}× of it`,
  ]
}

/** The section of docs/performance.md. */
export function webFormatsSection(r: WebFormatsResult): string[] {
  const row = (label: string, m: Measured, bytes: number) =>
    `| ${label} | ${num(bytes)} B | ${num(m.rps)} | ${num(m.avgMs, 2)} ms | ${num(m.p99Ms, 2)} ms | ${num(m.non2xx3xx + m.socketErrors)} |`
  return [
    `## The web's own formats: Atom feed and sitemap (${num(r.clubs)} clubs)`,
    '',
    '| answer | gzip size | req/s | avg | p99 | errors |',
    '|---|---|---|---|---|---|',
    row(`\`GET ${FEED_PATH}\` (50 entries)`, r.feed, r.bytes.feed),
    row(`\`GET ${SITEMAP_PATH}\` (every public club)`, r.sitemap, r.bytes.sitemap),
    row(`\`GET ${LIST_PATH}\` (every club)`, r.list, r.bytes.list),
    row(`\`GET ${LIST_PAGE_PATH}\` (for comparison)`, r.listPage, r.bytes.listPage),
    '',
    `- bench/web-formats.ts: one server (\`CLUBS_LOG_LEVEL=warn\`), anonymous, gzip, after ${CHANGES} public changes;`,
    `  the four answers alternate for ${ROUNDS} rounds and each keeps its best run. Each is made once per data`,
    '  version (and origin) and kept, so a request costs a lookup and the kept gzip bytes.',
  ]
}

if (import.meta.main) {
  const tmp = mkdtempSync(join(tmpdir(), 'club-web-formats-'))
  try {
    await benchWebFormats(tmp, console.log)
  } finally {
    await stopAll()
    rmSync(tmp, { recursive: true, force: true })
  }
}
