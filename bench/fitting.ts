// Issue 38: clubs that fit a student's week (docs/reference.md §24). Two rows, from one server over
// FITTING_CLUBS clubs (10,000), each club given one to three weekly meetings:
// - throughput: `GET /api/clubs/?page=1&free=<three slots>`, the slots differing on every request
//   (bench/wrk/free-slots.lua) so that no answer comes from the list's cache and each filters the
//   whole directory, beside the plain list page `GET /api/clubs/?page=1`. Goal: ≥ 0.5× the plain page.
// - latency: a timetable of 40 weekly classes POSTed to /api/clubs/fitting/, one request at a
//   time, FITTING_REQUESTS of them after a warm-up. Goal: p99 ≤ 100 ms.
//   bun bench/fitting.ts              (or as part of npm run bench; about 40 s)
//   FITTING_CLUBS=10000 BENCH_SECONDS=5
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generate } from './generate'
import { measure, settler, type Measured } from './measure'
import { stopAll } from './procs'
import { startOurs } from './servers'
import { bestRun, num } from './site-page'
import { SCRIPTS, type Load } from './wrk'

export const FITTING_CLUBS = Number(process.env.FITTING_CLUBS ?? 10_000)
const FITTING_REQUESTS = Number(process.env.FITTING_REQUESTS ?? 300)
const WARM_UP_REQUESTS = 30
export const FREE_GOAL_RATIO = 0.5
export const TIMETABLE_GOAL_P99_MS = 100
/** The two list answers alternate for this many rounds; each keeps its best run. */
const ROUNDS = 2
const PLAIN_PATH = '/api/clubs/?page=1'
const SAME_SLOTS_PATH = '/api/clubs/?page=1&free=mon+18:00-21:00,wed+12:00-14:00,fri+17:00-23:00'
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const

export interface FittingResult {
  readonly clubs: number
  /** free= with three slots new on every request: filtered each time. */
  readonly freeNew: Measured
  /** The plain first page made on every request (a parameter the list ignores, new each time). */
  readonly plainNew: Measured
  /** free= with the same three slots on every request: from the list's cache after the first. */
  readonly freeSame: Measured
  /** The plain first page as clients get it: from the list's cache. */
  readonly plain: Measured
  /** Every club that fits, in one answer. */
  readonly timetable: Latency
  /** The first page of them (?page=1, 15 clubs). */
  readonly timetablePage: Latency
}

export interface Latency {
  readonly requests: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly maxMs: number
  /** How many clubs fit (X-Total-Count). */
  readonly fitting: number
  /** The answer's bytes, as sent (gzip). */
  readonly bytes: number
}

const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`

/** The data set, each club meeting one to three times a week, between 08:00 and 22:00. */
async function writeMeetingDataSet(file: string) {
  const snapshot = await generate(FITTING_CLUBS)
  snapshot.clubs.forEach((club, i) => {
    const count = 1 + (i % 3)
    club.meetings = Array.from({ length: count }, (_, k) => {
      const start = 8 * 60 + ((i * 7 + k * 5) % 24) * 30
      return {
        day: DAYS[(i + k * 2) % 7]!,
        start: hhmm(start),
        end: hhmm(start + 60 + ((i + k) % 3) * 30),
        location: `Room ${100 + (i % 50)}`,
        note: '',
      }
    })
  })
  await Bun.write(file, JSON.stringify(snapshot))
}

/** Forty weekly classes, Monday to Friday 08:00-16:00, one hour each, from the start of term, on the campus clock. */
export function fortyClasses(): string {
  const byDay = ['MO', 'TU', 'WE', 'TH', 'FR']
  const events = byDay.flatMap((day, d) =>
    Array.from({ length: 8 }, (_, h) => [
      'BEGIN:VEVENT',
      `UID:class-${day}-${h}@example.edu`,
      'DTSTAMP:20260901T000000Z',
      // 7 September 2026 is a Monday.
      `DTSTART:202609${String(7 + d).padStart(2, '0')}T${String(8 + h).padStart(2, '0')}0000`,
      `DTEND:202609${String(7 + d).padStart(2, '0')}T${String(8 + h).padStart(2, '0')}5000`,
      `RRULE:FREQ=WEEKLY;BYDAY=${day};UNTIL=20271231T000000Z`,
      `SUMMARY:Class ${day} ${h + 1}`,
      'END:VEVENT',
    ]),
  )
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Bench//Timetable//EN',
    ...events.flat(),
    'END:VCALENDAR',
    '',
  ].join('\r\n')
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

/** The timetable POSTed to /api/clubs/fitting/`query`, one request at a time, each read to its last byte (gzip, as browsers take it). */
async function timetableLatency(base: string, query: string): Promise<Latency> {
  const body = fortyClasses()
  const post = async () => {
    const started = performance.now()
    const res = await fetch(`${base}/api/clubs/fitting/${query}`, {
      method: 'POST',
      headers: { 'content-type': 'text/calendar', 'accept-encoding': 'gzip' },
      body,
      decompress: false,
    } as RequestInit)
    const bytes = (await res.arrayBuffer()).byteLength
    if (res.status !== 200) throw new Error(`fitting bench: the timetable answered ${res.status}`)
    return { ms: performance.now() - started, fitting: Number(res.headers.get('x-total-count')), bytes }
  }
  for (let i = 0; i < WARM_UP_REQUESTS; i++) await post()
  const times: number[] = []
  let last = { fitting: 0, bytes: 0 }
  for (let i = 0; i < FITTING_REQUESTS; i++) {
    const { ms, ...seen } = await post()
    times.push(ms)
    last = seen
  }
  times.sort((a, b) => a - b)
  return {
    requests: times.length,
    p50Ms: percentile(times, 50),
    p99Ms: percentile(times, 99),
    maxMs: times.at(-1)!,
    ...last,
  }
}

export async function benchFitting(tmp: string, say: (line: string) => void): Promise<FittingResult> {
  const dataSet = join(tmp, `fitting-${FITTING_CLUBS}.json`)
  await writeMeetingDataSet(dataSet)
  // The service's rate limit would turn the load away: off, as for the other rows.
  const server = await startOurs(dataSet, join(tmp, 'fitting-db.json'))
  try {
    const settle = settler(`${server.base}/health`)
    const script = join(SCRIPTS, 'free-slots.lua')
    const runs = {
      freeNew: [] as Measured[],
      plainNew: [] as Measured[],
      freeSame: [] as Measured[],
      plain: [] as Measured[],
    }
    const run = (load: () => Omit<Load, 'seconds'>) => measure(server.child.pid, load, settle, 1)
    for (let round = 0; round < ROUNDS; round++) {
      runs.freeNew.push(await run(() => ({ url: `${server.base}/`, script, args: ['free'] })))
      runs.plainNew.push(await run(() => ({ url: `${server.base}/`, script, args: ['plain'] })))
      runs.freeSame.push(await run(() => ({ url: server.base + SAME_SLOTS_PATH })))
      runs.plain.push(await run(() => ({ url: server.base + PLAIN_PATH })))
    }
    const result: FittingResult = {
      clubs: FITTING_CLUBS,
      freeNew: bestRun(runs.freeNew),
      plainNew: bestRun(runs.plainNew),
      freeSame: bestRun(runs.freeSame),
      plain: bestRun(runs.plain),
      timetable: await timetableLatency(server.base, ''),
      timetablePage: await timetableLatency(server.base, '?page=1'),
    }
    for (const line of fittingLines(result)) say(line)
    return result
  } finally {
    await server.stop()
  }
}

/** The filter's own cost (both made on every request) and as clients get them (both from the cache). */
export const freeRatioMet = (r: FittingResult) =>
  r.freeNew.rps >= FREE_GOAL_RATIO * r.plainNew.rps && r.freeSame.rps >= FREE_GOAL_RATIO * r.plain.rps
export const timetableMet = (r: FittingResult) => r.timetable.p99Ms <= TIMETABLE_GOAL_P99_MS
export const timetablePageMet = (r: FittingResult) => r.timetablePage.p99Ms <= TIMETABLE_GOAL_P99_MS

const latencyFigures = (t: Latency) =>
  `p50 ${num(t.p50Ms, 1)} ms, p99 ${num(t.p99Ms, 1)} ms, max ${num(t.maxMs, 1)} ms (${num(t.bytes)} B gzip)`

/** The rows' figures, one line each. */
export function fittingLines(r: FittingResult): string[] {
  const errors = (m: Measured) => m.non2xx3xx + m.socketErrors
  const goal = (met: boolean) => `goal p99 ≤ ${TIMETABLE_GOAL_P99_MS} ms: ${met ? 'met' : 'NOT met'}`
  const rate = (m: Measured) => `${num(m.rps)} req/s (p99 ${num(m.p99Ms, 2)} ms, errors ${errors(m)})`
  return [
    `free= with three slots, ${num(r.clubs)} clubs (goal ≥ ${FREE_GOAL_RATIO}× the plain list page: ${freeRatioMet(r) ? 'met' : 'NOT met'}): ` +
      `made every request ${rate(r.freeNew)} vs the plain page made every request ${rate(r.plainNew)} = ${num(r.freeNew.rps / r.plainNew.rps, 2)}×; ` +
      `the same slots (cached) ${rate(r.freeSame)} vs the plain page (cached) ${rate(r.plain)} = ${num(r.freeSame.rps / r.plain.rps, 2)}×; ` +
      `new slots vs the cached plain page ${num(r.freeNew.rps / r.plain.rps, 2)}×`,
    `Timetable of 40 weekly classes → /api/clubs/fitting/ (${num(r.clubs)} clubs, ${num(r.timetable.fitting)} fit), ${r.timetable.requests} requests one at a time: ` +
      `every club that fits ${latencyFigures(r.timetable)} (${goal(timetableMet(r))}); ` +
      `?page=1 ${latencyFigures(r.timetablePage)} (${goal(timetablePageMet(r))})`,
  ]
}

/** The section of docs/performance.md. */
export function fittingSection(r: FittingResult): string[] {
  const row = (label: string, m: Measured) =>
    `| ${label} | ${num(m.rps)} | ${num(m.avgMs, 2)} ms | ${num(m.p99Ms, 2)} ms | ${num(m.non2xx3xx + m.socketErrors)} |`
  const latency = (label: string, t: Latency) =>
    `| ${label} | ${num(t.p50Ms, 1)} ms | ${num(t.p99Ms, 1)} ms | ${num(t.maxMs, 1)} ms | ${num(t.bytes)} |`
  return [
    `## Clubs that fit a week (${num(r.clubs)} clubs, one to three meetings each)`,
    '',
    '| answer | req/s | avg | p99 | errors |',
    '|---|---|---|---|---|',
    row('`GET /api/clubs/?page=1&free=…`, three slots new on every request (made each time)', r.freeNew),
    row('`GET /api/clubs/?page=1&n=…`, the plain page made each time (n: ignored, new each time)', r.plainNew),
    row(`\`GET ${SAME_SLOTS_PATH}\` (the same slots: from the cache)`, r.freeSame),
    row(`\`GET ${PLAIN_PATH}\` (from the cache)`, r.plain),
    '',
    `A timetable of 40 weekly classes POSTed to \`/api/clubs/fitting/\` (${num(r.timetable.fitting)} clubs fit), ${r.timetable.requests} requests one at a time, each read to its last byte:`,
    '',
    '| answer | p50 | p99 | max | bytes (gzip) |',
    '|---|---|---|---|---|',
    latency('every club that fits', r.timetable),
    latency('`?page=1` (15 clubs)', r.timetablePage),
    '',
    '- bench/fitting.ts: one server (`CLUBS_LOG_LEVEL=warn`), anonymous; the four list answers (no gzip) alternate',
    `  for ${ROUNDS} rounds and each keeps its best run. bench/wrk/free-slots.lua makes every URL new, so that no`,
    '  answer comes from the list cache: each request goes through the whole directory (the free slots compared with',
    '  the minute ranges the catalog keeps per club). The goal holds for both pairs: made each time, and cached.',
    '- The timetable is read by ical.js and its four weeks checked against every club each time; an answer of every',
    '  club that fits is megabytes at this size, made and compressed per request, which a page is not.',
  ]
}

if (import.meta.main) {
  const tmp = mkdtempSync(join(tmpdir(), 'club-fitting-'))
  try {
    await benchFitting(tmp, console.log)
  } finally {
    await stopAll()
    rmSync(tmp, { recursive: true, force: true })
  }
}
