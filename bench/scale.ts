// The scale profile (issue 18): one node at BENCH_SCALE clubs (100,000 unless told): the data
// file the service writes, a first start and a restart, RSS idle and after five creates, and
// what each create takes, since every write rewrites the whole snapshot.
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { writeDataSet } from './generate'
import { rssMb, sampleRss, sleep } from './procs'
import { ADMIN_TOKEN, startOurs, startOursOn, type Server } from './servers'

export const SCALE = Number(process.env.BENCH_SCALE ?? 100_000)
const CREATES = 5
/** Time for the heap to settle (a collection, memory handed back) before RSS is read. */
const SETTLE_MS = 3000

export interface ScaleResult {
  readonly clubs: number
  /** The data file as the service writes it. */
  readonly fileMb: number
  readonly firstStartMs: number
  readonly restartMs: number
  readonly rssIdleMb: number
  /** Highest RSS while the creates were written. */
  readonly rssPeakMb: number
  /** Settled RSS after the creates. */
  readonly rssAfterMb: number
  readonly rssRestartIdleMb: number
  readonly createMs: readonly number[]
}

async function settledRss(server: Server): Promise<number> {
  await sleep(SETTLE_MS)
  return (await rssMb(server.child.pid)) ?? 0
}

/** One create with the admin token, waited for; its time from request to answer (ms). */
export async function create(server: Server, n: number): Promise<number> {
  const started = performance.now()
  const res = await fetch(`${server.base}/api/clubs/`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: `Scale Profile Club ${n}`, description: 'Created by npm run bench.' }),
  })
  await res.arrayBuffer()
  if (res.status !== 201) throw new Error(`scale profile: create answered ${res.status}`)
  return performance.now() - started
}

export async function benchScale(tmp: string, say: (line: string) => void): Promise<ScaleResult> {
  const dataSet = join(tmp, `clubs-${SCALE}.json`)
  await writeDataSet(SCALE, dataSet)
  const file = join(tmp, `scale-${SCALE}.json`)
  const first = await startOurs(dataSet, file)
  let result: Omit<ScaleResult, 'fileMb' | 'restartMs' | 'rssRestartIdleMb'>
  try {
    const rssIdleMb = await settledRss(first)
    const sampler = sampleRss(first.child.pid)
    const createMs: number[] = []
    for (let n = 1; n <= CREATES; n++) createMs.push(await create(first, n))
    const rssPeakMb = await sampler.stop()
    const rssAfterMb = await settledRss(first)
    result = { clubs: SCALE, firstStartMs: first.startupMs, rssIdleMb, rssPeakMb, rssAfterMb, createMs }
  } finally {
    await first.stop()
  }
  const restart = await startOursOn(file)
  try {
    const scale = {
      ...result,
      fileMb: statSync(file).size / 1e6,
      restartMs: restart.startupMs,
      rssRestartIdleMb: await settledRss(restart),
    }
    say(
      `  ${scale.clubs} clubs: file ${scale.fileMb.toFixed(0)} MB, first start ${scale.firstStartMs.toFixed(0)} ms, restart ${scale.restartMs.toFixed(0)} ms, ` +
        `RSS idle ${scale.rssIdleMb.toFixed(0)} MB, peak ${scale.rssPeakMb.toFixed(0)} MB and ${scale.rssAfterMb.toFixed(0)} MB after ${CREATES} creates ` +
        `(${scale.createMs.map((ms) => ms.toFixed(0)).join(', ')} ms)`,
    )
    return scale
  } finally {
    await restart.stop()
  }
}
