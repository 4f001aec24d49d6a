// Issue 36: My clubs, a signed-in person's own page, rendered for them on every request (it holds
// their CSRF token, so no copy serves anyone else). One server over MY_CLUBS_CLUBS clubs (10,000);
// a student with 50 favorites and 10 memberships, signed in on the site. Three answers alternate:
// - `GET /my-clubs` with the student's session cookie, Accept: text/html, gzip;
// - the directory page `GET /` as anyone gets it (the page kept per data version), gzip;
// - the same directory page for the signed-in student (the content kept per data version for
//   everyone, framed with their navigation once per session while that version stands).
// Goals: My clubs ≥ 0.8× the directory page's throughput (as anyone gets it: the harder of the two);
// the directory page signed in ≥ 0.8× the same page as anyone gets it.
//   npx bun bench/my-clubs-page.ts        (or as part of npm run bench; about 60 s)
//   MY_CLUBS_CLUBS=1000 BENCH_SECONDS=2
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeDataSet } from './generate'
import { measure, settler, type Measured } from './measure'
import { stopAll } from './procs'
import { ADMIN_TOKEN, startOurs } from './servers'

export const MY_CLUBS_CLUBS = Number(process.env.MY_CLUBS_CLUBS ?? 10_000)
export const MY_CLUBS_GOAL_RATIO = 0.8
const FAVORITES = 50
const MEMBERSHIPS = 10
/** The answers alternate for this many rounds; each keeps its best run (noise only takes throughput away). */
const ROUNDS = 3

export interface MyClubsResult {
  readonly clubs: number
  readonly favorites: number
  readonly memberships: number
  /** The page's size, plain and gzip. */
  readonly bytes: { readonly plain: number; readonly gzip: number }
  readonly myClubs: Measured
  readonly directory: Measured
  readonly directorySignedIn: Measured
}

const FORM = 'application/x-www-form-urlencoded'

async function call(base: string, path: string, init: RequestInit & { token?: string } = {}) {
  const headers = new Headers(init.headers)
  if (init.token) headers.set('authorization', `Bearer ${init.token}`)
  if (typeof init.body === 'string' && !headers.has('content-type')) headers.set('content-type', 'application/json')
  const res = await fetch(base + path, { ...init, headers, redirect: 'manual' })
  if (res.status >= 400) throw new Error(`my clubs bench: ${init.method ?? 'GET'} ${path} answered ${res.status}`)
  return res
}

/** The student: a user with FAVORITES favorites and MEMBERSHIPS memberships, signed in; answers their cookie. */
async function student(base: string): Promise<string> {
  const json = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) })
  const { token } = (await (
    await call(base, '/api/users/', { ...json({ username: 'student' }), token: ADMIN_TOKEN })
  ).json()) as { token: string }
  const page = (await (
    await call(base, `/api/clubs/?page=1&page_size=${FAVORITES + MEMBERSHIPS}&ordering=name`)
  ).json()) as { results: { code: string }[] }
  const codes = page.results.map((club) => club.code)
  for (const code of codes.slice(0, MEMBERSHIPS))
    await call(base, `/api/clubs/${code}/members/`, { ...json({ username: 'student' }), token: ADMIN_TOKEN })
  for (const code of codes.slice(MEMBERSHIPS, MEMBERSHIPS + FAVORITES))
    await call(base, '/api/favorites/', { ...json({ club: code }), token })
  const signIn = await call(base, '/sign-in', {
    method: 'POST',
    headers: { 'content-type': FORM },
    body: new URLSearchParams({ token, next: '/my-clubs' }).toString(),
  })
  return signIn.headers.getSetCookie()[0]!.split(';')[0]!
}

/** The page as the student gets it, checked: their favorites and memberships are all on it. */
async function checkedPage(base: string, cookie: string): Promise<MyClubsResult['bytes']> {
  const res = await fetch(base + '/my-clubs', { headers: { cookie, accept: 'text/html' } })
  const html = await res.text()
  const favorites = /Favorites<\/h2>([\s\S]*?)<\/section>/.exec(html)?.[1] ?? ''
  const memberships = /Your memberships<\/h2>([\s\S]*?)<\/section>/.exec(html)?.[1] ?? ''
  const count = (part: string, action: string) => (part.match(new RegExp(`/${action}"`, 'g')) ?? []).length
  if (res.status !== 200 || count(favorites, 'remove') !== FAVORITES || count(memberships, 'leave') !== MEMBERSHIPS)
    throw new Error(`my clubs bench: /my-clubs answered ${res.status} without the student's clubs`)
  const gzip = await fetch(base + '/my-clubs', {
    headers: { cookie, accept: 'text/html', 'accept-encoding': 'gzip' },
    decompress: false,
  } as RequestInit)
  return { plain: new TextEncoder().encode(html).length, gzip: (await gzip.arrayBuffer()).byteLength }
}

export async function benchMyClubsPage(tmp: string, say: (line: string) => void): Promise<MyClubsResult> {
  const dataSet = join(tmp, `my-clubs-${MY_CLUBS_CLUBS}.json`)
  await writeDataSet(MY_CLUBS_CLUBS, dataSet)
  const server = await startOurs(dataSet, join(tmp, 'my-clubs-db.json'))
  try {
    const cookie = await student(server.base)
    const bytes = await checkedPage(server.base, cookie)
    const settle = settler(`${server.base}/health`)
    const html = { Accept: 'text/html', 'Accept-Encoding': 'gzip' }
    const run = (path: string, headers: Record<string, string>) =>
      measure(server.child.pid, () => ({ url: server.base + path, headers }), settle, 1)
    const runs: Record<'myClubs' | 'directory' | 'directorySignedIn', Measured[]> = {
      myClubs: [],
      directory: [],
      directorySignedIn: [],
    }
    for (let round = 0; round < ROUNDS; round++) {
      runs.myClubs.push(await run('/my-clubs', { ...html, Cookie: cookie }))
      runs.directory.push(await run('/', html))
      runs.directorySignedIn.push(await run('/', { ...html, Cookie: cookie }))
    }
    const best = (measured: Measured[]) => measured.reduce((a, b) => (b.rps > a.rps ? b : a))
    const result: MyClubsResult = {
      clubs: MY_CLUBS_CLUBS,
      favorites: FAVORITES,
      memberships: MEMBERSHIPS,
      bytes,
      myClubs: best(runs.myClubs),
      directory: best(runs.directory),
      directorySignedIn: best(runs.directorySignedIn),
    }
    say(myClubsLine(result))
    return result
  } finally {
    await server.stop()
  }
}

const num = (n: number, digits = 0) =>
  n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits })

export const myClubsMet = (r: MyClubsResult) => r.myClubs.rps >= MY_CLUBS_GOAL_RATIO * r.directory.rps

/** The signed-in directory page against the anonymous one. */
export const SIGNED_IN_GOAL_RATIO = 0.8
export const signedInDirectoryMet = (r: MyClubsResult) =>
  r.directorySignedIn.rps >= SIGNED_IN_GOAL_RATIO * r.directory.rps

/** The row's figures, in one line. */
export function myClubsLine(r: MyClubsResult): string {
  const errors = (m: Measured) => m.non2xx3xx + m.socketErrors
  return (
    `My clubs (${num(r.clubs)} clubs; ${r.favorites} favorites, ${r.memberships} memberships; ${num(r.bytes.gzip)} B gzip): ` +
    `${num(r.myClubs.rps)} req/s, p99 ${num(r.myClubs.p99Ms, 2)} ms; directory page ${num(r.directory.rps)} req/s ` +
    `(signed in: ${num(r.directorySignedIn.rps)} req/s); ${num(r.myClubs.rps / r.directory.rps, 2)}× ` +
    `(goal ≥ ${MY_CLUBS_GOAL_RATIO}×: ${myClubsMet(r) ? 'met' : 'NOT met'}; errors ${errors(r.myClubs)} / ${errors(r.directory)} / ${errors(r.directorySignedIn)})\n` +
    `Directory page signed in (${num(r.clubs)} clubs): ${num(r.directorySignedIn.rps)} req/s, p99 ${num(r.directorySignedIn.p99Ms, 2)} ms; ` +
    `as anyone ${num(r.directory.rps)} req/s; ${num(r.directorySignedIn.rps / r.directory.rps, 2)}× ` +
    `(goal ≥ ${SIGNED_IN_GOAL_RATIO}×: ${signedInDirectoryMet(r) ? 'met' : 'NOT met'})`
  )
}

/** The section of docs/performance.md. */
export function myClubsSection(r: MyClubsResult): string[] {
  const row = (label: string, m: Measured) =>
    `| ${label} | ${num(m.rps)} | ${num(m.avgMs, 2)} ms | ${num(m.p99Ms, 2)} ms | ${num(m.non2xx3xx + m.socketErrors)} |`
  return [
    `## My clubs, a signed-in person's own page (${num(r.clubs)} clubs)`,
    '',
    '| answer | req/s | avg | p99 | errors |',
    '|---|---|---|---|---|',
    row(`\`GET /my-clubs\`, gzip: ${r.favorites} favorites, ${r.memberships} memberships`, r.myClubs),
    row('`GET /`, gzip, anyone (the page kept per data version)', r.directory),
    row('`GET /`, gzip, the same student signed in (the kept content in their frame)', r.directorySignedIn),
    '',
    `- bench/my-clubs-page.ts: one server (\`CLUBS_LOG_LEVEL=warn\`); the three answers alternate for ${ROUNDS} rounds`,
    `  and each keeps its best run. The page is ${num(r.bytes.plain)} bytes, ${num(r.bytes.gzip)} gzip; it is made from the`,
    "  person's own links (favorites, memberships, requests), never from a pass over every club.",
    '- The directory signed in is the content everyone gets (made once per data version and URL) in the',
    "  person's own frame, kept for their session while the data version stands: no pass over the clubs",
    '  or their tags per request.',
  ]
}

if (import.meta.main) {
  const tmp = mkdtempSync(join(tmpdir(), 'club-my-clubs-'))
  try {
    await benchMyClubsPage(tmp, console.log)
  } finally {
    await stopAll()
    rmSync(tmp, { recursive: true, force: true })
  }
}
