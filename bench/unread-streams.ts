// Issue 35: readers of the change stream that do not read. UNREAD_STREAMS (60) plain sockets ask
// for /api/changes/stream?since=0 after UNREAD_EVENTS (3,000) events of about 5 KB and never read
// a byte: the server's peak RSS while they are open, over its RSS before them. Goal: ≤ 100 MB
// above (before the backlog was paced, each held a copy of it: 56 MB a stream).
//   bun bench/unread-streams.ts            (or as part of npm run bench)
//   UNREAD_STREAMS=60 UNREAD_EVENTS=3000
import { connect, type Socket } from 'node:net'
import { join } from 'node:path'
import { writeDataSet } from './generate'
import { HOST, rssMb, sampleRss, sleep } from './procs'
import { ADMIN_TOKEN, startOurs } from './servers'

const STREAMS = Number(process.env.UNREAD_STREAMS ?? 60)
const EVENTS = Number(process.env.UNREAD_EVENTS ?? 3_000)
/** Clubs in one import: 1,500 descriptions of 5,000 characters stay under its 10 MiB. */
const PER_IMPORT = 1_500
const DESCRIPTION = 5_000
export const GOAL_UNREAD_MB = 100

export interface UnreadStreamsResult {
  readonly streams: number
  readonly events: number
  /** What a reader asking since=0 is owed, in MB of event text. */
  readonly backlogMb: number
  readonly rssBeforeMb: number
  /** The highest RSS seen in the seconds the streams were open and unread. */
  readonly rssPeakMb: number
}

/** A stream asked for over a socket that is never read: what the server sends waits in the kernel's buffers, then in the server. */
function unread(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, HOST, () => {
      socket.write(`GET /api/changes/stream?since=0 HTTP/1.1\r\nHost: ${HOST}:${port}\r\n\r\n`)
      resolve(socket)
    })
      .pause()
      .once('error', reject)
  })
}

async function importClubs(base: string, from: number, count: number): Promise<void> {
  const clubs = Array.from({ length: count }, (_, i) => ({
    name: `Unread Bench ${from + i}`,
    description: `${from + i} `.padEnd(DESCRIPTION, 'lorem ipsum '),
  }))
  const res = await fetch(`${base}/api/imports/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(clubs),
  })
  if (res.status !== 201) throw new Error(`an import answered ${res.status}: ${await res.text()}`)
}

export async function benchUnreadStreams(tmp: string, say: (line: string) => void): Promise<UnreadStreamsResult> {
  const dataSet = join(tmp, 'unread-100.json')
  await writeDataSet(100, dataSet)
  const server = await startOurs(dataSet, join(tmp, 'unread-db.json'), 'warn', {
    CLUBS_MAX_STREAMS: String(STREAMS + 10),
  })
  const port = Number(new URL(server.base).port)
  const sockets: Socket[] = []
  try {
    say(`  unread change streams: ${STREAMS} asking since=0 after ${EVENTS} events`)
    for (let made = 0; made < EVENTS; made += PER_IMPORT)
      await importClubs(server.base, made, Math.min(PER_IMPORT, EVENTS - made))
    let backlog = 0
    for (
      let since = 0, page;
      (page = (await (await fetch(`${server.base}/api/changes/?since=${since}&limit=1000`)).json()).results).length;
      since = page.at(-1).seq
    )
      backlog += page.reduce((sum: number, event: unknown) => sum + JSON.stringify(event).length, 0)
    // The imports' garbage goes with the collector's next passes.
    await sleep(3_000)
    const rssBeforeMb = (await rssMb(server.child.pid))!
    const sampler = sampleRss(server.child.pid)
    sockets.push(...(await Promise.all(Array.from({ length: STREAMS }, () => unread(port)))))
    await sleep(5_000)
    const rssPeakMb = await sampler.stop()
    say(
      `    RSS ${rssBeforeMb.toFixed(0)} MB before, peak ${rssPeakMb.toFixed(0)} MB with them: ` +
        `${(rssPeakMb - rssBeforeMb).toFixed(0)} MB above (backlog ${(backlog / 1e6).toFixed(1)} MB each)`,
    )
    return { streams: STREAMS, events: EVENTS, backlogMb: backlog / 1e6, rssBeforeMb, rssPeakMb }
  } finally {
    for (const socket of sockets) socket.destroy()
    await server.stop()
  }
}

if (import.meta.main) {
  const { mkdtempSync, rmSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const tmp = mkdtempSync(join(tmpdir(), 'club-bench-unread-'))
  try {
    const result = await benchUnreadStreams(tmp, console.log)
    console.log(JSON.stringify(result))
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}
