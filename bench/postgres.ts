// Issue 28: several instances on one PostgreSQL (docs/reference.md §19), beside one node on the data file.
// (1) Replication lag: a club PATCHed on instance A, one write after another, timed from A's
// answer until B's change stream has its event. Goal: p99 ≤ 100 ms. (2) Reads: the list and one club on an
// instance on the database and one on the data file, same data set, runs alternating. Goal: each
// ≥ 0.9× the data file's. (3) Creates one after another at 10,000 and BENCH_SCALE clubs on
// either store. (4) The 95/5 mix at 10,000 clubs: one node on the data file, one instance on the
// database, and two on the database loaded at once (req/s summed).
// PostgreSQL is Debian's, started as the tests start it (harness/postgres.ts), fsync on.
//   npx bun bench/postgres.ts            (or as part of npm run bench)
//   BENCH_POSTGRES=0 skips; BENCH_POSTGRES_WRITES=200 BENCH_POSTGRES_CREATES=100 BENCH_SCALE=100000
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startPostgres, type Postgres } from '../harness/postgres'
import { lastSeq, patch, RawStream } from './change-streams'
import { dataSetIn } from './generate'
import { DURATION_S, measure, settler, WARMUP_S, type LoadOf, type Measured } from './measure'
import { sleep, stopAll } from './procs'
import { create, SCALE } from './scale'
import { ADMIN_TOKEN, startOurs, startOursOnDatabase, type Server } from './servers'
import { percentiles, type Percentiles } from './webhook-fanout'
import { wrk, type WrkResult } from './wrk'

export const POSTGRES_ROWS = process.env.BENCH_POSTGRES !== '0'
const WRITES = Number(process.env.BENCH_POSTGRES_WRITES ?? 200)
const CREATES = Number(process.env.BENCH_POSTGRES_CREATES ?? 100)
const LAG_CLUBS = 1_000
const READ_SIZES = [1_000, 10_000]
const READ_ROUNDS = 3
const MIX_CLUBS = 10_000
export const GOAL_REPLICATION_P99_MS = 100
export const GOAL_READ_RATIO = 0.9

export interface PostgresResult {
  readonly lag: {
    readonly clubs: number
    readonly writes: number
    /** From sending the PATCH to A until B's change stream had its event. */
    readonly visible: Percentiles
    /** From A's answer until B's change stream had the event. */
    readonly afterAnswer: Percentiles
    /** The PATCH on A, request to answer. */
    readonly write: Percentiles
  }
  readonly reads: readonly {
    readonly clubs: number
    readonly key: 'list' | 'retrieve'
    readonly file: Measured
    readonly database: Measured
  }[]
  readonly creates: readonly {
    readonly clubs: number
    readonly creates: number
    readonly file: Percentiles
    /** Null when the instance on the database did not start (`failure` says why). */
    readonly database: Percentiles | null
    /** Spawn to first 200 over an empty database (loading the data set), and over the one it left. */
    readonly databaseFirstStartMs: number | null
    readonly databaseRestartMs: number | null
    readonly failure: string | null
  }[]
  readonly mix: {
    readonly clubs: number
    readonly file: WrkResult
    readonly oneInstance: WrkResult
    /** Each instance's run, both loaded at once. */
    readonly twoInstances: readonly WrkResult[]
    readonly clubsCreated: number
  }
}

/** An instance on a new database of `pg` loaded with `seed`, and a further one on that database for each of `more`. */
async function onDatabase(pg: Postgres, seed: string, log: string, more = 0): Promise<Server[]> {
  const url = await pg.createDatabase()
  const first = await startOursOnDatabase(url, seed, `${log}-a`)
  const servers = [first]
  try {
    for (let i = 1; i <= more; i++) servers.push(await startOursOnDatabase(url, seed, `${log}-${i}`))
    return servers
  } catch (error) {
    await Promise.all(servers.map((s) => s.stop()))
    throw error
  }
}

async function lag(pg: Postgres, tmp: string, say: (line: string) => void): Promise<PostgresResult['lag']> {
  const [a, b] = await onDatabase(pg, await dataSetIn(tmp, LAG_CLUBS), join(tmp, 'pg-lag'), 1)
  try {
    const stream = await RawStream.open(Number(new URL(b!.base).port), await lastSeq(b!.base))
    await sleep(500)
    const visible: number[] = []
    const afterAnswer: number[] = []
    const write: number[] = []
    for (let i = 0; i < WRITES; i++) {
      const sent = performance.now()
      const res = await patch(a!.base, `Lag ${i} ${Date.now()}`)
      await res.arrayBuffer()
      const answered = performance.now()
      if (res.status !== 200) throw new Error(`a write on A answered ${res.status}`)
      const seq = await lastSeq(a!.base)
      const deadline = performance.now() + 10_000
      while (!stream.seen.has(seq) && performance.now() < deadline) await sleep(1)
      const seen = stream.seen.get(seq)
      if (seen === undefined) throw new Error(`B's change stream never had event ${seq}`)
      visible.push(seen - sent)
      afterAnswer.push(seen - answered)
      write.push(answered - sent)
      // Off the beat of the instances' 500 ms poll.
      await sleep(5 + Math.random() * 20)
    }
    stream.close()
    const result = {
      clubs: LAG_CLUBS,
      writes: WRITES,
      visible: percentiles(visible),
      afterAnswer: percentiles(afterAnswer),
      write: percentiles(write),
    }
    say(lagLine(result))
    return result
  } finally {
    await Promise.all([a!.stop(), b!.stop()])
  }
}

export const lagLine = ({ writes, visible, afterAnswer, write }: PostgresResult['lag']) =>
  `p99 ${afterAnswer.p99.toFixed(1)} ms (p50 ${afterAnswer.p50.toFixed(1)}, max ${afterAnswer.max.toFixed(1)}) from A's answer to the event on B's stream, ` +
  `over ${writes} writes; from sending the write p50 ${visible.p50.toFixed(1)}, p99 ${visible.p99.toFixed(1)} ms; the write itself p50 ${write.p50.toFixed(1)}, p99 ${write.p99.toFixed(1)} ms`

/** The list and one club at `size` clubs on either store, both up at once, the runs alternating. */
async function reads(pg: Postgres, tmp: string, size: number, say: (line: string) => void) {
  const seed = await dataSetIn(tmp, size)
  const file = await startOurs(seed, join(tmp, `pg-reads-${size}.json`))
  const [database] = await onDatabase(pg, seed, join(tmp, `pg-reads-${size}`)).catch(async (error) => {
    await file.stop()
    throw error
  })
  try {
    const list = (await (await fetch(`${file.base}/api/clubs/`)).json()) as { code: string }[]
    const code = list[Math.floor(list.length / 2)]!.code
    const rows: PostgresResult['reads'][number][] = []
    for (const [key, path] of [
      ['list', '/api/clubs/'],
      ['retrieve', `/api/clubs/${code}/`],
    ] as const) {
      const run = (server: Server) => {
        const load: LoadOf = () => ({ url: server.base + path })
        return measure(server.child.pid, load, settler(`${server.base}/health`), 1)
      }
      // Noise only takes throughput away: each keeps its best run, in rounds that alternate which goes first.
      const runs = { file: [] as Measured[], database: [] as Measured[] }
      for (let round = 0; round < READ_ROUNDS; round++)
        for (const store of round % 2 ? (['database', 'file'] as const) : (['file', 'database'] as const))
          runs[store].push(await run(store === 'file' ? file : database!))
      const best = (all: Measured[]) => all.reduce((a, b) => (a.rps >= b.rps ? a : b))
      const row = { clubs: size, key, file: best(runs.file), database: best(runs.database) }
      rows.push(row)
      say(
        `    ${key} at ${size} clubs: database ${row.database.rps.toFixed(0)} req/s, data file ${row.file.rps.toFixed(0)} req/s = ` +
          `${(row.database.rps / row.file.rps).toFixed(2)}×`,
      )
    }
    return rows
  } finally {
    await Promise.all([file.stop(), database!.stop()])
  }
}

async function creates(pg: Postgres, tmp: string, size: number, say: (line: string) => void) {
  const seed = await dataSetIn(tmp, size)
  const times = async (server: Server) => {
    const ms: number[] = []
    for (let n = 1; n <= CREATES; n++) ms.push(await create(server, n))
    return percentiles(ms)
  }
  const fileServer = await startOurs(seed, join(tmp, `pg-creates-${size}.json`))
  const file = await times(fileServer).finally(() => fileServer.stop())
  const url = await pg.createDatabase()
  const log = join(tmp, `pg-creates-${size}`)
  const failed = async (which: string) => {
    const err = await Bun.file(`${which}.err`)
      .text()
      .catch(() => '')
    return err.trim().split('\n').at(-1) || `see ${which}.err`
  }
  let row: PostgresResult['creates'][number]
  try {
    const first = await startOursOnDatabase(url, seed, log)
    const database = await times(first).finally(() => first.stop())
    const again = await startOursOnDatabase(url, seed, `${log}-restart`)
    await again.stop()
    const [databaseFirstStartMs, databaseRestartMs] = [first.startupMs, again.startupMs]
    row = { clubs: size, creates: CREATES, file, database, databaseFirstStartMs, databaseRestartMs, failure: null }
  } catch {
    // A product problem the bench shows rather than hides: the row says why.
    const failure = await failed(existsSync(`${log}-restart.err`) ? `${log}-restart` : log)
    row = {
      clubs: size,
      creates: CREATES,
      file,
      database: null,
      databaseFirstStartMs: null,
      databaseRestartMs: null,
      failure,
    }
  }
  say(`    ${CREATES} creates at ${size} clubs: ${createsLine(row)}`)
  return row
}

export function createsLine(row: PostgresResult['creates'][number]): string {
  const ms = (n: number | null) => `${(n ?? NaN).toFixed(1)} ms`
  const onFile = `data file p50 ${ms(row.file.p50)}, p99 ${ms(row.file.p99)}`
  if (!row.database) return `${onFile}; the instance on the database did not start: ${row.failure}`
  return (
    `database p50 ${ms(row.database.p50)}, p99 ${ms(row.database.p99)}; ${onFile} ` +
    `(database first start ${ms(row.databaseFirstStartMs)}, restart ${ms(row.databaseRestartMs)})`
  )
}

const clubsOn = async (server: Server) =>
  ((await (await fetch(`${server.base}/health`)).json()) as { clubs: number }).clubs

/** The mix of bench/ours.ts on each of `servers` at once: a warm-up, then a measured run; each wrk 2 threads and 50 connections shared out. */
async function mixOn(servers: readonly Server[], tag: string, code: string): Promise<WrkResult[]> {
  const paths = ['/api/clubs/', '/api/clubs/?page=2&page_size=20', '/api/clubs/?search=chess', `/api/clubs/${code}/`]
  const run = (seconds: number, phase: string) =>
    Promise.all(
      servers.map((server, i) =>
        wrk({
          url: `${server.base}/api/clubs/`,
          script: 'mix.lua',
          args: [`${tag}${phase}i${i}`, ADMIN_TOKEN, '/api/clubs/', ...paths],
          seconds,
          threads: 2 / servers.length,
          connections: 50 / servers.length,
        }),
      ),
    )
  const settle = () => Promise.all(servers.map((server) => settler(`${server.base}/health`)()))
  await run(WARMUP_S, 'w')
  await settle()
  const measured = await run(DURATION_S, 'm')
  await settle()
  return measured.map(({ cpuMs: _, ...result }) => result)
}

async function mix(pg: Postgres, tmp: string, say: (line: string) => void): Promise<PostgresResult['mix']> {
  const seed = await dataSetIn(tmp, MIX_CLUBS)
  const fileServer = await startOurs(seed, join(tmp, `pg-mix-${MIX_CLUBS}.json`))
  const list = (await (await fetch(`${fileServer.base}/api/clubs/?page_size=1`)).json()) as { code: string }[]
  const code = list[0]?.code ?? 'penn-chess-society'
  const [file] = await mixOn([fileServer], 'pgmf', code).finally(() => fileServer.stop())
  const servers = await onDatabase(pg, seed, join(tmp, `pg-mix-${MIX_CLUBS}`), 1)
  try {
    const [one] = await mixOn(servers.slice(0, 1), 'pgm1', code)
    const before = await clubsOn(servers[0]!)
    const two = await mixOn(servers, 'pgm2', code)
    // Both instances hold every club either created once the other has applied it.
    await sleep(1_000)
    const after = await Promise.all(servers.map(clubsOn))
    if (after[0] !== after[1]) throw new Error(`the two instances hold ${after.join(' and ')} clubs`)
    const result = {
      clubs: MIX_CLUBS,
      file: file!,
      oneInstance: one!,
      twoInstances: two,
      clubsCreated: after[0]! - before,
    }
    say(mixLine(result))
    return result
  } finally {
    await Promise.all(servers.map((s) => s.stop()))
  }
}

export const mixLine = (m: PostgresResult['mix']) => {
  const sum = m.twoInstances.reduce((total, r) => total + r.rps, 0)
  const errors = [m.file, m.oneInstance, ...m.twoInstances].reduce((n, r) => n + r.non2xx3xx + r.socketErrors, 0)
  return (
    `${sum.toFixed(0)} req/s on two instances on the database (${m.twoInstances.map((r) => r.rps.toFixed(0)).join(' + ')}), ` +
    `${m.oneInstance.rps.toFixed(0)} on one, ${m.file.rps.toFixed(0)} on one node on the data file; ` +
    `${m.clubsCreated} clubs created on the two, ${errors} errors`
  )
}

export async function benchPostgres(tmp: string, say: (line: string) => void): Promise<PostgresResult> {
  say('PostgreSQL (issue 28)')
  const pg = await startPostgres()
  try {
    say(`  replication lag: ${WRITES} writes on A, B's change stream`)
    const lagResult = await lag(pg, tmp, say)
    say('  reads: an instance on the database beside one on the data file')
    const readRows = []
    for (const size of READ_SIZES) readRows.push(...(await reads(pg, tmp, size, say)))
    say('  creates, one after another')
    const createRows = []
    for (const size of [...new Set([10_000, SCALE].filter(Boolean))]) createRows.push(await creates(pg, tmp, size, say))
    say(`  the 95/5 mix at ${MIX_CLUBS} clubs`)
    const mixResult = await mix(pg, tmp, say)
    return { lag: lagResult, reads: readRows, creates: createRows, mix: mixResult }
  } finally {
    await pg.stop()
  }
}

if (import.meta.main) {
  const tmp = mkdtempSync(join(tmpdir(), 'club-bench-postgres-'))
  try {
    console.log(JSON.stringify(await benchPostgres(tmp, console.log)))
  } finally {
    await stopAll()
    rmSync(tmp, { recursive: true, force: true })
  }
}
