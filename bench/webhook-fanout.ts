// Issue 27: does a webhook fan-out slow writes? A club PATCHed one write after another, with no
// webhook, then with 50 webhooks each wanting every event (50 real receivers on loopback answering
// 204), in rounds that alternate the two (the webhooks removed after each): the write's time from
// request to answer, p50 and p99 over all rounds, and, with the receivers, the time from a write's
// answer to its event reaching the last of them. Goal: p99 within noise of none.
//   npx bun bench/webhook-fanout.ts            (or as part of npm run bench)
//   WEBHOOK_FANOUT_WRITES=300 WEBHOOK_FANOUT_ROUNDS=3 WEBHOOK_FANOUT_RECEIVERS=50
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeDataSet } from './generate'
import { stopAll } from './procs'
import { ADMIN_TOKEN, startOurs } from './servers'

export const FANOUT_WRITES = Number(process.env.WEBHOOK_FANOUT_WRITES ?? 300)
const RECEIVERS = Number(process.env.WEBHOOK_FANOUT_RECEIVERS ?? 50)
/** Rounds of writes with no webhook, then with the receivers' webhooks (removed again at the end of each). */
const ROUNDS = Number(process.env.WEBHOOK_FANOUT_ROUNDS ?? 3)
const CLUBS = 1000
/** Writes may be this much slower with the receivers than without (noise on a shared machine). */
export const GOAL_SLOWDOWN = 1.3

export interface Percentiles {
  readonly p50: number
  readonly p99: number
  readonly max: number
}

export interface WebhookFanoutResult {
  readonly writes: number
  readonly receivers: number
  readonly without: Percentiles
  readonly with: Percentiles
  /** From a write's answer to its event at the last receiver. */
  readonly delivered: Percentiles
  /** CPU time of the service's request thread per write (ms), without and with the receivers: what the fan-out takes from it. */
  readonly requestThreadMs: { readonly without: number; readonly with: number }
  /** CPU time of the whole service per write (ms), every thread: the sending thread and its HTTP client's share with the receivers. */
  readonly processMs: { readonly without: number; readonly with: number }
}

/** CPU time (ms) the thread `tid` of process `pid` (or, with `tid` null, all its threads) has used: utime + stime, in clock ticks of 10 ms. */
async function threadCpuMs(pid: number, tid: number | null = pid): Promise<number> {
  const stat = await Bun.file(tid === null ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`).text()
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

export function percentiles(samples: readonly number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
  return { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 }
}

export async function benchWebhookFanout(tmp: string, say: (line: string) => void): Promise<WebhookFanoutResult> {
  const dataSet = join(tmp, `webhook-fanout-${CLUBS}.json`)
  await writeDataSet(CLUBS, dataSet)
  const server = await startOurs(dataSet, join(tmp, 'webhook-fanout-db.json'), 'warn', {
    CLUBS_WEBHOOK_ALLOW_PRIVATE: 'true',
  })
  /** When each write's event reached each receiver (epoch ms), by the subtitle it set. */
  const arrivals = new Map<string, number[]>()
  // Niced: the receivers stand for machines elsewhere, and take CPU only when the service leaves it.
  const receiving = Bun.spawn(
    ['nice', '-n', '19', process.execPath, join(import.meta.dir, 'webhook-receivers.ts'), String(RECEIVERS)],
    { stdout: 'pipe', stderr: 'inherit' },
  )
  const started = (async () => {
    let text = ''
    for await (const chunk of receiving.stdout as unknown as AsyncIterable<Uint8Array>) {
      text += new TextDecoder().decode(chunk)
      if (text.includes('\n')) return JSON.parse(text) as { ports: number[]; control: number }
    }
    throw new Error('the webhook receivers did not start')
  })()
  const ports = started.then(({ ports }) => ports)
  /** Takes in what the receivers got since last asked. */
  const collectArrivals = async () => {
    const { control } = await started
    const got = (await (await fetch(`http://127.0.0.1:${control}/arrivals`)).json()) as [string, number][]
    for (const [subtitle, at] of got) {
      const times = arrivals.get(subtitle)
      if (times) times.push(at)
      else arrivals.set(subtitle, [at])
    }
  }
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }
  const club = `${server.base}/api/clubs/penn-chess-society/`
  let n = 0
  /** `count` writes one after the other: each one's time, and when it was answered, by the subtitle it set. */
  const writes = async (count: number) => {
    const times: number[] = []
    const answered = new Map<string, number>()
    for (let i = 0; i < count; i++) {
      const subtitle = `Write ${++n}`
      const start = performance.now()
      const res = await fetch(club, { method: 'PATCH', headers, body: JSON.stringify({ subtitle }) })
      await res.arrayBuffer()
      if (res.status !== 200) throw new Error(`a write answered ${res.status}`)
      times.push(performance.now() - start)
      answered.set(subtitle, performance.timeOrigin + performance.now())
    }
    return { times, answered }
  }
  /** Adds a webhook for each receiver; answers their ids. */
  const addHooks = async () => {
    const ids: number[] = []
    for (const port of await ports) {
      const res = await fetch(`${server.base}/api/webhooks/`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook` }),
      })
      if (res.status !== 201) throw new Error(`adding a webhook answered ${res.status}: ${await res.text()}`)
      ids.push(((await res.json()) as { id: number }).id)
    }
    return ids
  }
  const removeHooks = async (ids: readonly number[]) => {
    for (const id of ids) {
      const res = await fetch(`${server.base}/api/webhooks/${id}/`, { method: 'DELETE', headers })
      if (res.status !== 204) throw new Error(`removing a webhook answered ${res.status}`)
    }
  }
  try {
    await writes(30) // warm-up
    const pid = server.child.pid
    const without: number[] = []
    const loaded: number[] = []
    const delivered: number[] = []
    let cpuWithout = 0
    let cpuWith = 0
    let allWithout = 0
    let allWith = 0
    // Rounds alternate: each condition meets the machine as it is at the time, and each p99 comes
    // from ROUNDS × WRITES samples (one run's p99 of the same server varied 7–20 ms).
    for (let round = 0; round < ROUNDS; round++) {
      let cpu = await threadCpuMs(pid)
      let all = await threadCpuMs(pid, null)
      without.push(...(await writes(FANOUT_WRITES)).times)
      cpuWithout += (await threadCpuMs(pid)) - cpu
      allWithout += (await threadCpuMs(pid, null)) - all
      const hooks = await addHooks()
      await writes(30)
      cpu = await threadCpuMs(pid)
      all = await threadCpuMs(pid, null)
      const fanned = await writes(FANOUT_WRITES)
      loaded.push(...fanned.times)
      const deadline = performance.now() + 30_000
      const last = `Write ${n}`
      while ((arrivals.get(last)?.length ?? 0) < RECEIVERS && performance.now() < deadline) {
        await collectArrivals()
        await Bun.sleep(50)
      }
      cpuWith += (await threadCpuMs(pid)) - cpu
      allWith += (await threadCpuMs(pid, null)) - all
      for (const [subtitle, at] of fanned.answered) {
        const times = arrivals.get(subtitle)
        if (times?.length === RECEIVERS) delivered.push(Math.max(...times) - at)
      }
      await removeHooks(hooks)
    }
    const count = FANOUT_WRITES * ROUNDS
    const result: WebhookFanoutResult = {
      writes: count,
      receivers: RECEIVERS,
      without: percentiles(without),
      with: percentiles(loaded),
      delivered: percentiles(delivered),
      requestThreadMs: { without: cpuWithout / count, with: cpuWith / count },
      processMs: { without: allWithout / count, with: allWith / count },
    }
    say(webhookFanoutLine(result))
    return result
  } finally {
    receiving.kill()
    await server.stop()
  }
}

export function webhookFanoutLine(r: WebhookFanoutResult): string {
  const ms = (n: number) => `${n.toFixed(1)} ms`
  return (
    `Webhook fan-out (${r.writes} writes one after another in ${ROUNDS} rounds alternating none and ${r.receivers} webhooks each getting every event): ` +
    `write p50 ${ms(r.with.p50)}, p99 ${ms(r.with.p99)} (no webhook: p50 ${ms(r.without.p50)}, p99 ${ms(r.without.p99)}); ` +
    `answer to the last receiver's delivery p50 ${ms(r.delivered.p50)}, p99 ${ms(r.delivered.p99)}; ` +
    `request thread CPU per write ${ms(r.requestThreadMs.with)} (no webhook: ${ms(r.requestThreadMs.without)}), ` +
    `the whole service's ${ms(r.processMs.with)} (no webhook: ${ms(r.processMs.without)})`
  )
}

if (import.meta.main) {
  const tmp = mkdtempSync(join(tmpdir(), 'club-webhook-fanout-'))
  try {
    await benchWebhookFanout(tmp, console.log)
  } finally {
    await stopAll()
    rmSync(tmp, { recursive: true, force: true })
  }
}
