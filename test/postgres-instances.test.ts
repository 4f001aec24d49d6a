// Several instances as real processes (`bun src/index.ts`) on one real PostgreSQL (docs/reference.md §19):
// one SIGKILLed while writers race through both loses nothing it acknowledged, and the other
// keeps serving; a new instance starts with every acknowledged write. And the start refuses a
// database and a data file set together.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Subprocess } from 'bun'
import { ADMIN_TOKEN } from '../harness/app'
import { startPostgres, type Postgres } from '../harness/postgres'
import { freePort, runToEnd, ENTRY, ROOT, sleep, spawnService, stopService, waitForHealth } from '../harness/service'

let pg: Postgres
const running: Subprocess[] = []
beforeAll(async () => {
  pg = await startPostgres()
})
afterAll(async () => {
  await Promise.all(running.map(stopService))
  await pg?.stop()
})

async function startInstance(url: string): Promise<{ base: string; proc: Subprocess }> {
  const port = freePort()
  const proc = spawnService(
    port,
    { CLUBS_DATABASE_URL: url, CLUBS_ADMIN_TOKEN: ADMIN_TOKEN, CLUBS_LOG_LEVEL: 'warn', CLUBS_RATE_LIMIT: '' },
    { stdout: 'ignore', stderr: 'pipe' },
  )
  running.push(proc)
  const base = `http://127.0.0.1:${port}`
  await waitForHealth(base, proc)
  return { base, proc }
}

const adminJson = (base: string, path: string, method = 'GET', json?: unknown) =>
  fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: json === undefined ? undefined : JSON.stringify(json),
  })

describe('an instance killed while writers race through two', () => {
  test('every write either instance acknowledged is kept; the survivor keeps serving; a new instance has them all', async () => {
    const url = await pg.createDatabase()
    const a = await startInstance(url)
    const b = await startInstance(url)
    const acknowledged: string[] = []
    let writing = true
    const writer = (base: string, prefix: string) =>
      (async () => {
        for (let n = 0; writing; n++) {
          const code = `${prefix}-${n}`
          const res = await adminJson(base, '/api/clubs/', 'POST', {
            code,
            name: `Raced ${code}`,
            description: 'Made while an instance is killed.',
            email: `${code}@clubs.example.edu`,
          }).catch(() => null)
          if (res?.status === 201) acknowledged.push(code)
          else if (base === b.base && res) throw new Error(`the survivor answered ${res.status}`)
          else if (!res) return
        }
      })()
    const writers = [writer(a.base, 'a'), writer(a.base, 'a2'), writer(b.base, 'b'), writer(b.base, 'b2')]
    await sleep(700)
    a.proc.kill('SIGKILL')
    await a.proc.exited
    await sleep(500)
    writing = false
    await Promise.all(writers)
    expect(acknowledged.filter((code) => code.startsWith('a')).length).toBeGreaterThan(0)
    expect(acknowledged.filter((code) => code.startsWith('b')).length).toBeGreaterThan(0)
    const later = await startInstance(url)
    for (const base of [b.base, later.base]) {
      const missing = []
      for (const code of acknowledged)
        if ((await adminJson(base, `/api/clubs/${code}/`)).status !== 200) missing.push(code)
      expect(missing).toEqual([])
    }
    // Numbering went on without a gap across the kill.
    const changes = (await (await fetch(`${later.base}/api/changes/?since=0&limit=1000`)).json()) as {
      results: { seq: number }[]
    }
    const numbers = changes.results.map((event) => event.seq)
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => numbers[0]! + i))
  }, 60_000)
})

describe('a lost database, seen by a real instance', () => {
  test('writes 503 while it is gone, with one error line and a /readyz reason; then a warn line, writes again, and the metrics count both', async () => {
    const url = await pg.createDatabase()
    const port = freePort()
    const proc = spawnService(
      port,
      {
        CLUBS_DATABASE_URL: url,
        CLUBS_ADMIN_TOKEN: ADMIN_TOKEN,
        CLUBS_LOG_LEVEL: 'info',
        CLUBS_METRICS: 'true',
        CLUBS_RATE_LIMIT: '',
      },
      { stdout: 'pipe', stderr: 'pipe' },
    )
    running.push(proc)
    const base = `http://127.0.0.1:${port}`
    await waitForHealth(base, proc)
    const create = (code: string) =>
      adminJson(base, '/api/clubs/', 'POST', { code, name: code, description: 'x', email: `${code}@clubs.example.edu` })
    expect((await create('before')).status).toBe(201)
    pg.kill()
    try {
      expect((await create('during')).status).toBe(503)
      expect((await create('during-again')).status).toBe(503)
      const ready = await fetch(`${base}/readyz`)
      expect(ready.status).toBe(503)
      expect(((await ready.json()) as { reason: string }).reason).toStartWith('the database cannot be reached')
      expect(
        (await fetch(`${base}/api/clubs/before/`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status,
      ).toBe(200)
    } finally {
      await pg.restart()
    }
    for (let i = 0; (await create(`after-${i}`)).status !== 201; i++) {
      if (i > 100) throw new Error('writes did not resume')
      await sleep(100)
    }
    const metrics = await (await adminJson(base, '/metrics')).text()
    expect(metrics).toMatch(/clubs_snapshot_writes_total\{outcome="failed"\} [1-9]/)
    expect(metrics).toMatch(/clubs_snapshot_writes_total\{outcome="ok"\} [1-9]/)
    await stopService(proc)
    const lines = (await new Response(proc.stdout as ReadableStream).text()).split('\n').filter(Boolean)
    const messages = lines.map((line) => JSON.parse(line) as { level: string; msg: string })
    const failed = messages.filter((line) => line.msg.startsWith('database write failed'))
    expect(failed).toHaveLength(1)
    expect(failed[0]!.level).toBe('error')
    expect(messages.filter((line) => line.msg.startsWith('database writes land again'))).toHaveLength(1)
  }, 60_000)
})

describe('starting', () => {
  /** The service started with `env` as well, run until it exits. */
  const startWith = (env: Record<string, string>) =>
    runToEnd([process.execPath, ENTRY], { cwd: ROOT, env: { ...process.env, PORT: String(freePort()), ...env } })

  test('CLUBS_DATABASE_URL and CLUBS_DATA_FILE set together is a refused start naming both', async () => {
    const { code, stderr } = await startWith({
      CLUBS_DATABASE_URL: 'postgres://clubs:secret-password@127.0.0.1:5432/clubs',
      CLUBS_DATA_FILE: '/tmp/clubs.json',
    })
    expect(code).toBe(1)
    expect(stderr).toContain('CLUBS_DATABASE_URL')
    expect(stderr).toContain('CLUBS_DATA_FILE')
    expect(stderr).not.toContain('secret-password')
  })

  test('a database that cannot be reached is a refused start that says so', async () => {
    const { code, stderr } = await startWith({ CLUBS_DATABASE_URL: `postgres://clubs:pw@127.0.0.1:${freePort()}/x` })
    expect(code).toBe(1)
    expect(stderr).toMatch(/store: cannot use postgres:\/\/clubs@127\.0\.0\.1:\d+\/x: .*(refused|connect)/i)
    expect(stderr).not.toContain(':pw@')
  })
})
