// Issue 39: the sandbox for prototyping (docs/reference.md §25). Three rows:
// - reads with CLUBS_SANDBOX=true and no _delay/_fail/Prefer, against the same server with it off:
//   GET /api/clubs/?page=1&page_size=20 and a club's detail by wrk, on and off in turn, RUNS times each, the
//   median of each; goal on/off ≥ 0.95;
// - POST /api/_sandbox/reset at SANDBOX_CLUBS (10,000) clubs of a generated campus (demo:10000),
//   after some writes, timed from request to answer, the median of RUNS; goal ≤ 1 s;
// - the first start of CLUBS_SEED_FILE=demo:10000 on a new data file, from spawn to the first
//   200 of /api/clubs/, the median of RUNS; goal ≤ 3 s.
//   npx bun bench/sandbox.ts    (or as part of npm run bench; about a minute)
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DURATION_S } from './measure'
import { stopAll } from './procs'
import { ADMIN_TOKEN, startOursOn, type Server } from './servers'
import { wrk } from './wrk'

export const SANDBOX_CLUBS = Number(process.env.SANDBOX_CLUBS ?? 10_000)
export const READS_GOAL = 0.95
export const RESET_GOAL_MS = 1000
export const DEMO_START_GOAL_MS = 3000
const RUNS = Number(process.env.SANDBOX_RUNS ?? 3)

export interface SandboxResult {
  readonly clubs: number
  /** Requests a second by wrk, each run: [list, detail] with the sandbox off, then on. */
  readonly off: readonly (readonly [number, number])[]
  readonly on: readonly (readonly [number, number])[]
  readonly resetMs: readonly number[]
  readonly resetClubs: number
  readonly demoStartMs: readonly number[]
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const num = (n: number, digits = 0) =>
  n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits })

/** Requests a second on the list and on a detail, for the server at `base`. */
async function reads(base: string): Promise<[number, number]> {
  const list = await wrk({ url: `${base}/api/clubs/?page=1&page_size=20`, seconds: DURATION_S })
  const detail = await wrk({ url: `${base}/api/clubs/campus-chess-club/`, seconds: DURATION_S })
  return [list.rps, detail.rps]
}

const post = (server: Server, path: string, body?: unknown) =>
  fetch(`${server.base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

export async function benchSandbox(tmp: string, say: (line: string) => void): Promise<SandboxResult> {
  const seed = { CLUBS_SEED_FILE: `demo:${SANDBOX_CLUBS}` }
  const demoStartMs: number[] = []
  for (let run = 0; run < RUNS; run++) {
    const server = await startOursOn(join(tmp, `demo-start-${run}.json`), 'warn', seed)
    demoStartMs.push(server.startupMs)
    await server.stop()
  }
  // Reads: one data file, the server started with the sandbox off and on in turn.
  const dataFile = join(tmp, 'sandbox.json')
  const off: [number, number][] = []
  const on: [number, number][] = []
  for (let run = 0; run < RUNS; run++) {
    for (const sandbox of ['false', 'true']) {
      const server = await startOursOn(dataFile, 'warn', { ...seed, CLUBS_SANDBOX: sandbox })
      ;(sandbox === 'true' ? on : off).push(await reads(server.base))
      await server.stop()
    }
  }
  const server = await startOursOn(dataFile, 'warn', { ...seed, CLUBS_SANDBOX: 'true' })
  const resetMs: number[] = []
  let resetClubs = 0
  try {
    for (let run = 0; run < RUNS; run++) {
      for (let i = 0; i < 5; i++)
        await post(server, '/api/clubs/', {
          name: `Bench Club ${run} ${i}`,
          subtitle: 'x',
          description: 'y',
          size: 1,
          accepting_members: true,
          application_required: 1,
          recruiting_cycle: 1,
          tags: ['Games'],
        })
      const started = performance.now()
      const answer = await post(server, '/api/_sandbox/reset')
      resetMs.push(performance.now() - started)
      if (answer.status !== 200) throw new Error(`sandbox bench: the reset answered ${answer.status}`)
      resetClubs = ((await answer.json()) as { clubs: number }).clubs
    }
  } finally {
    await server.stop()
  }
  const result = { clubs: SANDBOX_CLUBS, off, on, resetMs, resetClubs, demoStartMs }
  for (const line of sandboxLines(result)) say(line)
  return result
}

/** On/off for the list and the detail, each the ratio of medians. */
export const readRatios = (r: SandboxResult) =>
  [0, 1].map((k) => median(r.on.map((run) => run[k]!)) / median(r.off.map((run) => run[k]!)))

export const sandboxMet = (r: SandboxResult) =>
  readRatios(r).every((ratio) => ratio >= READS_GOAL) &&
  median(r.resetMs) <= RESET_GOAL_MS &&
  median(r.demoStartMs) <= DEMO_START_GOAL_MS

/** The rows' figures, a line each. */
export function sandboxLines(r: SandboxResult): string[] {
  const [list, detail] = readRatios(r)
  const rps = (runs: SandboxResult['on'], k: number) => num(median(runs.map((run) => run[k]!)))
  return [
    `Sandbox on/off, reads at ${num(r.clubs)} clubs: list ${rps(r.on, 0)}/${rps(r.off, 0)} req/s = ${num(list!, 2)}×, ` +
      `detail ${rps(r.on, 1)}/${rps(r.off, 1)} req/s = ${num(detail!, 2)}× (goal ≥ ${READS_GOAL}×: ${readRatios(r).every((x) => x >= READS_GOAL) ? 'met' : 'NOT met'})`,
    `Sandbox reset at ${num(r.resetClubs)} clubs: ${num(median(r.resetMs))} ms median (${r.resetMs.map((ms) => num(ms)).join(', ')}) ` +
      `(goal ≤ ${num(RESET_GOAL_MS)} ms: ${median(r.resetMs) <= RESET_GOAL_MS ? 'met' : 'NOT met'})`,
    `demo:${r.clubs} first start: ${num(median(r.demoStartMs))} ms median (${r.demoStartMs.map((ms) => num(ms)).join(', ')}) ` +
      `(goal ≤ ${num(DEMO_START_GOAL_MS)} ms: ${median(r.demoStartMs) <= DEMO_START_GOAL_MS ? 'met' : 'NOT met'})`,
  ]
}

/** The section of docs/performance.md. */
export function sandboxSection(r: SandboxResult): string[] {
  const [list, detail] = readRatios(r)
  return [
    `## The sandbox (${num(r.clubs)} clubs)`,
    '',
    '| row | figure | goal |',
    '|---|---|---|',
    `| reads with CLUBS_SANDBOX=true, no parameter, against off: list, detail | ${num(list!, 2)}×, ${num(detail!, 2)}× | ≥ ${READS_GOAL}× |`,
    `| POST /api/_sandbox/reset at ${num(r.resetClubs)} clubs, median | ${num(median(r.resetMs))} ms | ≤ ${num(RESET_GOAL_MS)} ms |`,
    `| CLUBS_SEED_FILE=demo:${r.clubs}, first start to the first 200, median | ${num(median(r.demoStartMs))} ms | ≤ ${num(DEMO_START_GOAL_MS)} ms |`,
    '',
    '- bench/sandbox.ts: real servers on a generated campus; reads by wrk with the sandbox off and on in turn,',
    `  ${RUNS} runs each; the reset after five creates, timed from request to answer; the first start from spawn.`,
  ]
}

if (import.meta.main) {
  const tmp = mkdtempSync(join(tmpdir(), 'club-sandbox-'))
  try {
    await benchSandbox(tmp, console.log)
  } finally {
    await stopAll()
    rmSync(tmp, { recursive: true, force: true })
  }
}
