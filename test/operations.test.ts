import { afterEach, describe, expect, it } from 'bun:test'
import type { Subprocess } from 'bun'
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN_TOKEN, makeApp, readJson, SEED_FILE, tempDir } from '../harness/app'
import { freePort, ROOT, sleep, spawnService, waitForHealth } from '../harness/service'
import { createApp } from '../src/app'
import { ConfigError, loadConfig, VARIABLES, withFileVariables } from '../src/config'
import { openDataFile } from '../src/data-file'
import { snapshotProblem } from '../src/domain/snapshot-format'
import { Backups } from '../src/store/backups'
import { LogoMemory } from '../src/store/logo-store'
import { blockWrites } from '../harness/write-fault'

// docs/reference.md §17: probes, metrics, secrets in files, backups, request ids and JSON logs. What only
// a running process does (metrics of requests, X-Request-Id, the access log) is tested on one.

const processes: Subprocess[] = []
afterEach(async () => {
  for (const proc of processes.splice(0)) {
    proc.kill('SIGKILL')
    await proc.exited
  }
})

/** The service as a process on a free port, its stdout collected line by line. */
async function service(env: Record<string, string>) {
  const port = freePort()
  const dir = tempDir()
  const proc = spawnService(
    port,
    { CLUBS_DATA_FILE: join(dir, 'db.json'), CLUBS_ADMIN_TOKEN: ADMIN_TOKEN, CLUBS_LOG_LEVEL: 'info', ...env },
    { stdout: 'pipe', stderr: 'pipe' },
  )
  processes.push(proc)
  const base = `http://127.0.0.1:${port}`
  await waitForHealth(base, proc)
  const lines: Record<string, any>[] = []
  void (async () => {
    const decoder = new TextDecoder()
    let rest = ''
    for await (const chunk of proc.stdout as unknown as AsyncIterable<Uint8Array>) {
      rest += decoder.decode(chunk)
      const parts = rest.split('\n')
      rest = parts.pop()!
      for (const part of parts) if (part.trim()) lines.push(JSON.parse(part))
    }
  })()
  /** The access-log lines written so far (they are written asynchronously: wait a little). */
  const logged = async (predicate: (line: Record<string, any>) => boolean) => {
    for (let i = 0; i < 100; i++) {
      const found = lines.filter(predicate)
      if (found.length) return found
      await sleep(20)
    }
    return []
  }
  return { base, dir, proc, lines, logged }
}

describe('configuration from files (NAME_FILE)', () => {
  it('reads every variable from NAME_FILE, without its trailing newline', () => {
    const dir = tempDir()
    for (const name of VARIABLES) {
      const file = join(dir, name)
      writeFileSync(file, `value-of-${name}\n`)
      expect(withFileVariables({ [`${name}_FILE`]: file })[name]).toBe(`value-of-${name}`)
    }
  })

  it('takes the admin token from a Docker secret file', () => {
    const file = join(tempDir(), 'admin_token')
    writeFileSync(file, 'a-secret-from-a-file\n')
    expect(loadConfig({ CLUBS_ADMIN_TOKEN_FILE: file }).adminToken).toBe('a-secret-from-a-file')
  })

  it('refuses NAME and NAME_FILE both set, naming both, and a file it cannot read', () => {
    const file = join(tempDir(), 'token')
    writeFileSync(file, 'one-secret-value')
    const both = () => loadConfig({ CLUBS_ADMIN_TOKEN: 'another-secret', CLUBS_ADMIN_TOKEN_FILE: file })
    expect(both).toThrow(ConfigError)
    expect(both).toThrow(/CLUBS_ADMIN_TOKEN_FILE.*CLUBS_ADMIN_TOKEN is set too/)
    expect(() => loadConfig({ PORT_FILE: '/no/such/file' })).toThrow(/PORT_FILE.*ENOENT/)
  })

  it('the real service refuses to start with both, in one line naming them', async () => {
    const file = join(tempDir(), 'token')
    writeFileSync(file, 'one-secret-value')
    const proc = spawnService(
      freePort(),
      { CLUBS_ADMIN_TOKEN: 'x-secret-1', CLUBS_ADMIN_TOKEN_FILE: file },
      { stderr: 'pipe' },
    )
    expect(await proc.exited).toBe(1)
    const stderr = await new Response(proc.stderr as ReadableStream).text()
    expect(stderr.trim().split('\n')).toHaveLength(1)
    expect(stderr).toContain('CLUBS_ADMIN_TOKEN_FILE')
  })
})

describe('operating settings', () => {
  const table: [Record<string, string>, Partial<ReturnType<typeof loadConfig>> | RegExp][] = [
    [{}, { trustProxy: false, metrics: false, metricsToken: null, backups: null }],
    [{ CLUBS_TRUST_PROXY: 'true' }, { trustProxy: true }],
    [{ CLUBS_TRUST_PROXY: '127.0.0.1, ::1' }, { trustProxy: ['127.0.0.1', '::1'] }],
    [{ CLUBS_TRUST_PROXY: 'nginx' }, /CLUBS_TRUST_PROXY/],
    [
      { CLUBS_METRICS: 'true', CLUBS_METRICS_TOKEN: 'scrape-me' },
      { metrics: true, metricsToken: 'scrape-me' },
    ],
    [{ CLUBS_BACKUP_DIR: '/b' }, { backups: { dir: '/b', intervalMs: 3_600_000, keep: 24 } }],
    [
      { CLUBS_BACKUP_DIR: '/b', CLUBS_BACKUP_INTERVAL: '30s', CLUBS_BACKUP_KEEP: '3' },
      { backups: { dir: '/b', intervalMs: 30_000, keep: 3 } },
    ],
    [
      { CLUBS_BACKUP_DIR: '/b', CLUBS_BACKUP_INTERVAL: '1d' },
      { backups: { dir: '/b', intervalMs: 86_400_000, keep: 24 } },
    ],
    [{ CLUBS_BACKUP_DIR: '/b', CLUBS_BACKUP_INTERVAL: '10 minutes' }, /CLUBS_BACKUP_INTERVAL/],
    [{ CLUBS_BACKUP_DIR: '/b', CLUBS_BACKUP_INTERVAL: '0s' }, /CLUBS_BACKUP_INTERVAL/],
    [{ CLUBS_BACKUP_DIR: '/b', CLUBS_BACKUP_KEEP: '0' }, /CLUBS_BACKUP_KEEP/],
  ]
  for (const [env, expected] of table) {
    it(`${JSON.stringify(env)} → ${expected instanceof RegExp ? `refused (${expected.source})` : JSON.stringify(expected)}`, () => {
      if (expected instanceof RegExp) expect(() => loadConfig(env)).toThrow(expected)
      else expect(loadConfig(env)).toMatchObject(expected)
    })
  }
})

describe('probes', () => {
  it('answers /livez and /readyz 200 {"status": "ok"} once loaded', async () => {
    const { req } = await makeApp()
    for (const path of ['/livez', '/readyz']) {
      const res = await req(path)
      expect([res.status, await readJson(res)]).toEqual([200, { status: 'ok' }])
    }
  })

  it('turns /readyz to 503 while the last write failed, and back once one lands', async () => {
    const dataFile = join(tempDir(), 'db.json')
    const { req, admin } = await makeApp({ dataFile })
    const blocked = blockWrites(dataFile)
    expect((await admin.patch('/api/clubs/penn-chess-society/', { size: 2 })).status).toBe(503)
    const down = await req('/readyz')
    expect(down.status).toBe(503)
    expect(down.headers.get('retry-after')).toBe('5')
    expect(await readJson(down)).toEqual({ status: 'unavailable', reason: 'the last write failed: EISDIR' })
    expect((await req('/livez')).status).toBe(200)
    blocked.unblock()
    expect((await admin.patch('/api/clubs/penn-chess-society/', { size: 2 })).status).toBe(200)
    expect((await req('/readyz')).status).toBe(200)
  })

  it('turns /readyz to 503 once a shutdown begins', async () => {
    let stopping = false
    const { store, data } = await openDataFile(':memory:', SEED_FILE)
    const app = createApp({
      store,
      data,
      logos: new LogoMemory(),
      config: { adminToken: ADMIN_TOKEN, autoApprove: false, readOnly: false },
      stopping: () => stopping,
    })
    const readyz = () => app.handle(new Request('http://localhost/readyz'))
    expect((await readyz()).status).toBe(200)
    stopping = true
    expect(await readJson(await readyz())).toEqual({ status: 'unavailable', reason: 'shutting down' })
  })

  it('redirects GET / to the API root, which lists where everything is', async () => {
    const { req } = await makeApp()
    const home = await req('/')
    expect([home.status, home.headers.get('location')]).toEqual([302, 'http://localhost/api/'])
    const root = await req('/api/')
    expect(await readJson(root)).toEqual({
      clubs: 'http://localhost/api/clubs/',
      tags: 'http://localhost/api/tags/',
      changes: 'http://localhost/api/changes/',
      favorites: 'http://localhost/api/favorites/',
      subscriptions: 'http://localhost/api/subscriptions/',
      users: 'http://localhost/api/users/',
      docs: 'http://localhost/swagger',
    })
    const html = await (await req('/api/', { headers: { accept: 'text/html' } })).text()
    expect(html).toContain('<h1 tabindex="-1">Club Directory API</h1>')
  })
})

/** Prometheus text: each sample as {name, labels, value}. */
function samples(text: string) {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
      if (!match) throw new Error(`not a Prometheus sample: ${line}`)
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
      )
      return { name: match[1]!, labels: labels as Record<string, string>, value: Number(match[3]) }
    })
}

describe('GET /metrics', () => {
  it('is a 404 unless CLUBS_METRICS is on', async () => {
    const { req } = await makeApp()
    expect((await req('/metrics')).status).toBe(404)
  })

  it('counts requests by method, route template and status (never a raw path), clubs by state, snapshot writes and the process', async () => {
    const { base } = await service({ CLUBS_METRICS: 'true', CLUBS_METRICS_TOKEN: 'scrape-token' })
    const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` }
    await fetch(`${base}/api/clubs/penn-chess-society/`)
    await fetch(`${base}/api/clubs/no-such-club/`)
    await fetch(`${base}/api/clubs/`, { method: 'DELETE' })
    await fetch(`${base}/no/such/path/penn-chess-society`)
    const created = await fetch(`${base}/api/clubs/`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Metrics Club' }),
    })
    expect(created.status).toBe(201)
    expect((await fetch(`${base}/metrics`)).status).toBe(401)
    const res = await fetch(`${base}/metrics`, { headers: { Authorization: 'Bearer scrape-token' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('text/plain')
    const all = samples(await res.text())
    const requests = all.filter((s) => s.name === 'clubs_http_requests_total')
    const count = (method: string, route: string, status: string) =>
      requests.find((s) => s.labels.method === method && s.labels.route === route && s.labels.status === status)?.value
    expect(count('GET', '/api/clubs/:code/', '200')).toBe(1)
    expect(count('GET', '/api/clubs/:code/', '404')).toBe(1)
    expect(count('DELETE', '/api/clubs/', '405')).toBe(1)
    expect(count('GET', 'unmatched', '404')).toBe(1)
    expect(count('POST', '/api/clubs/', '201')).toBe(1)
    for (const sample of all)
      for (const value of Object.values(sample.labels)) expect(value).not.toContain('penn-chess-society')
    expect(
      all.some((s) => s.name === 'clubs_http_request_duration_seconds_bucket' && s.labels.route === '/api/clubs/'),
    ).toBe(true)
    const state = (name: string) => all.find((s) => s.name === 'clubs_clubs' && s.labels.state === name)?.value
    expect(state('public')).toBeGreaterThan(60)
    expect(state('new_pending')).toBeGreaterThanOrEqual(1)
    expect(
      all.find((s) => s.name === 'clubs_snapshot_writes_total' && s.labels.outcome === 'ok')?.value,
    ).toBeGreaterThanOrEqual(1)
    expect(all.find((s) => s.name === 'clubs_snapshot_write_duration_seconds_count')?.value).toBeGreaterThanOrEqual(1)
    expect(all.find((s) => s.name === 'clubs_process_resident_memory_bytes')?.value).toBeGreaterThan(0)
    expect(all.find((s) => s.name === 'clubs_process_cpu_seconds_total')?.value).toBeGreaterThan(0)
  })
})

describe('X-Request-Id and the access log', () => {
  it('answers every request with its own X-Request-Id, or a new one, and logs it in a JSON line', async () => {
    const { base, logged } = await service({})
    const own = await fetch(`${base}/api/clubs/`, { headers: { 'X-Request-Id': 'trace-123/abc' } })
    expect(own.headers.get('x-request-id')).toBe('trace-123/abc')
    const fresh = await fetch(`${base}/nope`)
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    for (const bad of ['has spaces', 'x'.repeat(129)]) {
      const res = await fetch(`${base}/health`, { headers: { 'X-Request-Id': bad } })
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    }
    const [line] = await logged((l) => l.request_id === 'trace-123/abc')
    expect(line).toMatchObject({
      level: 'info',
      msg: 'request',
      method: 'GET',
      path: '/api/clubs/',
      status: 200,
      address: '127.0.0.1',
    })
    expect(typeof line!.time).toBe('string')
    expect(typeof line!.duration_ms).toBe('number')
    const [missing] = await logged((l) => l.path === '/nope')
    expect(missing!.request_id).toBe(fresh.headers.get('x-request-id')!)
  })
})

describe('backups (CLUBS_BACKUP_DIR, _INTERVAL, _KEEP)', () => {
  it('keeps complete, timestamped snapshots, the newest KEEP of them, written through a temp file', async () => {
    const dir = tempDir()
    const dataFile = join(dir, 'db.json')
    copyFileSync(SEED_FILE, dataFile)
    const backupDir = join(dir, 'backups')
    const written: (string | null)[] = []
    const backups = new Backups(
      dataFile,
      { dir: backupDir, intervalMs: 60_000, keep: 2 },
      {
        written: (path) => written.push(path),
        failed: (e) => {
          throw e
        },
      },
    )
    const taken = []
    for (const minute of [1, 2, 3]) taken.push(await backups.take(new Date(`2026-11-23T10:0${minute}:00.000Z`)))
    expect(readdirSync(backupDir).sort()).toEqual([
      'db-backup-2026-11-23T10-02-00.000Z.json',
      'db-backup-2026-11-23T10-03-00.000Z.json',
    ])
    expect(taken.at(-1)).toBe(join(backupDir, 'db-backup-2026-11-23T10-03-00.000Z.json'))
    expect(written).toEqual(taken)
    for (const name of readdirSync(backupDir)) {
      expect(snapshotProblem(JSON.parse(readFileSync(join(backupDir, name), 'utf8')))).toBeNull()
      expect(readFileSync(join(backupDir, name), 'utf8')).toBe(readFileSync(dataFile, 'utf8'))
    }
  })

  it('a real service backs up on its interval, and a backup restored as the data file is served', async () => {
    const backupDir = join(tempDir(), 'backups')
    const running = await service({ CLUBS_BACKUP_DIR: backupDir, CLUBS_BACKUP_INTERVAL: '1s', CLUBS_BACKUP_KEEP: '2' })
    const created = await fetch(`${running.base}/api/clubs/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Backed Up Club', approved: true }),
    })
    expect(created.status).toBe(201)
    // Three intervals: three backups taken, the oldest removed.
    await sleep(3300)
    const names = readdirSync(backupDir)
      .filter((n) => n.endsWith('.json'))
      .sort()
    expect(names.length).toBe(2)
    const latest = join(backupDir, names.at(-1)!)
    expect(readFileSync(latest, 'utf8')).toContain('"code":"backed-up-club"')
    running.proc.kill('SIGTERM')
    await running.proc.exited

    // The drill: a new data file from the backup, a service over it.
    const restoredDir = tempDir()
    copyFileSync(latest, join(restoredDir, 'db.json'))
    const port = freePort()
    const restored = spawnService(port, { CLUBS_DATA_FILE: join(restoredDir, 'db.json'), CLUBS_LOG_LEVEL: 'warn' })
    processes.push(restored)
    await waitForHealth(`http://127.0.0.1:${port}`, restored)
    const club = await fetch(`http://127.0.0.1:${port}/api/clubs/backed-up-club/`)
    expect([club.status, (await club.json()).name]).toEqual([200, 'Backed Up Club'])
  }, 30_000)

  it('npm run reset keeps the data it replaces as a copy no later write or backup replaces', async () => {
    const dir = tempDir()
    const dataFile = join(dir, 'db.json')
    const backupDir = join(dir, 'backups')
    const { store, admin } = await makeApp({ dataFile })
    expect((await admin.post('/api/clubs/', { name: 'Before The Reset' })).status).toBe(201)
    await store.close()
    const before = readFileSync(dataFile, 'utf8')
    const reset = Bun.spawnSync([process.execPath, join(ROOT, 'scripts', 'reset.ts')], {
      cwd: ROOT,
      env: { ...process.env, CLUBS_DATA_FILE: dataFile, CLUBS_BACKUP_DIR: backupDir },
    })
    expect(reset.exitCode).toBe(0)
    const [copy] = readdirSync(backupDir)
    expect(copy).toMatch(/^db-reset-.*\.json$/)
    expect(reset.stdout.toString()).toContain(join(backupDir, copy!))
    expect(readFileSync(join(backupDir, copy!), 'utf8')).toBe(before)
    expect(readFileSync(dataFile, 'utf8')).not.toContain('Before The Reset')
    // Writes after the reset, and periodic backups with KEEP 1, leave the copy alone.
    const after = await makeApp({ dataFile })
    expect((await after.admin.post('/api/clubs/', { name: 'After The Reset' })).status).toBe(201)
    const backups = new Backups(
      dataFile,
      { dir: backupDir, intervalMs: 60_000, keep: 1 },
      { written: () => {}, failed: () => {} },
    )
    await backups.take()
    await backups.take(new Date(Date.now() + 1000))
    expect(readFileSync(join(backupDir, copy!), 'utf8')).toBe(before)
    expect(readdirSync(backupDir).filter((n) => n.includes('-backup-'))).toHaveLength(1)
  })
})
