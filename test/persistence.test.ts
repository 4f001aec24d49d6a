import { afterEach, describe, expect, it } from 'bun:test'
import type { Subprocess } from 'bun'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createApp } from '../src/app'
import { openDataFile } from '../src/data-file'
import { IN_MEMORY } from '../src/store/store'
import { WRITABLE_FIELDS } from '../harness/contract'
import { ADMIN_TOKEN, makeApp, NOW, readJson, SEED_FILE, tempDir } from '../harness/app'
import { ENTRY, freePort, ROOT, sleep, waitForHealth } from '../harness/service'
import { LogoMemory } from '../src/store/logo-store'
import { directoryOnDisk } from '../harness/on-disk'

// docs/reference.md §9: one lowdb JSON file, written before a write is answered, never overwritten when
// invalid, group commit, graceful shutdown. Every test gets its own temp folder.

const SEED_TEXT = readFileSync(SEED_FILE, 'utf8')
const seed = () => JSON.parse(SEED_TEXT)
const readData = (file: string) => directoryOnDisk(file)
const recordIn = (file: string, code: string) => readData(file).clubs.find((c: any) => c.code === code)

const processes: Subprocess[] = []
const freshDir = () => {
  const dir = tempDir('clubs-persistence-')
  return dir
}

afterEach(() => {
  for (const proc of processes.splice(0)) if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL')
})

/** Starts the real service (`bun src/index.ts`); it is killed after the test if still running. */
function startService(env: Record<string, string>, cwd = ROOT) {
  const proc = Bun.spawn([process.execPath, ENTRY], {
    cwd,
    env: { ...process.env, CLUBS_LOG_LEVEL: 'info', HOST: '127.0.0.1', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  processes.push(proc)
  return proc
}

/** The exit code, or "timeout" when the process is still running after `ms`. */
const exitWithin = (proc: Subprocess, ms: number) =>
  Promise.race([proc.exited, sleep(ms).then(() => 'timeout' as const)])

const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }

/** Every writable field (docs/reference.md §3.1) of a detail body, as a PUT needs them. */
function putBody(detail: Record<string, any>, changes: Record<string, unknown>) {
  const { code: _code, approved: _a, approved_comment: _c, ...rest } = detail
  const body: Record<string, unknown> = Object.fromEntries(
    WRITABLE_FIELDS.filter((f) => f !== 'tags').map((f) => [f, rest[f]]),
  )
  body.tags = detail.tags.map((t: { id: number }) => ({ id: t.id }))
  return { ...body, ...changes }
}

describe('first start', () => {
  it('creates the data file (and its folder) from the seed when there is none', async () => {
    const file = join(freshDir(), 'nested', 'folder', 'db.json')
    const { req } = await makeApp({ dataFile: file })
    expect(existsSync(file)).toBe(true)
    expect(readData(file)).toEqual(seed())
    const listed = await readJson(await req('/api/clubs/'))
    expect(listed.length).toBe(seed().clubs.filter((c: any) => c.approved && c.active).length)
  })

  it('reports where the data came from', async () => {
    const file = join(freshDir(), 'db.json')
    const first = await openDataFile(file, SEED_FILE)
    expect(first.source).toBe('seed')
    await first.store.close()
    expect((await openDataFile(file, SEED_FILE)).source).toBe('file')
  })

  it('refuses to start from a seed file that does not exist, and creates no data file', async () => {
    const dir = freshDir()
    const file = join(dir, 'db.json')
    const missing = join(dir, 'no-seed.json')
    await expect(openDataFile(file, missing)).rejects.toThrow(missing)
    expect(readdirSync(dir)).toEqual([])
  })
})

describe('restart', () => {
  it('keeps every create, PUT, PATCH and DELETE made before it', async () => {
    const file = join(freshDir(), 'db.json')
    const a = await makeApp({ dataFile: file })

    const created = await a.admin.post('/api/clubs/', {
      name: 'Persistence Society',
      subtitle: 'We remember',
      email: 'keep@clubs.example.edu',
      email_public: false,
      size: 2,
      founded: '2001-02-03',
      tags: [{ name: 'Games' }, { id: 1 }],
    })
    expect(created.status).toBe(201)
    const seedDetail = await readJson(await a.admin.get('/api/clubs/mock-trial/'))
    const put = await a.admin.put('/api/clubs/mock-trial/', putBody(seedDetail, { subtitle: 'Replaced', size: 4 }))
    expect(put.status).toBe(200)
    const patched = await a.admin.patch('/api/clubs/penn-chess-society/', { accepting_members: false, tags: [] })
    expect(patched.status).toBe(200)
    expect((await a.admin.delete('/api/clubs/club-rowing/')).status).toBe(204)

    const codes = ['persistence-society', 'mock-trial', 'penn-chess-society']
    const before = await Promise.all(codes.map(async (code) => readJson(await a.admin.get(`/api/clubs/${code}/`))))
    const listBefore = await readJson(await a.admin.get('/api/clubs/'))

    const b = await makeApp({ dataFile: file })
    const after = await Promise.all(codes.map(async (code) => readJson(await b.admin.get(`/api/clubs/${code}/`))))
    expect(after).toEqual(before)
    expect(after[1].subtitle).toBe('Replaced')
    expect(after[2].accepting_members).toBe(false)
    expect(await readJson(await b.admin.get('/api/clubs/'))).toEqual(listBefore)

    expect((await b.admin.get('/api/clubs/club-rowing/')).status).toBe(404)
    expect((await b.req('/api/clubs/club-rowing/')).status).toBe(404)
    expect(recordIn(file, 'club-rowing').archived_at).toBe(NOW.toISOString())

    const reuse = await b.admin.post('/api/clubs/', { name: 'Another Rowing Club', code: 'club-rowing' })
    expect(reuse.status).toBe(400)
    expect(Object.keys(await readJson(reuse))).toEqual(['code'])
  })
})

describe('durability', () => {
  it('has a created club on disk by the time the 201 arrives', async () => {
    const file = join(freshDir(), 'db.json')
    const { admin } = await makeApp({ dataFile: file })
    const res = await admin.post('/api/clubs/', { name: 'Written Before Answered' })
    expect(res.status).toBe(201)
    const record = recordIn(file, 'written-before-answered')
    expect(record).toBeDefined()
    expect(record.name).toBe('Written Before Answered')
    expect(record.archived_at).toBeNull()
  })

  it('has a PATCH and a DELETE on disk by the time they are answered', async () => {
    const file = join(freshDir(), 'db.json')
    const { admin } = await makeApp({ dataFile: file })
    expect((await admin.patch('/api/clubs/mock-trial/', { subtitle: 'On disk now' })).status).toBe(200)
    expect(recordIn(file, 'mock-trial').subtitle).toBe('On disk now')
    expect((await admin.delete('/api/clubs/mock-trial/')).status).toBe(204)
    expect(recordIn(file, 'mock-trial').archived_at).toBe(NOW.toISOString())
  })

  it('keeps the snapshot before the last snapshot write as <file>.bak', async () => {
    const file = join(freshDir(), 'db.json')
    const first = await makeApp({ dataFile: file })
    expect((await first.admin.patch('/api/clubs/mock-trial/', { subtitle: 'First' })).status).toBe(200)
    // A clean stop writes the snapshot whole.
    await first.store.close()
    const afterFirst = readFileSync(file, 'utf8')
    const { admin, store } = await makeApp({ dataFile: file })
    expect((await admin.patch('/api/clubs/mock-trial/', { subtitle: 'Second' })).status).toBe(200)
    // Appended to the journal: the snapshot and its backup are as they were until the next snapshot.
    expect(readFileSync(file, 'utf8')).toBe(afterFirst)
    await store.close()
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe(afterFirst)
    expect(recordIn(`${file}.bak`, 'mock-trial').subtitle).toBe('First')
    expect(recordIn(file, 'mock-trial').subtitle).toBe('Second')
  })

  it('leaves only the data file, its journal, its log, its lock and (once stopped) its backup behind: no temp file from an atomic replace', async () => {
    const dir = freshDir()
    const { admin, store } = await makeApp({ dataFile: join(dir, 'db.json') })
    await Promise.all(Array.from({ length: 10 }, (_, i) => admin.post('/api/clubs/', { name: `Atomic ${i}` })))
    expect(readdirSync(dir).sort()).toEqual(['db.json', 'db.json.changes', 'db.json.journal', 'db.json.lock'])
    await store.close()
    expect(readdirSync(dir).sort()).toEqual(['db.json', 'db.json.bak', 'db.json.changes', 'db.json.journal'])
  })

  it('does not change the file for a refused write', async () => {
    const file = join(freshDir(), 'db.json')
    const { admin } = await makeApp({ dataFile: file })
    const before = readFileSync(file)
    expect((await admin.post('/api/clubs/', { name: '', size: 9 })).status).toBe(400)
    expect((await admin.patch('/api/clubs/mock-trial/', { size: 'big' })).status).toBe(400)
    expect(readFileSync(file).equals(before)).toBe(true)
  })
})

describe('an invalid data file', () => {
  const withClub = (change: (club: Record<string, unknown>) => void) => {
    const data = seed()
    change(data.clubs[0])
    return JSON.stringify(data, null, 2)
  }
  const rows: [string, string][] = [
    ['an empty file', ''],
    ['truncated JSON', SEED_TEXT.slice(0, Math.floor(SEED_TEXT.length / 2))],
    ['not JSON', 'not json'],
    ['an array', '[]'],
    ['null', 'null'],
    ['a version without clubs or tags', '{"version":1}'],
    ['another version', JSON.stringify({ ...seed(), version: 99 })],
    ['a club missing its name', withClub((club) => delete club.name)],
    ['a club whose size is the string "3"', withClub((club) => (club.size = '3'))],
    ['a club with a tag that does not exist', withClub((club) => (club.tags = [999]))],
    ['two clubs with one code', withClub((club) => (club.code = 'mock-trial'))],
  ]

  it.each(rows)('refuses %s, naming the file, and leaves it byte for byte', async (_what, content) => {
    const dir = freshDir()
    const file = join(dir, 'db.json')
    writeFileSync(file, content)
    const before = readFileSync(file)
    const mtime = statSync(file).mtimeMs
    await sleep(5)
    await expect(openDataFile(file, SEED_FILE)).rejects.toThrow(file)
    expect(readFileSync(file).equals(before)).toBe(true)
    expect(statSync(file).mtimeMs).toBe(mtime)
    expect(readdirSync(dir)).toEqual(['db.json'])
  })

  it('refuses a data file that is a folder', async () => {
    const file = join(freshDir(), 'db.json')
    mkdirSync(file)
    await expect(openDataFile(file, SEED_FILE)).rejects.toThrow(file)
    expect(readdirSync(file)).toEqual([])
  })

  it('stops the real service from starting: exit non-zero, stderr names the file', async () => {
    const file = join(freshDir(), 'db.json')
    const content = '{"version":1,"tags":[],"clubs":[{"code":"x"}]}'
    writeFileSync(file, content)
    const proc = startService({ CLUBS_DATA_FILE: file, PORT: '0', CLUBS_ADMIN_TOKEN: ADMIN_TOKEN })
    const code = await exitWithin(proc, 15_000)
    expect(code).not.toBe('timeout')
    expect(code).not.toBe(0)
    const stderr = await new Response(proc.stderr as ReadableStream).text()
    expect(stderr).toContain(file)
    expect(readFileSync(file, 'utf8')).toBe(content)
  })
})

describe('concurrent writes', () => {
  it('answers 50 concurrent creates over a real server, sharing journal appends, and keeps them all', async () => {
    const file = join(freshDir(), 'db.json')
    const { store, data } = await openDataFile(file, SEED_FILE)
    const app = createApp({
      store,
      data,
      logos: new LogoMemory(),
      config: { adminToken: ADMIN_TOKEN, autoApprove: false, readOnly: false },
      now: () => NOW,
      logFault: () => {},
    })
    app.listen({ port: 0, hostname: '127.0.0.1' })
    try {
      const base = `http://127.0.0.1:${app.server!.port}`
      const names = Array.from({ length: 50 }, (_, i) => `Concurrent Club ${i}`)
      const responses = await Promise.all(
        names.map((name) =>
          fetch(`${base}/api/clubs/`, { method: 'POST', headers: adminHeaders, body: JSON.stringify({ name }) }),
        ),
      )
      expect(responses.map((res) => res.status)).toEqual(names.map(() => 201))
      const codes = await Promise.all(responses.map(async (res) => (await res.json()).code as string))
      expect(new Set(codes).size).toBe(50)
      const appends = readFileSync(`${file}.journal`, 'utf8').trim().split('\n').length - 1
      expect(appends).toBeGreaterThan(0)
      expect(appends).toBeLessThan(50)
      const onDisk = new Set(readData(file).clubs.map((c: any) => c.code))
      for (const code of codes) expect(onDisk.has(code)).toBe(true)
    } finally {
      await app.stop()
      await store.close()
    }

    const b = await makeApp({ dataFile: file })
    const listed = await readJson(await b.admin.get('/api/clubs/'))
    const names = new Set(listed.map((c: any) => c.name))
    for (let i = 0; i < 50; i++) expect(names.has(`Concurrent Club ${i}`)).toBe(true)
  })
})

describe(':memory:', () => {
  it('keeps writes in memory and creates no file', async () => {
    const { store, req, admin } = await makeApp()
    expect(store.file).toBe(IN_MEMORY)
    expect((await admin.post('/api/clubs/', { name: 'Ephemeral Club' })).status).toBe(201)
    expect((await req('/api/clubs/ephemeral-club/', { token: ADMIN_TOKEN })).status).toBe(200)
    expect(existsSync(IN_MEMORY)).toBe(false)
    expect(existsSync(join(ROOT, IN_MEMORY))).toBe(false)
  })

  it('the real service with CLUBS_DATA_FILE=:memory: writes nothing in its folder', async () => {
    // Run from an empty folder (absolute script and seed paths) so any file it made would show.
    const cwd = freshDir()
    const port = freePort()
    const proc = startService(
      { CLUBS_DATA_FILE: ':memory:', CLUBS_SEED_FILE: SEED_FILE, PORT: String(port), CLUBS_ADMIN_TOKEN: ADMIN_TOKEN },
      cwd,
    )
    const base = `http://127.0.0.1:${port}`
    await waitForHealth(base, proc)
    const res = await fetch(`${base}/api/clubs/`, {
      method: 'POST',
      headers: adminHeaders,
      body: JSON.stringify({ name: 'Memory Only' }),
    })
    expect(res.status).toBe(201)
    proc.kill('SIGTERM')
    expect(await exitWithin(proc, 15_000)).toBe(0)
    expect(readdirSync(cwd)).toEqual([])
  })
})

describe('graceful shutdown', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'on %s stops, keeps acknowledged writes, logs "stopped" and exits 0',
    async (signal) => {
      const file = join(freshDir(), 'db.json')
      const port = freePort()
      const proc = startService({ CLUBS_DATA_FILE: file, PORT: String(port), CLUBS_ADMIN_TOKEN: ADMIN_TOKEN })
      const base = `http://127.0.0.1:${port}`
      await waitForHealth(base, proc)

      const created = await fetch(`${base}/api/clubs/`, {
        method: 'POST',
        headers: adminHeaders,
        body: JSON.stringify({ name: 'Before Shutdown' }),
      })
      expect(created.status).toBe(201)
      // Writes racing the signal: those answered 201 must be on disk afterwards.
      const racing = Array.from({ length: 20 }, (_, i) =>
        fetch(`${base}/api/clubs/`, {
          method: 'POST',
          headers: adminHeaders,
          body: JSON.stringify({ name: `Racing ${i}` }),
        }).then(
          async (res) => (res.status === 201 ? ((await res.json()).code as string) : null),
          () => null,
        ),
      )
      proc.kill(signal)
      expect(await exitWithin(proc, 15_000)).toBe(0)
      const acknowledged = (await Promise.all(racing)).filter((code) => code !== null)

      const stdout = await new Response(proc.stdout as ReadableStream).text()
      const lines = stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
      const stopped = lines.find((line) => /stopped/.test(line.msg))
      expect(stopped).toBeDefined()
      expect(stopped.signal).toBe(signal)

      const onDisk = new Set(readData(file).clubs.map((c: any) => c.code))
      expect(onDisk.has('before-shutdown')).toBe(true)
      for (const code of acknowledged) expect(onDisk.has(code)).toBe(true)
      expect(
        await fetch(`${base}/health`).then(
          () => 'answered',
          () => 'refused',
        ),
      ).toBe('refused')
    },
  )
})
