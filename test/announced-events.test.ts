import { afterEach, describe, expect, it } from 'bun:test'
import type { Subprocess } from 'bun'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN_TOKEN, readJson, tempDir } from '../harness/app'
import { adminSender, freePort, sleep, spawnService, waitForHealth } from '../harness/service'
import { SseReader } from '../harness/sse'
import { fillUp, mountTmpfs, SKIP_TMPFS, umount } from '../harness/tmpfs'
import { startReceiver, until } from '../harness/webhook-receiver'

// An event is announced — on the stream, at /api/changes/, in X-Changes-Seq, to webhooks — only
// once the write that numbered it is on disk (docs/reference.md §18). Against real servers: a nearly full
// disk refusing some of many concurrent writes, and SIGKILLs under writers with a stream follower
// and a webhook receiver watching.

const processes: Subprocess[] = []
const cleanups: (() => void)[] = []

afterEach(async () => {
  for (const proc of processes.splice(0)) {
    proc.kill('SIGKILL')
    await proc.exited
  }
  for (const cleanUp of cleanups.splice(0)) cleanUp()
})

interface Event {
  seq: number
  type: string
  code: string
  club: { subtitle?: string } | null
}

async function start(port: number, dataFile: string) {
  const proc = spawnService(
    port,
    {
      CLUBS_DATA_FILE: dataFile,
      CLUBS_ADMIN_TOKEN: ADMIN_TOKEN,
      CLUBS_WEBHOOK_ALLOW_PRIVATE: 'true',
      // New clubs are public at once, so each create is a club.added event.
      CLUBS_AUTO_APPROVE: 'true',
      CLUBS_LOG_LEVEL: 'error',
      CLUBS_RATE_LIMIT: '',
    },
    { stdout: 'ignore', stderr: 'ignore' },
  )
  processes.push(proc)
  const base = `http://127.0.0.1:${port}`
  await waitForHealth(base, proc)
  const send = adminSender(base, ADMIN_TOKEN)
  return { proc, base, send }
}

/** A stream follower from `since`; its events so far, and how to stop it. */
async function follow(base: string, since: number) {
  const abort = new AbortController()
  const res = await fetch(`${base}/api/changes/stream?since=${since}`, { signal: abort.signal })
  expect(res.status).toBe(200)
  const reader = new SseReader(res)
  cleanups.push(() => abort.abort())
  return { events: () => reader.events() as Event[], stop: () => abort.abort() }
}

/** The event numbered `seq` as the service keeps it now, or null when it keeps none by that number. */
async function keptEvent(base: string, seq: number): Promise<Event | null> {
  const res = await fetch(`${base}/api/changes/?since=${seq - 1}&limit=1`)
  expect(res.status).toBe(200)
  const [event] = (await readJson(res)).results as Event[]
  return event?.seq === seq ? event : null
}

describe('events are announced only once their write is on disk', () => {
  it.skipIf(SKIP_TMPFS)(
    'on a nearly full disk: no follower, webhook or X-Changes-Seq hears of a write answered 503',
    async () => {
      const dir = tempDir('clubs-announced-full-')
      mountTmpfs(dir, 1024)
      cleanups.push(() => umount(dir))
      const receiver = startReceiver()
      cleanups.push(() => receiver.stop())
      const service = await start(freePort(), join(dir, 'db.json'))
      expect((await service.send('POST', '/api/webhooks/', { url: receiver.url })).status).toBe(201)
      const list = await fetch(`${service.base}/api/clubs/`)
      const stream = await follow(service.base, Number(list.headers.get('x-changes-seq')))
      fillUp(join(dir, 'filler'), 24 * 1024)

      // Rounds of concurrent creates: the writes of one snapshot land or fail together, and those
      // waiting for the next one must not be announced with them.
      const acknowledged = new Set<string>()
      const refused = new Set<string>()
      const seqsListed: number[] = []
      for (let round = 0; round < 6; round++) {
        await Promise.all(
          Array.from({ length: 8 }, async (_, i) => {
            const name = `Nearly Full ${round} ${i}`
            const res = await service.send('POST', '/api/clubs/', { name, description: 'x'.repeat(3_000) })
            const code = `nearly-full-${round}-${i}`
            if (res.status === 201) {
              acknowledged.add(code)
            } else {
              expect(res.status).toBe(503)
              refused.add(code)
            }
          }),
        )
        seqsListed.push(Number((await fetch(`${service.base}/api/clubs/`)).headers.get('x-changes-seq')))
      }
      expect(refused.size).toBeGreaterThan(0)
      expect(acknowledged.size).toBeGreaterThan(0)

      // Room again: one more write lands, and its event comes after every earlier one.
      rmSync(join(dir, 'filler'))
      const last = await service.send('PATCH', '/api/clubs/mock-trial/', { subtitle: 'Room again' })
      expect(last.status).toBe(200)
      const lastSeq = Number((await fetch(`${service.base}/api/clubs/`)).headers.get('x-changes-seq'))
      await until(() => stream.events().some((e) => e.seq === lastSeq), 'the last event on the stream')
      await until(() => receiver.events().some((e) => e.seq === lastSeq), 'the last event at the webhook')

      const logged = (await readJson(await fetch(`${service.base}/api/changes/?since=0&limit=1000`))).results as Event[]
      for (const [who, events] of [
        ['stream', stream.events()],
        ['webhook', receiver.events() as Event[]],
        ['log', logged],
      ] as const) {
        const added = events.filter((e) => e.type === 'club.added').map((e) => e.code)
        expect({ who, announcedButRefused: added.filter((code) => refused.has(code)) }).toEqual({
          who,
          announcedButRefused: [],
        })
        expect({ who, missing: [...acknowledged].filter((code) => !added.includes(code)) }).toEqual({
          who,
          missing: [],
        })
      }
      // Each list's X-Changes-Seq named an event that is kept (none past what landed).
      for (const seq of seqsListed)
        expect({ seq, kept: (await keptEvent(service.base, seq)) !== null }).toEqual({ seq, kept: true })
    },
    60_000,
  )

  it('across SIGKILLs under writers: every event a follower or webhook got stays the same event, and followers go on (no 410)', async () => {
    const dir = tempDir('clubs-announced-kill-')
    const dataFile = join(dir, 'db.json')
    const port = freePort()
    const receiver = startReceiver()
    cleanups.push(() => receiver.stop())
    let service = await start(port, dataFile)
    expect((await service.send('POST', '/api/webhooks/', { url: receiver.url })).status).toBe(201)
    let since = Number((await fetch(`${service.base}/api/clubs/`)).headers.get('x-changes-seq'))
    const seen = new Map<number, Event>()

    for (let round = 0; round < 5; round++) {
      const stream = await follow(service.base, since)
      let writing = true
      const writers = Array.from({ length: 6 }, async (_, w) => {
        for (let i = 0; writing; i++) {
          const write =
            i % 3 === 0
              ? service.send('POST', '/api/clubs/', {
                  name: `Kill ${round} ${w} ${i}`,
                  description: 'Written under a kill.',
                })
              : service.send('PATCH', '/api/clubs/penn-chess-society/', {
                  subtitle: `round ${round} writer ${w} #${i}`,
                })
          await write.catch(() => null)
        }
      })
      await sleep(150 + Math.random() * 300)
      service.proc.kill('SIGKILL')
      await service.proc.exited
      writing = false
      await Promise.all(writers)
      stream.stop()
      for (const event of stream.events()) seen.set(event.seq, event)
      const lastHeard = stream.events().at(-1)?.seq ?? since

      service = await start(port, dataFile)
      // An ordinary crash keeps the log: a follower goes on from the last event it got.
      const resumed = await fetch(`${service.base}/api/changes/?since=${lastHeard}`)
      expect({ round, status: resumed.status }).toEqual({ round, status: 200 })
      since = lastHeard
    }
    // The webhook's deliveries catch up after the last restart.
    const finalSeq = Number((await fetch(`${service.base}/api/clubs/`)).headers.get('x-changes-seq'))
    await until(() => receiver.events().some((e) => e.seq >= since), 'the webhook to catch up', 20_000)
    expect(finalSeq).toBeGreaterThanOrEqual(since)
    for (const event of receiver.events() as Event[]) seen.set(event.seq, event)
    expect(seen.size).toBeGreaterThan(0)

    // Every number anyone was told of is still that event: it was on disk, and never given again.
    for (const [seq, event] of seen) {
      const kept = await keptEvent(service.base, seq)
      expect({ seq, kept }).toEqual({ seq, kept: event })
      if (event.type === 'club.added')
        expect({ code: event.code, status: (await service.send('GET', `/api/clubs/${event.code}/`)).status }).toEqual({
          code: event.code,
          status: 200,
        })
    }
  }, 90_000)
})
