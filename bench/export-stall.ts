// Issue 24 §5: does building spreadsheets hold the event loop? With 20,000 clubs, eight anonymous
// exports at once (four XLSX, four CSV, each a different ordering, and each request a new query,
// so no answer cache can serve it), how long does /health take? The baseline is /health on the
// same idle server. Goal: p99 at most 50 ms under the exports.
//   npx bun bench/export-stall.ts            (or as part of npm run bench)
//   EXPORT_STALL_CLUBS=20000 EXPORT_STALL_SECONDS=15
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeDataSet } from './generate'
import { sleep, stopAll } from './procs'
import { startOurs } from './servers'

export const STALL_CLUBS = Number(process.env.EXPORT_STALL_CLUBS ?? 20_000)
const SECONDS = Number(process.env.EXPORT_STALL_SECONDS ?? 15)
const EXPORTERS = 8
const ORDERINGS = ['name', '-name', 'founded', '-founded', 'size', '-size', 'code', '-code']
export const GOAL_P99_MS = 50

export interface ExportStallResult {
  readonly clubs: number
  readonly seconds: number
  readonly idle: Latencies
  readonly loaded: Latencies
  /** Exports answered (200, whole body read) while /health was probed. */
  readonly exports: number
  readonly exportMs: { readonly p50: number; readonly max: number }
}

export interface Latencies {
  readonly probes: number
  readonly p50: number
  readonly p99: number
  readonly max: number
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

function latencies(samples: number[]): Latencies {
  const sorted = [...samples].sort((a, b) => a - b)
  return { probes: sorted.length, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), max: sorted.at(-1)! }
}

/** /health, one request every 10 ms, until `running()` says stop: each one's time in ms. */
async function probe(base: string, running: () => boolean): Promise<number[]> {
  const samples: number[] = []
  while (running()) {
    const start = performance.now()
    const res = await fetch(`${base}/health`)
    await res.arrayBuffer()
    samples.push(performance.now() - start)
    await sleep(10)
  }
  return samples
}

export async function benchExportStall(tmp: string, say: (line: string) => void): Promise<ExportStallResult> {
  const dataSet = join(tmp, `export-stall-${STALL_CLUBS}.json`)
  await writeDataSet(STALL_CLUBS, dataSet)
  const server = await startOurs(dataSet, join(tmp, 'export-stall-db.json'))
  try {
    const idleUntil = performance.now() + 3000
    const idle = latencies(await probe(server.base, () => performance.now() < idleUntil))

    let query = 0
    const exportTimes: number[] = []
    const until = performance.now() + SECONDS * 1000
    const running = () => performance.now() < until
    const exporter = async (n: number) => {
      const format = n % 2 === 0 ? 'xlsx' : 'csv'
      while (running()) {
        // A moment earlier each time: every club still matches, and the answer cache has never seen the query.
        const since = new Date(Date.UTC(2000, 0, 1) - ++query * 1000).toISOString()
        const start = performance.now()
        const res = await fetch(
          `${server.base}/api/clubs/?format=${format}&ordering=${ORDERINGS[n]}&updated_since=${since}`,
        )
        await res.arrayBuffer()
        if (res.status !== 200) throw new Error(`export answered ${res.status}`)
        exportTimes.push(performance.now() - start)
      }
    }
    const [samples] = await Promise.all([
      probe(server.base, running),
      ...Array.from({ length: EXPORTERS }, (_, n) => exporter(n)),
    ])
    const sortedExports = [...exportTimes].sort((a, b) => a - b)
    const result: ExportStallResult = {
      clubs: STALL_CLUBS,
      seconds: SECONDS,
      idle,
      loaded: latencies(samples),
      exports: exportTimes.length,
      exportMs: { p50: quantile(sortedExports, 0.5) ?? 0, max: sortedExports.at(-1) ?? 0 },
    }
    say(exportStallLine(result))
    return result
  } finally {
    await server.stop()
  }
}

export function exportStallLine(r: ExportStallResult): string {
  const ms = (n: number) => `${n.toFixed(1)} ms`
  return (
    `Export stall (${r.clubs.toLocaleString('en')} clubs, ${EXPORTERS} XLSX/CSV exports at once for ${r.seconds} s): ` +
    `/health p50 ${ms(r.loaded.p50)}, p99 ${ms(r.loaded.p99)}, max ${ms(r.loaded.max)} over ${r.loaded.probes} probes ` +
    `(idle: p99 ${ms(r.idle.p99)}; goal p99 ≤ ${GOAL_P99_MS} ms: ${r.loaded.p99 <= GOAL_P99_MS ? 'met' : 'NOT met'}); ` +
    `${r.exports} exports, p50 ${ms(r.exportMs.p50)}, max ${ms(r.exportMs.max)}`
  )
}

if (import.meta.main) {
  const tmp = mkdtempSync(join(tmpdir(), 'club-export-stall-'))
  try {
    await benchExportStall(tmp, console.log)
  } finally {
    await stopAll()
    rmSync(tmp, { recursive: true, force: true })
  }
}
