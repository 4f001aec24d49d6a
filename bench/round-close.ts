// Issue 37: closing a re-registration round (docs/reference.md §23) at ROUND_CLOSE_CLUBS clubs (10,000), the
// worst case: no club confirmed, so every one lapses in the close's one commit (each made
// inactive, its history `lapsed`, its removal numbered in the change log, the round closed) and
// one snapshot write. The Store and app in process, as bench/snapshot-write.ts: a fresh copy of
// the data set per run, a round opened through `app.handle`, then the close timed from request to
// answer; the store's commits during it are counted (one). Goal: ≤ 2 s.
//   npx bun bench/round-close.ts    (or as part of npm run bench; about 30 s)
//   ROUND_CLOSE_CLUBS=1000 npx bun bench/round-close.ts
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../src/app'
import { openDataFile } from '../src/data-file'
import { LogoMemory } from '../src/store/logo-store'
import { SEED_FILE, writeDataSet } from './generate'

export const ROUND_CLOSE_CLUBS = Number(process.env.ROUND_CLOSE_CLUBS ?? 10_000)
export const ROUND_CLOSE_GOAL_MS = 2000
/** Runs, each on a fresh copy of the data set; the median is the figure. */
const RUNS = 3
const TOKEN = 'bench-admin-token'

export interface RoundCloseResult {
  readonly clubs: number
  /** How many clubs each close let lapse. */
  readonly lapsed: number
  /** The store's commits during each close. */
  readonly saves: readonly number[]
  readonly closeMs: readonly number[]
}

/** One run: the round opened, then the close timed; answers how long, how many lapsed, how many saves. */
async function closeOnce(dataFile: string) {
  const { store, data } = await openDataFile(dataFile, SEED_FILE)
  const app = createApp({
    store,
    data,
    logos: new LogoMemory(),
    config: { adminToken: TOKEN, autoApprove: false, readOnly: false },
  })
  const post = async (path: string, body?: unknown) => {
    const res = await app.handle(
      new Request(`http://127.0.0.1${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    )
    const json = (await res.json()) as { lapsed?: string[] }
    if (res.status >= 300) throw new Error(`round close bench: POST ${path} answered ${res.status}`)
    return json
  }
  try {
    await post('/api/registration-rounds/', { deadline: new Date().toISOString().slice(0, 10) })
    // Every write is one commit of the store (one journal entry on the data file).
    let saves = 0
    const commit = store.commit
    Object.assign(store, { commit: (apply: Parameters<typeof commit>[0]) => (saves++, commit(apply)) })
    const started = performance.now()
    const { lapsed = [] } = await post('/api/registration-rounds/current/close/')
    const ms = performance.now() - started
    return { ms, lapsed: lapsed.length, saves }
  } finally {
    await store.close()
  }
}

export async function benchRoundClose(tmp: string, say: (line: string) => void): Promise<RoundCloseResult> {
  const dataSet = join(tmp, `round-close-${ROUND_CLOSE_CLUBS}.json`)
  await writeDataSet(ROUND_CLOSE_CLUBS, dataSet)
  const closeMs: number[] = []
  const saves: number[] = []
  let lapsed = 0
  for (let run = 0; run < RUNS; run++) {
    const copy = join(tmp, `round-close-run-${run}.json`)
    copyFileSync(dataSet, copy)
    const done = await closeOnce(copy)
    closeMs.push(done.ms)
    saves.push(done.saves)
    lapsed = done.lapsed
  }
  const result = { clubs: ROUND_CLOSE_CLUBS, lapsed, saves, closeMs }
  say(roundCloseLine(result))
  return result
}

const num = (n: number, digits = 0) =>
  n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits })
const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

export const roundCloseMs = (r: RoundCloseResult) => median(r.closeMs)
export const roundCloseMet = (r: RoundCloseResult) =>
  roundCloseMs(r) <= ROUND_CLOSE_GOAL_MS && r.saves.every((n) => n === 1) && r.lapsed === r.clubs

/** The row's figures, in one line. */
export function roundCloseLine(r: RoundCloseResult): string {
  return (
    `Closing a round at ${num(r.clubs)} clubs (${num(r.lapsed)} lapse): ${num(roundCloseMs(r))} ms median ` +
    `(${r.closeMs.map((ms) => num(ms)).join(', ')}), saves per close ${r.saves.join(', ')} ` +
    `(goal ≤ ${num(ROUND_CLOSE_GOAL_MS)} ms in one write: ${roundCloseMet(r) ? 'met' : 'NOT met'})`
  )
}

/** The section of docs/performance.md. */
export function roundCloseSection(r: RoundCloseResult): string[] {
  return [
    `## Closing a re-registration round (${num(r.clubs)} clubs)`,
    '',
    '| clubs | lapsed | close, median | runs | saves per close |',
    '|---|---|---|---|---|',
    `| ${num(r.clubs)} | ${num(r.lapsed)} | ${num(roundCloseMs(r))} ms | ${r.closeMs.map((ms) => num(ms)).join(', ')} ms | ${r.saves.join(', ')} |`,
    '',
    '- bench/round-close.ts: the Store and app in process; a fresh copy of the data set per run, a round opened,',
    '  no club confirmed, then `POST /api/registration-rounds/current/close/` timed through `app.handle`: every',
    "  club lapses in the close's one commit (history, change log, the round) and one snapshot write.",
  ]
}

if (import.meta.main) {
  const tmp = mkdtempSync(join(tmpdir(), 'club-round-close-'))
  try {
    await benchRoundClose(tmp, console.log)
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}
