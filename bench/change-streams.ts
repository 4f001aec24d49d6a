// Issue 27: the change stream. (1) With STREAMS_OPEN (1,000) streams open, how long from a write's
// acknowledgement until the last stream has its event? Goal: p99 ≤ 100 ms. (2) What does an idle
// stream cost the server? STREAMS_IDLE (10,000) are opened and held; the RSS growth over the
// server's own RSS before them, per stream. Goal: a few KB each.
//   npx bun bench/change-streams.ts            (or as part of npm run bench)
//   STREAMS_OPEN=1000 STREAMS_IDLE=10000 STREAMS_WRITES=50
import type { Socket } from 'bun'
import { join } from 'node:path'
import { writeDataSet } from './generate'
import { HOST, rssMb, sleep } from './procs'
import { ADMIN_TOKEN, startOurs } from './servers'

export const STREAMS_OPEN = Number(process.env.STREAMS_OPEN ?? 1_000)
const STREAMS_IDLE = Number(process.env.STREAMS_IDLE ?? 10_000)
const WRITES = Number(process.env.STREAMS_WRITES ?? 50)
const CLUBS = 1_000
export const GOAL_LAG_P99_MS = 100
export const GOAL_IDLE_KB = 8

export interface ChangeStreamsResult {
  readonly streams: number
  readonly writes: number
  /** From each write's 200 to the moment the last of the streams had its event, in ms. */
  readonly lag: { readonly p50: number; readonly p99: number; readonly max: number }
  readonly idle: {
    readonly streams: number
    readonly rssBeforeMb: number
    readonly rssAfterMb: number
    readonly kbEach: number
  }
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

/** A stream opened over a plain socket (no client-side connection limit), noting when each event id arrives. */
export class RawStream {
  #tail = ''
  readonly seen = new Map<number, number>()
  socket: Socket | null = null

  static async open(port: number, since: number): Promise<RawStream> {
    const stream = new RawStream()
    stream.socket = await Bun.connect({
      hostname: HOST,
      port,
      socket: {
        data: (_socket, data) => stream.#read(data.toString()),
      },
    })
    stream.socket.write(`GET /api/changes/stream?since=${since} HTTP/1.1\r\nHost: ${HOST}:${port}\r\n\r\n`)
    return stream
  }

  #read(text: string) {
    const now = performance.now()
    const all = this.#tail + text
    for (const match of all.matchAll(/^id: (\d+)$/gm))
      if (!this.seen.has(Number(match[1]))) this.seen.set(Number(match[1]), now)
    this.#tail = all.slice(-64)
  }

  close() {
    this.socket?.end()
  }
}

async function openAll(port: number, count: number, since: number): Promise<RawStream[]> {
  const streams: RawStream[] = []
  // A few hundred at a time: the listen backlog is finite.
  for (let i = 0; i < count; i += 250)
    streams.push(
      ...(await Promise.all(Array.from({ length: Math.min(250, count - i) }, () => RawStream.open(port, since)))),
    )
  return streams
}

export const patch = (base: string, subtitle: string) =>
  fetch(`${base}/api/clubs/penn-chess-society/`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ subtitle }),
  })

export async function lastSeq(base: string): Promise<number> {
  return (await (await fetch(`${base}/api/changes/?limit=1`)).json()).last_seq
}

export async function benchChangeStreams(tmp: string, say: (line: string) => void): Promise<ChangeStreamsResult> {
  const dataSet = join(tmp, `streams-${CLUBS}.json`)
  await writeDataSet(CLUBS, dataSet)
  const server = await startOurs(dataSet, join(tmp, 'streams-db.json'), 'warn', {
    CLUBS_MAX_STREAMS: String(Math.max(STREAMS_OPEN, STREAMS_IDLE) + 10),
  })
  const port = Number(new URL(server.base).port)
  try {
    say(`  change streams: ${STREAMS_OPEN} open, ${WRITES} writes`)
    const streams = await openAll(port, STREAMS_OPEN, await lastSeq(server.base))
    await sleep(500)
    const lags: number[] = []
    for (let i = 0; i < WRITES; i++) {
      const res = await patch(server.base, `Lag ${i} ${Date.now()}`)
      const acknowledged = performance.now()
      if (res.status !== 200) throw new Error(`a write answered ${res.status}`)
      const seq = await lastSeq(server.base)
      const deadline = performance.now() + 10_000
      while (streams.some((s) => !s.seen.has(seq)) && performance.now() < deadline) await sleep(1)
      const missing = streams.filter((s) => !s.seen.has(seq)).length
      if (missing) throw new Error(`${missing} streams never got event ${seq}`)
      lags.push(Math.max(...streams.map((s) => s.seen.get(seq)!)) - acknowledged)
      await sleep(20)
    }
    for (const stream of streams) stream.close()
    const sorted = lags.sort((a, b) => a - b)
    const lag = { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), max: sorted.at(-1)! }
    say(`    lag p50 ${lag.p50.toFixed(1)} ms, p99 ${lag.p99.toFixed(1)} ms, max ${lag.max.toFixed(1)} ms`)

    await sleep(1_000)
    Bun.gc(true)
    const rssBeforeMb = (await rssMb(server.child.pid))!
    say(`  change streams: ${STREAMS_IDLE} idle`)
    const idle = await openAll(port, STREAMS_IDLE, await lastSeq(server.base))
    // The garbage of opening them (each request's objects) goes with the collector's next passes.
    await sleep(10_000)
    const rssAfterMb = (await rssMb(server.child.pid))!
    for (const stream of idle) stream.close()
    const kbEach = ((rssAfterMb - rssBeforeMb) * 1024) / STREAMS_IDLE
    say(
      `    RSS ${rssBeforeMb.toFixed(0)} MB before, ${rssAfterMb.toFixed(0)} MB with them: ${kbEach.toFixed(1)} KB each`,
    )
    return {
      streams: STREAMS_OPEN,
      writes: WRITES,
      lag,
      idle: { streams: STREAMS_IDLE, rssBeforeMb, rssAfterMb, kbEach },
    }
  } finally {
    await server.stop()
  }
}

if (import.meta.main) {
  const { mkdtempSync, rmSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const tmp = mkdtempSync(join(tmpdir(), 'club-bench-streams-'))
  try {
    const result = await benchChangeStreams(tmp, console.log)
    console.log(JSON.stringify(result))
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}
