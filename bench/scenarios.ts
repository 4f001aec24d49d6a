// Everything measured at one data-set size: the in-process snapshot write, OURS, CEILING, json-server.
import { join } from 'node:path'
import { benchCeiling, benchJsonServer } from './baselines'
import { Recorder, type Scenario } from './measure'
import { benchOurs } from './ours'
import { benchUnderReview } from './review'
import { benchSmallAnswers } from './small-answers'
import { benchSpreadsheets, type SpreadsheetResult } from './spreadsheets'
import { calmer } from './cpu'
import { capture } from './procs'
import { ROOT } from './servers'

const SNAPSHOT_CREATES = 15
/** The size at which 10% of the clubs are put under review (docs/reference.md §11). */
const REVIEW_AT = 1000
/** The size at which the CSV export and an import of 1,000 rows are measured (docs/reference.md §15). */
const SPREADSHEETS_AT = 10_000

export interface SizeResult {
  readonly size: number
  /** Share of the CPUs busy with other work in the second before this size began (0–1). */
  readonly backgroundCpu: number
  readonly scenarios: Scenario[]
  readonly startupMs: number[]
  /** OURS: once started, peaks during and after the list load, all reads, the writes; CEILING: its list load. */
  readonly rssMb: { started: number; list: number; reads: number; writes: number; ceiling: number }
  readonly snapshotWrite: { medianMs: number; minMs: number; maxMs: number; creates: number }
  readonly dataBytes: number
  readonly listBytes: number
  readonly gzip: { plain: number; gzip: number } | null
  /** The CSV export's first answer and an import, at SPREADSHEETS_AT only. */
  readonly spreadsheets: SpreadsheetResult | null
}

/** bench/snapshot-write.ts over a copy of the data set, before any server runs. */
async function snapshotWrite(dataSet: string, copy: string): Promise<SizeResult['snapshotWrite']> {
  await Bun.write(copy, Bun.file(dataSet))
  const script = join(import.meta.dir, 'snapshot-write.ts')
  const { stdout } = await capture([process.execPath, script, copy, String(SNAPSHOT_CREATES)], {
    cwd: ROOT,
    timeoutMs: 120_000,
  })
  return JSON.parse(stdout)
}

export async function benchSize(size: number, dataSet: string, tmp: string, say: (line: string) => void) {
  // Give other work on the machine up to 15 s to calm down: it skews every figure.
  const backgroundCpu = await calmer()
  say(`  other work on the machine: ${(100 * backgroundCpu).toFixed(0)}% of the CPUs`)
  const write = await snapshotWrite(dataSet, join(tmp, `snapshot-${size}.json`))
  say(`  snapshot write: median ${write.medianMs.toFixed(1)} ms per create`)

  const rec = new Recorder(say)
  const ours = await benchOurs(size, dataSet, tmp, rec)
  const listFile = join(tmp, `list-${size}.json`)
  await Bun.write(listFile, ours.listBody)
  const rssCeiling = await benchCeiling(listFile, rec)
  await benchJsonServer(join(tmp, `json-server-${size}`), ours.list, ours.code, rec)
  if (size === REVIEW_AT) await benchUnderReview(size, tmp, rec)
  if (size === REVIEW_AT) await benchSmallAnswers(size, dataSet, tmp, rec)
  const spreadsheets = size === SPREADSHEETS_AT ? await benchSpreadsheets(size, dataSet, tmp, rec) : null

  return {
    size,
    backgroundCpu,
    scenarios: rec.scenarios,
    startupMs: ours.startupMs,
    rssMb: { ...ours.rssMb, ceiling: rssCeiling },
    snapshotWrite: write,
    dataBytes: Bun.file(dataSet).size,
    listBytes: ours.listBody.length,
    gzip: ours.gzip,
    spreadsheets,
  } satisfies SizeResult
}
