// Issue 40: creates one after another on the data file at 1,000, 10,000 and BENCH_SCALE clubs
// (100,000 unless told), against a real server: each create waits for its answer before the next,
// so each is timed alone. While every write rewrites the whole snapshot a create's time grows
// with the directory; with a journal it should not. Goals: p50 at the largest size ≤ 2× that at
// 1,000 clubs, p99 ≤ 3×.
//   npx bun bench/creates-by-size.ts     (or as part of npm run bench; about 3 minutes)
//   BENCH_CREATES=200 creates per size (0 skips the rows); BENCH_SCALE=10000 the largest size (0 leaves it out)
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { calmer, otherWork } from './cpu'
import { dataSetIn } from './generate'
import { stopAll } from './procs'
import { create, SCALE } from './scale'
import { startOursOn } from './servers'
import { target, targetLine, type Target } from './targets'
import { percentiles, type Percentiles } from './webhook-fanout'

export const CREATES_BY_SIZE = Number(process.env.BENCH_CREATES ?? 200)
const SIZES = [...new Set([1_000, 10_000, SCALE].filter(Boolean))].sort((a, b) => a - b)
/** Creates before the timed ones, after each start: the first writes after a start do work the later ones do not. */
const WARM_UP = 5
/** Rounds that alternate the sizes, each a start and a share of the creates at every size. */
const ROUNDS = 4
const GOAL_P50_RATIO = 2
const GOAL_P99_RATIO = 3

export interface CreatesBySizeResult {
  readonly creates: number
  readonly rounds: number
  /** Creates after each start before the timed ones, not counted. */
  readonly warmUp: number
  readonly sizes: readonly {
    readonly clubs: number
    readonly times: Percentiles
    /** Share of all CPUs (0–1) other work took while the creates ran. */
    readonly otherCpu: number
  }[]
}

export async function benchCreatesBySize(tmp: string, say: (line: string) => void): Promise<CreatesBySizeResult> {
  say(`Creates one after another on the data file (issue 40): ${CREATES_BY_SIZE} at each size, in ${ROUNDS} rounds`)
  const files = SIZES.map((clubs) => join(tmp, `creates-by-size-${clubs}.json`))
  for (const [i, clubs] of SIZES.entries()) copyFileSync(await dataSetIn(tmp, clubs), files[i]!)
  const timed = SIZES.map((): number[] => [])
  const otherCpu = SIZES.map(() => 0)
  let n = 0
  // Rounds alternate the sizes, so that each meets the machine as it is at the time; one server
  // is up at a time, so that none does work in the background while another is timed.
  for (let round = 0; round < ROUNDS; round++) {
    // Up to 15 s for other work to calm down: a create timed alone feels all of it.
    await calmer()
    for (const [i, file] of files.entries()) {
      const server = await startOursOn(file)
      try {
        for (let w = 0; w < WARM_UP; w++) await create(server, ++n)
        const other = await otherWork(server.child.pid)
        const batch = Math.ceil(CREATES_BY_SIZE / ROUNDS)
        for (let c = 0; c < batch && timed[i]!.length < CREATES_BY_SIZE; c++) timed[i]!.push(await create(server, ++n))
        otherCpu[i]! += (await other.stop(0)) / ROUNDS
      } finally {
        await server.stop()
      }
    }
  }
  const sizes = SIZES.map((clubs, i) => ({ clubs, times: percentiles(timed[i]!), otherCpu: otherCpu[i]! }))
  for (const row of sizes) say(`  ${createsRowLine(row)}`)
  return { creates: CREATES_BY_SIZE, rounds: ROUNDS, warmUp: WARM_UP, sizes }
}

const ms = (n: number) => `${n.toFixed(1)} ms`
const clubsText = (n: number) => n.toLocaleString('en')

const createsRowLine = ({ clubs, times, otherCpu }: CreatesBySizeResult['sizes'][number]) =>
  `${clubsText(clubs)} clubs: p50 ${ms(times.p50)}, p99 ${ms(times.p99)}, max ${ms(times.max)} ` +
  `(other work ${(100 * otherCpu).toFixed(0)}% of the CPUs)`

/** p50 and p99 at the largest size measured against those at 1,000 clubs. */
export function createsGoals(result: CreatesBySizeResult | null): Target[] {
  const small = result?.sizes.find((row) => row.clubs === 1_000)
  const large = result?.sizes.at(-1)
  const big = large && small && large.clubs > small.clubs ? large : undefined
  const at = clubsText(big?.clubs ?? 100_000)
  return (['p50', 'p99'] as const).map((p) => {
    const goal = p === 'p50' ? GOAL_P50_RATIO : GOAL_P99_RATIO
    return target(
      `Creates one after another on the data file: ${p} at ${at} clubs ≤ ${goal}× that at 1,000 (issue 40)`,
      !!big,
      () => big!.times[p] <= goal * small!.times[p],
      () => `${ms(big!.times[p])} vs ${ms(small!.times[p])} = ${(big!.times[p] / small!.times[p]).toFixed(1)}×`,
    )
  })
}

if (import.meta.main) {
  const tmp = mkdtempSync(join(tmpdir(), 'club-creates-by-size-'))
  try {
    const result = await benchCreatesBySize(tmp, console.log)
    for (const goal of createsGoals(result)) console.log(targetLine(goal))
  } finally {
    await stopAll()
    rmSync(tmp, { recursive: true, force: true })
  }
}
