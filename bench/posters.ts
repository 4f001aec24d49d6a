// Issue 37: the club fair's QR codes and posters (docs/reference.md §23). Two rows, from one server over
// POSTER_CLUBS clubs (1,000):
// - throughput: `GET /api/clubs/{code}/qr.svg` (gzip, anonymous) beside the retrieve of the same
//   club, `GET /api/clubs/{code}/`. The SVG is kept by the URL it encodes, so after the first it
//   costs what the retrieve does: a visibility check and a kept answer. Goal: ≥ 0.8× the retrieve.
// - weight: the poster page `/clubs/{code}/poster` of a club with the most meetings a club may have
//   (10), gzipped, with everything it loads, all from this service. Goal: ≤ 30 KB (30,000 bytes).
//   npx bun bench/posters.ts              (or as part of npm run bench; about 40 s)
//   POSTER_CLUBS=1000 BENCH_SECONDS=5
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeDataSet } from './generate'
import { measure, settler, type Measured } from './measure'
import { stopAll } from './procs'
import { ADMIN_TOKEN, startOurs } from './servers'
import { bestRun, loadedTable, num, pageWeight, weightLine, weightMet, type Loaded } from './site-page'

export const POSTER_CLUBS = Number(process.env.POSTER_CLUBS ?? 1000)
export const QR_GOAL_RATIO = 0.8
export const POSTER_GOAL_BYTES = 30_000
/** The two answers alternate for this many rounds; each keeps its best run (noise only takes throughput away). */
const ROUNDS = 3
const CODE = 'penn-chess-society'
const QR_PATH = `/api/clubs/${CODE}/qr.svg`
const CLUB_PATH = `/api/clubs/${CODE}/`
const POSTER_PATH = `/clubs/${CODE}/poster`
const GZIP = { 'Accept-Encoding': 'gzip' }

export interface PostersResult {
  readonly clubs: number
  readonly qr: Measured
  readonly retrieve: Measured
  /** The SVG's size, plain and gzip. */
  readonly svgBytes: { readonly plain: number; readonly gzip: number }
  readonly loaded: Loaded[]
  readonly totalBytes: number
  readonly offHost: string[]
}

/** Ten meetings, each with a place and a note: the fullest poster a club can have. */
async function fullestPoster(base: string) {
  const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']
  const meetings = Array.from({ length: 10 }, (_, i) => ({
    day: days[i % 7],
    start: `${String(8 + i).padStart(2, '0')}:00`,
    end: `${String(9 + i).padStart(2, '0')}:30`,
    location: `Houston Hall, room ${200 + i}`,
    note: 'Blitz and puzzles; beginners welcome, boards provided',
  }))
  const res = await fetch(base + CLUB_PATH, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ meetings }),
  })
  if (res.status !== 200) throw new Error(`posters bench: PATCH ${CLUB_PATH} answered ${res.status}`)
}

/** The SVG as a client gets it: it must be one, plain and gzipped. */
async function svgBytes(base: string) {
  const plain = await fetch(base + QR_PATH)
  const text = await plain.text()
  if (plain.status !== 200 || plain.headers.get('content-type') !== 'image/svg+xml' || !text.startsWith('<svg'))
    throw new Error(`posters bench: ${QR_PATH} answered ${plain.status} ${plain.headers.get('content-type')}`)
  const gzip = await fetch(base + QR_PATH, { headers: GZIP, decompress: false } as RequestInit)
  if (gzip.headers.get('content-encoding') !== 'gzip') throw new Error(`posters bench: ${QR_PATH} was not gzipped`)
  return { plain: Buffer.byteLength(text), gzip: (await gzip.arrayBuffer()).byteLength }
}

export async function benchPosters(tmp: string, say: (line: string) => void): Promise<PostersResult> {
  const dataSet = join(tmp, `posters-${POSTER_CLUBS}.json`)
  await writeDataSet(POSTER_CLUBS, dataSet)
  const server = await startOurs(dataSet, join(tmp, 'posters-db.json'))
  try {
    await fullestPoster(server.base)
    const svg = await svgBytes(server.base)
    const weight = await pageWeight(server.base, POSTER_PATH)
    const settle = settler(`${server.base}/health`)
    const run = (path: string) =>
      measure(server.child.pid, () => ({ url: server.base + path, headers: GZIP }), settle, 1)
    const qrs: Measured[] = []
    const retrieves: Measured[] = []
    for (let round = 0; round < ROUNDS; round++) {
      qrs.push(await run(QR_PATH))
      retrieves.push(await run(CLUB_PATH))
    }
    const result: PostersResult = {
      clubs: POSTER_CLUBS,
      qr: bestRun(qrs),
      retrieve: bestRun(retrieves),
      svgBytes: svg,
      ...weight,
    }
    for (const line of postersLines(result)) say(line)
    return result
  } finally {
    await server.stop()
  }
}

export const qrRatioMet = (r: PostersResult) => r.qr.rps >= QR_GOAL_RATIO * r.retrieve.rps
export const posterWeightMet = (r: PostersResult) => weightMet(r, POSTER_GOAL_BYTES)

/** The two rows' figures, one line each. */
export function postersLines(r: PostersResult): string[] {
  const errors = (m: Measured) => m.non2xx3xx + m.socketErrors
  return [
    `QR code (${num(r.clubs)} clubs, ${num(r.svgBytes.plain)} B SVG, ${num(r.svgBytes.gzip)} B gzip): ${num(r.qr.rps)} req/s, p99 ${num(r.qr.p99Ms, 2)} ms; ` +
      `retrieve of the same club: ${num(r.retrieve.rps)} req/s, p99 ${num(r.retrieve.p99Ms, 2)} ms; ` +
      `${num(r.qr.rps / r.retrieve.rps, 2)}× (goal ≥ ${QR_GOAL_RATIO}×: ${qrRatioMet(r) ? 'met' : 'NOT met'}; errors ${errors(r.qr)} / ${errors(r.retrieve)})`,
    weightLine('Poster page', r, POSTER_GOAL_BYTES),
  ]
}

/** The section of docs/performance.md. */
export function postersSection(r: PostersResult): string[] {
  const row = (label: string, m: Measured) =>
    `| ${label} | ${num(m.rps)} | ${num(m.avgMs, 2)} ms | ${num(m.p99Ms, 2)} ms | ${num(m.non2xx3xx + m.socketErrors)} |`
  return [
    `## The club fair's QR codes and posters (${num(r.clubs)} clubs)`,
    '',
    '| answer | req/s | avg | p99 | errors |',
    '|---|---|---|---|---|',
    row(`\`GET ${QR_PATH}\`, gzip`, r.qr),
    row(`\`GET ${CLUB_PATH}\`, gzip (the same club)`, r.retrieve),
    '',
    ...loadedTable('the poster page loads', r),
    '',
    '- bench/posters.ts: one server (`CLUBS_LOG_LEVEL=warn`), anonymous; the two answers alternate for',
    `  ${ROUNDS} rounds and each keeps its best run. The SVG is kept by the URL it encodes: after the first request`,
    '  it costs a visibility check and a kept answer, as the retrieve does.',
    '- The weight is what a browser taking gzip downloads on a first visit to the poster of a club with ten',
    '  meetings (the most it may have), its QR code drawn inline: the page, then everything it loads.',
    `  From other hosts: ${r.offHost.length ? r.offHost.join(', ') : 'nothing'}.`,
  ]
}

if (import.meta.main) {
  const tmp = mkdtempSync(join(tmpdir(), 'club-posters-'))
  try {
    await benchPosters(tmp, console.log)
  } finally {
    await stopAll()
    rmSync(tmp, { recursive: true, force: true })
  }
}
