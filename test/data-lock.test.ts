import { afterAll, describe, expect, it } from 'bun:test'
import type { Subprocess } from 'bun'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN_TOKEN, readJson, tempDir } from '../harness/app'
import { ENTRY, freePort, ROOT, stopService, waitForHealth } from '../harness/service'
import { mountTmpfs, SKIP_TMPFS, umount } from '../harness/tmpfs'
import { lockFileOf } from '../src/store/store'

// One data file, one writing server (issue 24 §2): the lock is the kernel's (flock), so a second
// server refuses to start while the first lives — in another pid namespace too, where both are
// pid 1 — and a SIGKILLed holder's lock is free at once. A read-only server takes no lock and
// writes nothing, so several share a file on a read-only mount.

const processes: Subprocess[] = []
const mounts: string[] = []
afterAll(async () => {
  await Promise.all(processes.map(stopService))
  for (const dir of mounts) umount(dir)
}, 30_000)

function dataFile(): string {
  const dir = tempDir('clubs-lock-')
  return join(dir, 'db.json')
}

const ENV = { CLUBS_ADMIN_TOKEN: ADMIN_TOKEN, CLUBS_LOG_LEVEL: 'warn', CLUBS_RATE_LIMIT: '', CLUBS_READ_ONLY: 'false' }

/** Starts the service on `file`, in a pid namespace of its own (as pid 1) when `namespace`. */
function start(file: string, { namespace = false, env = {} as Record<string, string> } = {}) {
  const port = freePort()
  const command = [process.execPath, ENTRY]
  const proc = Bun.spawn(namespace ? ['unshare', '--pid', '--fork', '--kill-child=SIGKILL', ...command] : command, {
    cwd: ROOT,
    env: { ...process.env, ...ENV, PORT: String(port), HOST: '127.0.0.1', CLUBS_DATA_FILE: file, ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  processes.push(proc)
  return { proc, base: `http://127.0.0.1:${port}` }
}

/** Whether `service` came up (true) or exited (false, with what it said). */
async function outcome({ proc, base }: ReturnType<typeof start>) {
  try {
    await waitForHealth(base, proc)
    return { started: true, stderr: '' }
  } catch (error) {
    return { started: false, stderr: String(error) }
  }
}

const createClub = (base: string, name: string) =>
  fetch(`${base}/api/clubs/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  })

const namespacesWork = () =>
  Bun.spawnSync(['unshare', '--pid', '--fork', 'true'], { stdout: 'ignore', stderr: 'ignore' }).exitCode === 0

describe('one writing server per data file', () => {
  it.skipIf(SKIP_TMPFS)(
    'refuses a second server in another pid namespace (both pid 1); the lock of a SIGKILLed holder is taken at the next start',
    async () => {
      expect(namespacesWork()).toBe(true)
      const file = dataFile()
      const first = start(file, { namespace: true })
      expect((await outcome(first)).started).toBe(true)
      expect(JSON.parse(readFileSync(lockFileOf(file), 'utf8')).pid).toBe(1)

      const second = start(file, { namespace: true })
      const refused = await outcome(second)
      expect(refused.started).toBe(false)
      expect(refused.stderr).toContain('another process (pid 1 on host ')
      expect(second.proc.exitCode).toBe(1)

      expect((await createClub(first.base, 'Acknowledged Circle')).status).toBe(201)
      first.proc.kill('SIGKILL')
      await first.proc.exited

      const third = start(file, { namespace: true })
      expect((await outcome(third)).started).toBe(true)
      const kept = await fetch(`${third.base}/api/clubs/acknowledged-circle/`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      })
      expect(kept.status).toBe(200)
    },
    30_000,
  )

  it('lets exactly one of six servers started at once on one file start', async () => {
    const file = dataFile()
    const services = Array.from({ length: 6 }, () => start(file))
    const outcomes = await Promise.all(services.map(outcome))
    expect(outcomes.filter((o) => o.started).length).toBe(1)
    for (const o of outcomes.filter((o) => !o.started)) expect(o.stderr).toContain('another process (pid ')
  }, 30_000)

  it('gives the lock to exactly one of eight processes that ask for it in the same millisecond, round after round', async () => {
    const lockFile = lockFileOf(dataFile())
    for (let round = 0; round < 3; round++) {
      const at = Date.now() + 1500
      const racers = Array.from({ length: 8 }, () =>
        Bun.spawn([process.execPath, join(ROOT, 'harness', 'lock-racer.ts'), lockFile, String(at)], {
          stdout: 'pipe',
        }),
      )
      const said = await Promise.all(racers.map(async (racer) => (await new Response(racer.stdout).text()).trim()))
      expect([round, said.filter((word) => word === 'won').length]).toEqual([round, 1])
    }
  }, 60_000)

  it('starts over a lock file that names a live process holding no lock (a pid reused after a restart)', async () => {
    const file = dataFile()
    writeFileSync(file.replace(/db\.json$/, 'db.json.lock'), `${process.pid}\n`)
    expect((await outcome(start(file))).started).toBe(true)
  }, 30_000)

  it('says which process holds the file to an operator command, which changes nothing', async () => {
    const file = dataFile()
    expect((await outcome(start(file))).started).toBe(true)
    const before = readFileSync(file, 'utf8')
    const reset = Bun.spawnSync(['bun', 'run', 'scripts/reset.ts'], {
      cwd: ROOT,
      env: { ...process.env, PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}`, CLUBS_DATA_FILE: file },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    expect(reset.exitCode).toBe(1)
    expect(reset.stderr.toString()).toMatch(/the server \(pid \d+ on host .+, since .+\) is using/)
    expect(readFileSync(file, 'utf8')).toBe(before)
  }, 30_000)
})

describe('read-only servers', () => {
  it.skipIf(SKIP_TMPFS)(
    'need no lock and no write access: two share a file on a read-only mount',
    async () => {
      const dir = tempDir('clubs-ro-')
      mkdirSync(dir, { recursive: true })
      mountTmpfs(dir, 1024)
      mounts.push(dir)
      const file = join(dir, 'db.json')
      writeFileSync(file, readFileSync(join(ROOT, 'data', 'seed.json')))
      const remount = Bun.spawnSync(['mount', '-o', 'remount,ro', dir], { stderr: 'pipe' })
      expect(remount.stderr.toString()).toBe('')

      const readers = [0, 1].map(() => start(file, { env: { CLUBS_READ_ONLY: 'true' } }))
      for (const reader of readers) {
        const came = await outcome(reader)
        expect(came).toEqual({ started: true, stderr: '' })
        const club = await readJson(await fetch(`${reader.base}/api/clubs/penn-chess-society/`))
        expect(club.name).toBe('Penn Chess Society')
        expect((await createClub(reader.base, 'Not Here')).status).toBe(405)
      }
      expect(existsSync(lockFileOf(file))).toBe(false)
    },
    30_000,
  )
})
