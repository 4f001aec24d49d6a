import { afterEach, describe, expect, it } from 'bun:test'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { readJson, tempDir } from '../harness/app'
import { npmStart, shellEnvironment, type StartedService } from '../harness/npm-start'
import { ENTRY, freePort, ROOT } from '../harness/service'
import { lockFileOf } from '../src/store/store'
import { directoryOnDisk } from '../harness/on-disk'

// What the service does at start-up for a newcomer and an operator (issue 16). Outside production
// and without CLUBS_ADMIN_TOKEN, a directory with no user yet (a new data file from the seed, or
// :memory:) gets a development admin token: printed once, kept only as the "admin" user's SHA-256.
// Production (NODE_ENV=production) and CLUBS_ADMIN_TOKEN keep the path they had. A busy port is
// one line on stderr and leaves no lock.

const services: StartedService[] = []

afterEach(async () => {
  for (const service of services.splice(0)) {
    if (service.proc.exitCode === null) service.proc.kill('SIGKILL')
    await service.proc.exited
  }
})

function dataFile(): string {
  const dir = tempDir('clubs-start-up-')
  return join(dir, 'db.json')
}

async function start(env: Record<string, string>): Promise<StartedService> {
  const service = await npmStart(freePort(), env)
  services.push(service)
  return service
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

function send(service: StartedService, path: string, token: string | null, init: RequestInit = {}) {
  const headers = new Headers(init.headers)
  if (token !== null) headers.set('authorization', `Bearer ${token}`)
  return fetch(`${service.base}${path}`, { ...init, headers })
}

const createClub = (service: StartedService, token: string | null, name: string) =>
  send(service, '/api/clubs/', token, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  })

const usersIn = (file: string) => directoryOnDisk(file).users as Record<string, unknown>[]

describe('the development admin token', () => {
  it('is printed once by a first start from the seed, with how to use it, and writes as the admin', async () => {
    const file = dataFile()
    const service = await start({ CLUBS_DATA_FILE: file })
    const token = service.developmentToken!
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(service.stdout()).toContain(`curl -H "Authorization: Bearer $TOKEN" ${service.base}/api/users/me/`)
    expect(service.stdout().split(token).length - 1).toBe(1)
    expect(await readJson(await send(service, '/api/users/me/', token))).toEqual({ username: 'admin', is_admin: true })
    expect((await createClub(service, token, 'Go Club')).status).toBe(201)
    expect(await readJson(await send(service, '/api/users/', token))).toEqual([
      { username: 'admin', is_admin: true, is_active: true },
    ])
  })

  it('is kept only as the admin user’s SHA-256, and outlives a restart without being printed again', async () => {
    const file = dataFile()
    const first = await start({ CLUBS_DATA_FILE: file })
    const token = first.developmentToken!
    expect(await first.stop()).toBe(0)
    expect(readFileSync(file, 'utf8')).not.toContain(token)
    expect(usersIn(file)).toEqual([
      { username: 'admin', is_admin: true, token_sha256: sha256(token), created_at: expect.any(String) },
    ])
    const again = await start({ CLUBS_DATA_FILE: file })
    expect(again.developmentToken).toBeNull()
    expect(again.stdout()).toContain('npm run users:token -- admin')
    expect((await createClub(again, token, 'Go Club')).status).toBe(201)
  })

  it('is made for an in-memory directory at every start', async () => {
    const first = await start({ CLUBS_DATA_FILE: ':memory:' })
    const second = await start({ CLUBS_DATA_FILE: ':memory:' })
    expect(first.developmentToken).not.toBeNull()
    expect(second.developmentToken).not.toBe(first.developmentToken)
    expect((await createClub(second, second.developmentToken, 'Go Club')).status).toBe(201)
  })

  it('is made by the start after a first start that could not listen', async () => {
    const file = dataFile()
    const port = freePort()
    const blocker = Bun.listen({ hostname: '127.0.0.1', port, socket: { data() {} } })
    const refused = Bun.spawnSync([process.execPath, ENTRY], {
      cwd: ROOT,
      env: shellEnvironment({ PORT: String(port), HOST: '127.0.0.1', CLUBS_DATA_FILE: file }),
    })
    blocker.stop(true)
    expect(refused.exitCode).toBe(1)
    expect(refused.stdout.toString()).not.toContain('export TOKEN=')
    const service = await start({ CLUBS_DATA_FILE: file })
    expect((await createClub(service, service.developmentToken, 'Go Club')).status).toBe(201)
  })

  const none: { rule: string; env: Record<string, string> }[] = [
    { rule: 'in production (NODE_ENV=production, as the Docker image sets)', env: { NODE_ENV: 'production' } },
    { rule: 'when CLUBS_ADMIN_TOKEN is set', env: { CLUBS_ADMIN_TOKEN: 'operator-chose-this' } },
    { rule: 'in a read-only directory', env: { CLUBS_READ_ONLY: 'true' } },
  ]
  for (const { rule, env } of none)
    it(`is not made ${rule}`, async () => {
      const file = dataFile()
      const service = await start({ CLUBS_DATA_FILE: file, ...env })
      expect(service.developmentToken).toBeNull()
      expect(service.stdout()).not.toContain('export TOKEN=')
      // A read-only server writes nothing at all, not even the data file from the seed.
      expect(existsSync(file) ? usersIn(file) : 'no file').toEqual(env.CLUBS_READ_ONLY ? 'no file' : [])
    })

  it('stops opening the API when CLUBS_ADMIN_TOKEN is set, or in production', async () => {
    const file = dataFile()
    const first = await start({ CLUBS_DATA_FILE: file })
    const token = first.developmentToken!
    await first.stop()
    const withAdminToken = await start({ CLUBS_DATA_FILE: file, CLUBS_ADMIN_TOKEN: 'operator-chose-this' })
    expect((await createClub(withAdminToken, token, 'Go Club')).status).toBe(401)
    expect((await createClub(withAdminToken, 'operator-chose-this', 'Go Club')).status).toBe(201)
    await withAdminToken.stop()
    const production = await start({ CLUBS_DATA_FILE: file, NODE_ENV: 'production' })
    expect((await createClub(production, token, 'Chess Club')).status).toBe(401)
  })
})

describe('a 401', () => {
  it('says so when the server has no admin token', async () => {
    const service = await start({ CLUBS_DATA_FILE: dataFile(), NODE_ENV: 'production' })
    for (const token of ['change-me-please', null]) {
      const res = await createClub(service, token, 'Go Club')
      expect(res.status).toBe(401)
      expect(res.headers.get('www-authenticate')).toStartWith('Bearer')
      expect((await readJson(res)).detail).toContain(
        'This server has no admin token (CLUBS_ADMIN_TOKEN is not set): only tokens issued to its users work.',
      )
    }
  })

  it('says nothing of the kind when it has one', async () => {
    const service = await start({ CLUBS_DATA_FILE: dataFile() })
    const res = await createClub(service, 'change-me-please', 'Go Club')
    expect(res.status).toBe(401)
    expect(await readJson(res)).toEqual({ detail: 'Invalid token.' })
  })
})

describe('a busy port', () => {
  it('is one line on stderr, exit 1, and leaves no lock on the data file', () => {
    const file = dataFile()
    const port = freePort()
    const blocker = Bun.listen({ hostname: '127.0.0.1', port, socket: { data() {} } })
    try {
      const run = Bun.spawnSync([process.execPath, ENTRY], {
        cwd: ROOT,
        env: shellEnvironment({ PORT: String(port), HOST: '127.0.0.1', CLUBS_DATA_FILE: file }),
      })
      expect(run.exitCode).toBe(1)
      const stderr = run.stderr.toString().trimEnd()
      expect(stderr.split('\n')).toHaveLength(1)
      expect(stderr).toContain(`port ${port} on 127.0.0.1 is in use`)
      expect(existsSync(lockFileOf(file))).toBe(false)
    } finally {
      blocker.stop(true)
    }
  })
})

describe('npm start under a supervisor', () => {
  it('stops the server when the npm process it started is sent SIGTERM: port and data file free, a clean stop logged', async () => {
    const file = dataFile()
    const port = freePort()
    // The server's output goes to a file: it outlives npm's pipe, so every line of the stop is there.
    const log = `${file}.out`
    const npm = Bun.spawn(['npm', 'start'], {
      cwd: ROOT,
      env: shellEnvironment({
        PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}`,
        PORT: String(port),
        HOST: '127.0.0.1',
        CLUBS_DATA_FILE: file,
      }),
      stdin: 'ignore',
      stdout: Bun.file(log),
      stderr: 'ignore',
    })
    const answers = () =>
      fetch(`http://127.0.0.1:${port}/health`).then(
        (res) => res.ok,
        () => false,
      )
    /** Waits up to 10 s for `done`; answers whether it came. */
    const eventually = async (done: () => boolean | Promise<boolean>) => {
      for (let i = 0; i < 200; i++) {
        if (await done()) return true
        await Bun.sleep(50)
      }
      return false
    }
    expect(await eventually(answers)).toBe(true)
    npm.kill('SIGTERM')
    await npm.exited
    const stopped = () => readFileSync(log, 'utf8').includes('"signal":"SIGTERM"')
    expect(await eventually(stopped)).toBe(true)
    expect(await eventually(async () => !(await answers()) && !existsSync(lockFileOf(file)))).toBe(true)
  }, 30_000)
})
