// An import lets other requests in (issue 35): a 10 MiB CSV of bad rows (about 390,000) held the
// event loop for seconds, parsed in one piece and checked in one go, and nothing else was answered
// meanwhile. The file is now parsed a slice at a time and its rows checked a chunk at a time, with a
// turn of the event loop between, and the answer is the one it was. Against a real server: the
// import's last byte is held back until the server has read all the others, so that every GET
// sent after it is sent while the import runs; several, one after another, are answered before it.
import { afterAll, beforeAll, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Socket } from 'bun'
import { tempDir } from '../harness/app'
import { allInvalid, allInvalidJson } from '../harness/bad-import'
import { freePort, sleep, spawnService, stopService, waitForHealth } from '../harness/service'

const TOKEN = 'import-turns-admin-token'
const dir = tempDir('clubs-import-turns-')
const port = freePort()
const base = `http://127.0.0.1:${port}`
let proc: ReturnType<typeof spawnService> | undefined

beforeAll(async () => {
  proc = spawnService(port, {
    CLUBS_DATA_FILE: join(dir, 'db.json'),
    CLUBS_ADMIN_TOKEN: TOKEN,
    CLUBS_LOG_LEVEL: 'warn',
  })
  await waitForHealth(base, proc)
})

afterAll(async () => {
  await stopService(proc)
})

/** The bytes a loopback TCP connection holds in the kernel: unsent or unacknowledged at `from`, unread at `to`. */
function queued(from: number, to: number): number {
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(4, '0')
  let bytes = 0
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const [, local, remote, , queues] = line.trim().split(/\s+/)
    if (!queues) continue
    const [tx, rx] = queues.split(':').map((part) => parseInt(part, 16))
    if (local!.endsWith(`:${hex(from)}`) && remote!.endsWith(`:${hex(to)}`)) bytes += tx!
    if (local!.endsWith(`:${hex(to)}`) && remote!.endsWith(`:${hex(from)}`)) bytes += rx!
  }
  return bytes
}

/** A raw HTTP/1.1 connection: writes all it is given, however slowly the other side reads, and collects the answer. */
async function connection() {
  let answer = ''
  let drained = () => {}
  let closed!: () => void
  const ended = new Promise<void>((resolve) => (closed = resolve))
  const socket: Socket = await Bun.connect({
    hostname: '127.0.0.1',
    port,
    socket: {
      data: (_, data) => void (answer += data.toString()),
      drain: () => drained(),
      close: () => closed(),
    },
  })
  return {
    localPort: socket.localPort,
    async write(bytes: Uint8Array) {
      for (let at = 0; at < bytes.length;) {
        const wrote = socket.write(bytes.subarray(at))
        at += Math.max(0, wrote)
        if (at < bytes.length) await new Promise<void>((resolve) => (drained = resolve))
      }
    },
    /** The answer's status and JSON body, once the server has closed the connection. */
    answered: ended.then(() => ({
      status: Number(answer.slice(9, 12)),
      body: JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)),
    })),
  }
}

/**
 * Sends `body` as an import, its last byte once the server has read the rest, then GETs one after
 * another until the import answers: which of them were answered first, and the import's answer.
 */
async function importWhileReading(
  body: string,
  reads: readonly { path: string; status: number }[],
  type: 'text/csv' | 'application/json' = 'text/csv',
) {
  const bytes = new TextEncoder().encode(body)
  const head =
    `POST /api/imports/ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
    `Content-Type: ${type}\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`
  const upload = await connection()
  let importAnswered = false
  const answered = upload.answered.then((answer) => ((importAnswered = true), answer))
  await upload.write(new TextEncoder().encode(head))
  await upload.write(bytes.subarray(0, -1))
  // The server has read every byte but the last (and a GET has had its turn since): it cannot start
  // on the file before that byte, and once it has it, nothing of the upload is left to wait for.
  while (queued(upload.localPort, port) > 0) await sleep(10)
  expect((await fetch(`${base}/health`)).status).toBe(200)
  await upload.write(bytes.subarray(-1))

  const during: string[] = []
  for (let i = 0; !importAnswered; i++) {
    const { path, status } = reads[i % reads.length]!
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })
    await res.arrayBuffer()
    expect(res.status).toBe(status)
    if (!importAnswered) during.push(path)
  }
  return { during, answer: await answered }
}

const MIB = 1024 * 1024
const BAD_COLUMNS = [
  'accepting_members',
  'email',
  'founded',
  'image_url',
  'name',
  'recruiting_cycle',
  'size',
  'website',
]

it('answers GETs while a 10 MiB import of bad rows is checked, and the import answers as before', async () => {
  const { body, rows } = allInvalid(10 * MIB)
  const reads = [
    { path: '/health', status: 200 },
    { path: '/api/clubs/?page_size=1', status: 200 },
  ]
  const { during, answer } = await importWhileReading(body, reads)
  expect(during.length).toBeGreaterThanOrEqual(6)
  expect(during).toContain('/api/clubs/?page_size=1')

  expect(answer.status).toBe(400)
  expect(Object.keys(answer.body)).toEqual(['rows', 'rows_not_shown'])
  expect(Object.keys(answer.body.rows).map(Number)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1))
  expect(answer.body.rows_not_shown).toBe(rows - 1000)
  expect(Object.keys(answer.body.rows['1']).sort()).toEqual(BAD_COLUMNS)
  // Nothing changed: the directory still holds the sample's clubs only.
  expect((await fetch(`${base}/api/clubs/bad-0/`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404)
}, 120_000) // the import alone takes 15-20 s on a busy 2-core machine

// JSON is parsed in one piece: what is answered meanwhile is answered between chunks of rows.
it('checks the rows of a JSON import of bad rows a chunk at a time too', async () => {
  const { body, rows } = allInvalidJson(6 * MIB)
  const { during, answer } = await importWhileReading(body, [{ path: '/health', status: 200 }], 'application/json')
  expect(during.length).toBeGreaterThanOrEqual(6)
  expect(answer.status).toBe(400)
  expect(Object.keys(answer.body.rows).map(Number)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1))
  expect(answer.body.rows_not_shown).toBe(rows - 1000)
}, 120_000)

it('does so after a good row too, which no one sees meanwhile, and the rows after it are checked as it leaves them', async () => {
  const bad = allInvalidJson(6 * MIB)
  // Row 1 makes a club; row 2 is bad only because row 1 took its name.
  const good = [
    { code: 'turns-1', name: 'Turns Club' },
    { code: 'turns-2', name: 'turns club' },
  ]
  const body = `${JSON.stringify(good).slice(0, -1)},${bad.body.slice(1)}`
  const reads = [
    { path: '/health', status: 200 },
    { path: '/api/clubs/turns-1/', status: 404 },
  ]
  const { during, answer } = await importWhileReading(body, reads, 'application/json')
  expect(during.length).toBeGreaterThanOrEqual(6)
  expect(during).toContain('/api/clubs/turns-1/')

  expect(answer.status).toBe(400)
  expect(answer.body.rows['2']).toEqual({ name: ['A club with this name already exists.'] })
  expect(Object.keys(answer.body.rows).map(Number)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 2))
  expect(Object.keys(answer.body.rows['3']).sort()).toEqual(BAD_COLUMNS)
  expect(answer.body.rows_not_shown).toBe(bad.rows + 1 - 1000)
  expect((await fetch(`${base}/api/clubs/turns-1/`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
    404,
  )
}, 120_000)
