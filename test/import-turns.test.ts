// An import lets other requests in (issue 35): a 10 MiB CSV of bad rows (about 390,000) held the
// event loop for seconds, parsed in one piece and checked in one go, and nothing else was answered
// meanwhile. The file is now parsed a slice at a time and its rows checked a chunk at a time, with a
// turn of the event loop between, and the answer is the one it was. Against a real server: the
// import's last byte is held back until the server has read all the others, so that every GET
// sent after it is sent while the import runs; several, one after another, are answered before it.
import { afterAll, beforeAll, expect, it } from 'bun:test'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Socket } from 'bun'
import { tempDir } from '../harness/app'
import { allInvalid } from '../harness/bad-import'
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
  rmSync(dir, { recursive: true, force: true })
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

it('answers GETs while a 10 MiB import of bad rows is checked, and the import answers as before', async () => {
  const { body, rows } = allInvalid(10 * 1024 * 1024)
  const bytes = new TextEncoder().encode(body)
  const head =
    `POST /api/imports/ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
    `Content-Type: text/csv\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`
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
    const path = i % 2 ? '/api/clubs/?page_size=1' : '/health'
    const res = await fetch(`${base}${path}`)
    await res.arrayBuffer()
    expect(res.status).toBe(200)
    if (!importAnswered) during.push(path)
  }
  expect(during.length).toBeGreaterThanOrEqual(6)
  expect(during).toContain('/api/clubs/?page_size=1')

  const { status, body: refusal } = await answered
  expect(status).toBe(400)
  expect(Object.keys(refusal)).toEqual(['rows', 'rows_not_shown'])
  expect(Object.keys(refusal.rows).map(Number)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1))
  expect(refusal.rows_not_shown).toBe(rows - 1000)
  expect(Object.keys(refusal.rows['1']).sort()).toEqual(
    ['accepting_members', 'email', 'founded', 'image_url', 'name', 'recruiting_cycle', 'size', 'website'].sort(),
  )
  // Nothing changed: the directory still holds the sample's clubs only.
  expect((await fetch(`${base}/api/clubs/bad-0/`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404)
}, 120_000) // the import alone takes 15-20 s on a busy 2-core machine
