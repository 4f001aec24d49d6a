import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Subprocess } from 'bun'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN_TOKEN, makeApp, readJson, tempDir } from '../harness/app'
import { freePort, ROOT, sleep, spawnService, stopService, waitForHealth } from '../harness/service'
import { startNginx } from '../harness/nginx'
import { SocketReader, SseReader } from '../harness/sse'
import { rssMb, sampleRss } from '../harness/rss'
import { MAX_UNREAD } from '../src/edge/change-streams'

// docs/reference.md §18's stream: Server-Sent Events of the change log, against real servers (and a real
// nginx in front, configured as docs/campus.md says), with real connections held open.

const SKIP_PROXY = process.env.SKIP_PROXY_TESTS === '1'
const processes: Subprocess[] = []
const aborts: AbortController[] = []

afterAll(async () => {
  for (const abort of aborts) abort.abort()
  for (const proc of processes) await stopService(proc)
})

async function startService(env: Record<string, string> = {}) {
  const port = freePort()
  const dir = tempDir('clubs-stream-')
  const proc = spawnService(port, {
    CLUBS_DATA_FILE: join(dir, 'db.json'),
    CLUBS_ADMIN_TOKEN: ADMIN_TOKEN,
    CLUBS_LOG_LEVEL: 'warn',
    ...env,
  })
  processes.push(proc)
  const base = `http://127.0.0.1:${port}`
  await waitForHealth(base, proc)
  return { base, proc, port, dir }
}

const admin = (base: string, path: string, method: string, json?: unknown) =>
  fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: json === undefined ? undefined : JSON.stringify(json),
  })

/** Opens the stream at `url`; the test's end closes it. */
async function follow(url: string, headers: Record<string, string> = {}, tls?: { ca: string }) {
  const abort = new AbortController()
  aborts.push(abort)
  const res = await fetch(url, { headers, signal: abort.signal, ...(tls ? { tls } : {}) } as RequestInit)
  return { res, reader: res.ok ? new SseReader(res) : null, close: () => abort.abort() }
}

/** Every field of the detail representation, so one list answer holds each club whole, with its X-Changes-Seq. */
async function fieldsQuery(base: string) {
  const probe = await readJson(await fetch(`${base}/api/clubs/penn-chess-society/`))
  return `fields=${Object.keys(probe).join(',')}`
}

async function listWhole(base: string, fields: string) {
  const res = await fetch(`${base}/api/clubs/?${fields}`)
  const clubs: Record<string, unknown> = {}
  for (const club of (await readJson(res)) as { code: string }[]) clubs[club.code] = club
  return { clubs, seq: Number(res.headers.get('x-changes-seq')) }
}

describe('following the stream', () => {
  it('keeps a mirror equal to the directory while writes race it: list once, then follow', async () => {
    const { base } = await startService()
    const fields = await fieldsQuery(base)
    const codes = ((await readJson(await fetch(`${base}/api/clubs/?fields=code`))) as { code: string }[]).map(
      (c) => c.code,
    )
    let writing = true
    const writer = async (n: number) => {
      for (let i = 0; writing; i++) {
        const code = codes[(n * 7 + i) % codes.length]!
        const step = i % 5
        if (step === 0) await admin(base, `/api/clubs/${code}/`, 'PATCH', { subtitle: `w${n} ${i}` })
        if (step === 1) await admin(base, `/api/clubs/${code}/`, 'PATCH', { active: false })
        if (step === 2) await admin(base, `/api/clubs/${code}/`, 'PATCH', { active: true })
        if (step === 3) {
          const made = await admin(base, '/api/clubs/', 'POST', { name: `Racer ${n} ${i}`, approved: true })
          if (made.ok && i % 3 === 0) await admin(base, `/api/clubs/${(await readJson(made)).code}/`, 'DELETE')
        }
        if (step === 4) await admin(base, `/api/clubs/${code}/`, 'PATCH', { accepting_members: i % 2 === 0 })
      }
    }
    const writers = [0, 1, 2].map(writer)
    await sleep(300)
    // The mirror starts in the middle of the writes.
    const mirror = await listWhole(base, fields)
    const { reader } = await follow(`${base}/api/changes/stream?since=${mirror.seq}`)
    await sleep(1_500)
    writing = false
    await Promise.all(writers)
    const { last_seq } = await readJson(await fetch(`${base}/api/changes/?limit=1`))
    await reader!.waitFor((m) => m.id === String(last_seq), 5_000)
    let seq = mirror.seq
    for (const event of reader!.events()) {
      expect(event.seq).toBeGreaterThan(seq)
      seq = event.seq
      if (event.type === 'club.removed') delete mirror.clubs[event.code]
      else mirror.clubs[event.code] = event.club
    }
    expect(seq).toBe(last_seq)
    expect(reader!.events().length).toBeGreaterThan(20)
    expect(mirror.clubs).toEqual((await listWhole(base, fields)).clubs)
  }, 30_000)

  it('resumes after a reconnection from Last-Event-ID: every event once, none missed', async () => {
    const { base } = await startService()
    const first = await follow(`${base}/api/changes/stream`)
    for (const subtitle of ['a', 'b', 'c']) await admin(base, '/api/clubs/penn-chess-society/', 'PATCH', { subtitle })
    await first.reader!.waitFor((m) => m.id === '3')
    first.close()
    for (const subtitle of ['d', 'e']) await admin(base, '/api/clubs/penn-chess-society/', 'PATCH', { subtitle })
    const again = await follow(`${base}/api/changes/stream`, { 'Last-Event-ID': '3' })
    await admin(base, '/api/clubs/penn-chess-society/', 'PATCH', { subtitle: 'f' })
    await again.reader!.waitFor((m) => m.id === '6')
    expect(again.reader!.events().map((e) => [e.seq, e.club.subtitle])).toEqual([
      [4, 'd'],
      [5, 'e'],
      [6, 'f'],
    ])
    expect(again.res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(again.res.headers.get('cache-control')).toBe('no-cache')
    expect(again.res.headers.get('x-request-id')).toBeTruthy()
  })

  it('refuses a malformed since or Last-Event-ID with a 400 naming it', async () => {
    const { base } = await startService()
    for (const [url, headers, name] of [
      [`${base}/api/changes/stream?since=-4`, {}, 'since'],
      [`${base}/api/changes/stream`, { 'Last-Event-ID': 'abc' }, 'Last-Event-ID'],
    ] as const) {
      const res = await fetch(url, { headers })
      expect(res.status).toBe(400)
      expect((await readJson(res)).detail).toStartWith(`${name} must be`)
    }
  })

  it('opens at most CLUBS_MAX_STREAMS streams; past that a 503, and a closed one frees its place', async () => {
    const { base } = await startService({ CLUBS_MAX_STREAMS: '2' })
    const a = await follow(`${base}/api/changes/stream`)
    const b = await follow(`${base}/api/changes/stream`)
    expect([a.res.status, b.res.status]).toEqual([200, 200])
    const refused = await fetch(`${base}/api/changes/stream`)
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('5')
    expect((await readJson(refused)).detail).toContain('2 change streams')
    a.close()
    let status = 0
    for (let i = 0; i < 50 && status !== 200; i++) {
      await sleep(100)
      const next = await follow(`${base}/api/changes/stream`)
      status = next.res.status
      if (status !== 200) await next.res.text()
    }
    expect(status).toBe(200)
  })

  it('never lets a mirror drift across a SIGKILL: it follows on exactly, or is told to list again', async () => {
    const { base, proc, port, dir } = await startService()
    const fields = await fieldsQuery(base)
    const mirror = await listWhole(base, fields)
    const apply = (events: Record<string, any>[]) => {
      for (const event of events) {
        mirror.seq = event.seq
        if (event.type === 'club.removed') delete mirror.clubs[event.code]
        else mirror.clubs[event.code] = event.club
      }
    }
    let writing = true
    const writer = async (n: number) => {
      for (let i = 0; writing; i++)
        await admin(base, '/api/clubs/penn-chess-society/', 'PATCH', { subtitle: `k${n} ${i}` }).catch(() => null)
    }
    const writers = [0, 1, 2, 3].map(writer)
    await sleep(400)
    apply((await readJson(await fetch(`${base}/api/changes/?since=${mirror.seq}&limit=1000`))).results)
    proc.kill('SIGKILL')
    await proc.exited
    writing = false
    await Promise.all(writers)
    const again = spawnService(port, {
      CLUBS_DATA_FILE: join(dir, 'db.json'),
      CLUBS_ADMIN_TOKEN: ADMIN_TOKEN,
      CLUBS_LOG_LEVEL: 'warn',
    })
    processes.push(again)
    await waitForHealth(base, again)
    const res = await fetch(`${base}/api/changes/?since=${mirror.seq}&limit=1000`)
    if (res.status === 410) {
      // Told to list again: the new list's number is past every one used before the kill.
      const listed = await listWhole(base, fields)
      expect(listed.seq).toBeGreaterThan(mirror.seq)
      return
    }
    expect(res.status).toBe(200)
    apply((await readJson(res)).results)
    expect(mirror.clubs).toEqual((await listWhole(base, fields)).clubs)
  }, 30_000)

  it('stops promptly on SIGTERM with streams open, ending them', async () => {
    const { base, proc } = await startService()
    const open = await follow(`${base}/api/changes/stream`)
    const started = Date.now()
    proc.kill('SIGTERM')
    expect(await proc.exited).toBe(0)
    expect(Date.now() - started).toBeLessThan(4_000)
    await open.reader!.done
    expect(open.reader!.ended).toBe(true)
  })
})

/** `count` new clubs for an import, each with a description of `size` characters: that many club.added events of about that size. */
const bigClubs = (from: number, count: number, size = 5_000) =>
  Array.from({ length: count }, (_, i) => ({
    name: `Backlog Club ${from + i}`,
    description: `${from + i} `.padEnd(size, 'lorem ipsum '),
  }))

/** `bigClubs` imported in one write; the newest event number after it. */
async function importClubs(base: string, from: number, count: number, size = 5_000) {
  const res = await admin(base, '/api/imports/', 'POST', bigClubs(from, count, size))
  expect(res.status).toBe(201)
  return (await readJson(await fetch(`${base}/api/changes/?limit=1`))).last_seq as number
}

/** Every event id after `since`, read from the log a page at a time. */
async function logIds(base: string, since = 0): Promise<string[]> {
  const ids: string[] = []
  for (
    let page: { seq: number }[];
    (page = (await readJson(await fetch(`${base}/api/changes/?since=${since}&limit=1000`))).results).length;
  ) {
    ids.push(...page.map((event) => String(event.seq)))
    since = page.at(-1)!.seq
  }
  return ids
}

describe('readers that take their time', () => {
  const READERS = 60
  let service: Awaited<ReturnType<typeof startService>>
  let backlog: number

  beforeAll(async () => {
    service = await startService({ CLUBS_MAX_STREAMS: String(READERS) })
    // About 3,000 events of 5 KB: a backlog of some 16 MB for a reader asking since=0.
    await importClubs(service.base, 0, 1_500)
    backlog = await importClubs(service.base, 1_500, 1_500)
  }, 60_000)

  it('holds no backlog for readers that do not read, and drops them once more than MAX_UNREAD waits for them', async () => {
    const { base, port, proc } = service
    await sleep(1_000)
    const idle = (await rssMb(proc.pid))!
    const rss = sampleRss(proc.pid)
    const readers = await Promise.all(
      Array.from({ length: READERS }, () => SocketReader.open(port, '/api/changes/stream?since=0')),
    )
    // Each takes what the kernel's buffers hold, then nothing: the server has handed it what it could.
    await sleep(2_000)
    const peak = await rss.stop()
    expect(peak - idle).toBeLessThan(100)
    // Still open, each holding its place.
    const refused = await fetch(`${base}/api/changes/stream`)
    expect(refused.status).toBe(503)
    await refused.text()

    // More than MAX_UNREAD published while they take nothing: each connection is aborted.
    await importClubs(base, 3_000, Math.ceil((2 * MAX_UNREAD) / 5_000))
    for (const reader of readers) reader.read()
    expect(await Promise.all(readers.map((reader) => reader.closed))).toEqual(readers.map(() => 'reset'))
    for (const reader of readers) {
      const ids = reader.messages().flatMap((m) => (m.id ? [Number(m.id)] : []))
      expect(ids.length).toBeGreaterThan(0)
      expect(ids.at(-1)!).toBeLessThan(backlog)
    }
    const again = await follow(`${base}/api/changes/stream`)
    expect(again.res.status).toBe(200)
    again.close()
  }, 60_000)

  it('hands a slow reader the whole backlog a piece at a time as it takes them, and what comes meanwhile: each event once, in order', async () => {
    const { base, port } = service
    const reader = await SocketReader.open(port, '/api/changes/stream?since=0')
    reader.readSlowly(2)
    for (const subtitle of ['while', 'the', 'backlog', 'goes']) {
      await sleep(200)
      await admin(base, '/api/clubs/penn-chess-society/', 'PATCH', { subtitle })
    }
    const expected = await logIds(base)
    for (let i = 0; i < 600 && reader.messages().at(-1)?.id !== expected.at(-1); i++) await sleep(50)
    reader.close()
    expect(reader.messages().flatMap((m) => (m.id ? [m.id] : []))).toEqual(expected)
    expect(expected.length).toBeGreaterThan(3_000)
  }, 60_000)
})

/** nginx in front of `port`, with docs/campus.md's location block (its proxy_pass pointed at the test's service). */
async function nginxInFront(port: number) {
  const doc = readFileSync(join(ROOT, 'docs', 'campus.md'), 'utf8')
  const block = doc.slice(doc.indexOf('```nginx'))
  const location = block.slice(block.indexOf('location / {'), block.indexOf('}', block.indexOf('location / {')) + 1)
  const listen = freePort()
  const base = `http://127.0.0.1:${listen}`
  const server = `server {
    listen 127.0.0.1:${listen};
    ${location.replace('127.0.0.1:3000', `127.0.0.1:${port}`)}
  }`
  processes.push(
    await startNginx(tempDir('clubs-stream-nginx-'), server, () => fetch(`${base}/health`).then((r) => r.ok)),
  )
  return base
}

it.skipIf(SKIP_PROXY)(
  'holds a stream open through a minute without a change, directly and behind nginx, with heartbeats, and then delivers',
  async () => {
    const { base, port } = await startService()
    const proxied = await nginxInFront(port)
    const direct = await follow(`${base}/api/changes/stream`)
    const behind = await follow(`${proxied}/api/changes/stream`)
    await sleep(61_000)
    for (const { reader } of [direct, behind]) {
      expect(reader!.ended).toBe(false)
      expect(reader!.messages.filter((m) => m.comment === 'keep-alive').length).toBeGreaterThanOrEqual(12)
    }
    await admin(base, '/api/clubs/penn-chess-society/', 'PATCH', { subtitle: 'After a quiet minute' })
    for (const { reader } of [direct, behind])
      expect(JSON.parse((await reader!.waitFor((m) => m.event === 'club.changed')).data!).club.subtitle).toBe(
        'After a quiet minute',
      )
  },
  90_000,
)

describe('the stream in process', () => {
  it('sends what was missed, then each change as it is published', async () => {
    const app = await makeApp()
    await app.admin.patch('/api/clubs/penn-chess-society/', { subtitle: 'before' })
    const reader = new SseReader(await app.req('/api/changes/stream?since=0'))
    await reader.waitFor((m) => m.id === '1')
    await app.admin.delete('/api/clubs/mock-trial/')
    const removed = await reader.waitFor((m) => m.id === '2')
    expect(removed.event).toBe('club.removed')
    expect(JSON.parse(removed.data!)).toMatchObject({ seq: 2, type: 'club.removed', code: 'mock-trial', club: null })
  })

  it('drops a stream whose reader takes nothing once more than MAX_UNREAD is published for it, and not before', async () => {
    const app = await makeApp({ config: { maxStreams: 1 } })
    const res = await app.req('/api/changes/stream')
    const taken = res.body!.getReader()
    // A piece of about 64 KB fills what the stream holds for a reader that does not take it.
    expect((await app.admin.post('/api/imports/', bigClubs(0, 15))).status).toBe(201)
    const isOpen = async () => {
      const another = await app.req('/api/changes/stream')
      await another.body?.cancel()
      return another.status === 503
    }
    expect((await app.admin.post('/api/imports/', bigClubs(15, 80))).status).toBe(201)
    expect(await isOpen()).toBe(true)
    expect((await app.admin.post('/api/imports/', bigClubs(95, 150))).status).toBe(201)
    expect(await isOpen()).toBe(false)
    expect(
      await taken.read().then(
        () => 'read',
        () => 'aborted',
      ),
    ).toBe('aborted')
  })

  it('sends a stream that fell behind what the log keeps one reset event, then ends it', async () => {
    const app = await makeApp({ keepChanges: 20 })
    const res = await app.req('/api/changes/stream')
    // The stream holds a piece of these its reader has not taken, and reads on from the log after it.
    expect((await app.admin.post('/api/imports/', bigClubs(0, 15))).status).toBe(201)
    for (let i = 0; i < 30; i++) await app.admin.patch('/api/clubs/penn-chess-society/', { subtitle: `s${i}` })
    const reader = new SseReader(res)
    await reader.waitFor((m) => m.event === 'reset')
    await reader.done
    const ids = reader.messages.flatMap((m) => (m.id ? [Number(m.id)] : []))
    expect(ids).toEqual(ids.map((_, i) => i + 1))
    expect(ids.length).toBeGreaterThan(0)
    expect(ids.length).toBeLessThan(15)
    expect(reader.messages.at(-1)!.event).toBe('reset')
  })

  it("answers a HEAD with the stream's headers and opens none", async () => {
    const app = await makeApp()
    const res = await app.req('/api/changes/stream', { method: 'HEAD' })
    expect([res.status, res.headers.get('content-type'), await res.text()]).toEqual([
      200,
      'text/event-stream; charset=utf-8',
      '',
    ])
  })

  it('sends one reset event and ends when since is older than what is kept', async () => {
    const app = await makeApp({ keepChanges: 2 })
    for (let i = 0; i < 6; i++) await app.admin.patch('/api/clubs/penn-chess-society/', { subtitle: `s${i}` })
    const res = await app.req('/api/changes/stream?since=0')
    expect(res.status).toBe(200)
    const reader = new SseReader(res)
    await reader.done
    expect(reader.messages.length).toBe(1)
    expect(reader.messages[0]!.event).toBe('reset')
    expect(Object.keys(JSON.parse(reader.messages[0]!.data!))).toEqual(['detail', 'oldest_seq'])
  })
})
