import { afterAll, afterEach, beforeAll, describe, expect, it } from 'bun:test'
import { SQL, type Subprocess } from 'bun'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN_TOKEN, makeApp, readJson, SEED_FILE, tempDir } from '../harness/app'
import { startPostgres, type Postgres } from '../harness/postgres'
import { freePort, ROOT, runToEnd, spawnService, waitForHealth } from '../harness/service'
import { directoryOnDisk } from '../harness/on-disk'
import { users } from '../harness/users'
import { until } from '../harness/webhook-receiver'

// The operator's user commands (issue 13): users:add and users:token write straight into the data
// file while the server is stopped, and say plainly which file they wrote — the absolute path,
// and whether CLUBS_DATA_FILE chose it — so a token is never "added" to a file the server does
// not use. users:add refuses an existing username and points to users:token.

const processes: Subprocess[] = []

afterEach(async () => {
  for (const proc of processes.splice(0)) {
    if (proc.exitCode === null) proc.kill('SIGKILL')
    await proc.exited
  }
})

function freshDir(): string {
  const dir = tempDir('clubs-operator-')
  return dir
}

/** Runs `bun scripts/<script> ...args` in `cwd` with `env` (nothing of this process's CLUBS_* leaks in). */
async function run(script: string, args: string[], options: { cwd: string; env?: Record<string, string> }) {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('CLUBS_')))
  const { code, stdout, stderr } = await runToEnd([process.execPath, join(ROOT, 'scripts', script), ...args], {
    cwd: options.cwd,
    env: { ...inherited, CLUBS_SEED_FILE: SEED_FILE, ...options.env },
  })
  return { code, stdout, stderr, token: stdout.trim().split('\n').at(-1)!.trim() }
}

const usersAdd = (file: string, ...args: string[]) =>
  run('users-add.ts', args, { cwd: ROOT, env: { CLUBS_DATA_FILE: file } })
const usersToken = (file: string, ...args: string[]) =>
  run('users-token.ts', args, { cwd: ROOT, env: { CLUBS_DATA_FILE: file } })

const usersIn = (file: string) => directoryOnDisk(file).users as { username: string }[]

const me = async (file: string, token: string) => (await makeApp({ dataFile: file })).req('/api/users/me/', { token })

describe('users:add', () => {
  it('names the absolute path of the file it wrote, and that CLUBS_DATA_FILE chose it', async () => {
    const dir = freshDir()
    const added = await run('users-add.ts', ['alice'], { cwd: dir, env: { CLUBS_DATA_FILE: 'db.json' } })
    expect(added.code).toBe(0)
    expect(added.stdout).toContain(`to ${join(dir, 'db.json')} (CLUBS_DATA_FILE)`)
  })

  it('says when it wrote the default file because CLUBS_DATA_FILE is not set', async () => {
    const dir = freshDir()
    const added = await run('users-add.ts', ['alice'], { cwd: dir })
    expect(added.code).toBe(0)
    expect(added.stdout).toContain(join(dir, 'data', 'db.json'))
    expect(added.stdout).toContain('CLUBS_DATA_FILE is not set')
  })

  it('refuses an existing username and points to users:token', async () => {
    const file = join(freshDir(), 'db.json')
    const first = await usersAdd(file, 'alice')
    const second = await usersAdd(file, 'alice')
    expect(second.code).toBe(1)
    expect(second.stderr).toContain('npm run users:token -- alice')
    expect(second.stderr).toContain(file)
    expect((await me(file, first.token)).status).toBe(200)
  })
})

describe('users:token', () => {
  it('issues an existing user a new token in the file it names; the old one stops working', async () => {
    const file = join(freshDir(), 'db.json')
    const added = await usersAdd(file, 'alice', '--admin')
    const reissued = await usersToken(file, 'alice')
    expect(reissued.code).toBe(0)
    expect(reissued.stdout).toContain(`"alice" in ${file} (CLUBS_DATA_FILE)`)
    expect(reissued.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(readFileSync(file, 'utf8')).not.toContain(reissued.token)
    expect((await me(file, added.token)).status).toBe(401)
    expect(await readJson(await me(file, reissued.token))).toEqual({ username: 'alice', is_admin: true })
  })

  it('refuses an unknown user (pointing to users:add), and the bootstrap admin where CLUBS_ADMIN_TOKEN is its token', async () => {
    const file = join(freshDir(), 'db.json')
    const unknown = await usersToken(file, 'nobody')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('npm run users:add -- nobody')
    for (const env of [{ CLUBS_ADMIN_TOKEN: ADMIN_TOKEN }, { NODE_ENV: 'production' }] as Record<string, string>[]) {
      const admin = await run('users-token.ts', ['admin'], { cwd: ROOT, env: { CLUBS_DATA_FILE: file, ...env } })
      expect(admin.code).toBe(1)
      expect(admin.stderr).toContain('CLUBS_ADMIN_TOKEN')
    }
    expect(usersIn(file)).toEqual([])
    expect((await usersToken(file)).code).toBe(2)
  })

  it('issues the bootstrap admin a new development token, outside production without CLUBS_ADMIN_TOKEN', async () => {
    const file = join(freshDir(), 'db.json')
    const first = await usersToken(file, 'admin')
    expect(first.code).toBe(0)
    expect(first.stdout).toContain('development admin token')
    const second = await usersToken(file, 'admin')
    expect(usersIn(file).map((user) => user.username)).toEqual(['admin'])
    const { app } = await makeApp({ dataFile: file, config: { adminToken: null }, developmentAdmin: true })
    const me = (token: string) =>
      app.handle(new Request('http://localhost/api/users/me/', { headers: { authorization: `Bearer ${token}` } }))
    expect((await me(first.token)).status).toBe(401)
    expect(await readJson(await me(second.token))).toEqual({ username: 'admin', is_admin: true })
  })

  it('refuses while the server holds the file, and says which request to send it instead', async () => {
    const file = join(freshDir(), 'db.json')
    const added = await usersAdd(file, 'alice')
    const port = freePort()
    const server = spawnService(port, {
      CLUBS_DATA_FILE: file,
      CLUBS_ADMIN_TOKEN: ADMIN_TOKEN,
      CLUBS_LOG_LEVEL: 'warn',
    })
    processes.push(server)
    await waitForHealth(`http://127.0.0.1:${port}`, server)
    const refused = await usersToken(file, 'alice')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('POST /api/users/alice/token/')
    expect(refused.stdout).not.toContain('Token')
    server.kill('SIGTERM')
    await server.exited
    expect((await me(file, added.token)).status).toBe(200)
  })
})

// On a database (CLUBS_DATABASE_URL, docs/reference.md §19) the same commands write there, also while its
// instances run: no lock to refuse on, and the instances take the change in by replication.
// reset is refused while anything else is connected, keeps what it replaces as a data file
// data:copy brings back, keeps the key, and numbers changes on past every one used.
describe('on a database', () => {
  let pg: Postgres
  beforeAll(async () => {
    pg = await startPostgres()
  }, 60_000)
  afterAll(() => pg?.stop(), 60_000)

  type App = Awaited<ReturnType<typeof makeApp>>
  const instances: App[] = []
  afterEach(async () => {
    await Promise.all(instances.splice(0).map((app) => app.store.close().catch(() => undefined)))
  }, 20_000)
  const instance = async (url: string) => {
    const app = await makeApp({ databaseUrl: url })
    instances.push(app)
    return app
  }
  const onDatabase = (url: string, script: string, ...args: string[]) =>
    run(script, args, { cwd: freshDir(), env: { CLUBS_DATABASE_URL: url } })

  it('users:add and users:token write to it while an instance serves; the instance takes the token in within a second', async () => {
    const url = await pg.createDatabase()
    const app = await instance(url)
    const added = await onDatabase(url, 'users-add.ts', 'alice')
    expect(added.code).toBe(0)
    const shown = new URL(url)
    shown.password = ''
    expect(added.stdout).toContain(`to ${shown.href} (CLUBS_DATABASE_URL)`)
    expect(added.stdout).not.toContain(new URL(url).password)
    const reissued = await onDatabase(url, 'users-token.ts', 'alice')
    expect(reissued.code).toBe(0)
    // The instance has it within a second on an idle machine; the wait allows a loaded one.
    await until(
      async () => (await app.req('/api/users/me/', { token: reissued.token })).status === 200,
      'the new token',
      5_000,
    )
    expect((await app.req('/api/users/me/', { token: added.token })).status).toBe(401)
    const again = await onDatabase(url, 'users-add.ts', 'alice')
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining('npm run users:token -- alice')])
  }, 60_000)

  it('reset is refused while an instance is connected; then puts the seed back, keeping the old directory, the key and the numbering', async () => {
    const url = await pg.createDatabase()
    const app = await instance(url)
    const { alice: token } = await users(app, 'alice')
    expect((await app.admin.patch('/api/clubs/penn-chess-society/', { subtitle: 'Before the reset' })).status).toBe(200)
    const { last_seq } = await readJson(await app.req('/api/changes/'))
    expect(last_seq).toBeGreaterThan(0)

    const refused = await onDatabase(url, 'reset.ts')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('stop them first; nothing was changed')
    expect((await app.req('/api/users/me/', { token })).status).toBe(200)
    const keyBefore = await secretKeyOf(url)
    await app.store.close()

    const dir = freshDir()
    const reset = await run('reset.ts', [], { cwd: dir, env: { CLUBS_DATABASE_URL: url } })
    expect(reset.code).toBe(0)
    expect(reset.stdout).toContain('80 clubs')
    const kept = readdirSync(join(dir, 'data')).filter((name) => name.endsWith('.json'))
    expect(kept).toEqual([expect.stringMatching(/^clubs_\d+_\d+-reset-.*\.json$/)])
    expect(reset.stdout).toContain(`npm run data:copy -- ${join(dir, 'data', kept[0]!)}`)
    const old = JSON.parse(readFileSync(join(dir, 'data', kept[0]!), 'utf8'))
    expect(old.users.map((user: { username: string }) => user.username)).toEqual(['alice'])
    expect(old.changes_seq).toBe(last_seq)

    const after = await instance(url)
    expect((await after.req('/api/users/me/', { token })).status).toBe(401)
    expect((await readJson(await after.req('/api/clubs/penn-chess-society/'))).subtitle).not.toBe('Before the reset')
    expect(await secretKeyOf(url)).toEqual(keyBefore)
    expect((await after.req(`/api/changes/?since=${last_seq}`)).status).toBe(410)
    expect((await after.admin.patch('/api/clubs/penn-chess-society/', { subtitle: 'After' })).status).toBe(200)
    const { results } = await readJson(await after.req(`/api/changes/?since=${last_seq + 1}`))
    expect(results.map((event: { seq: number }) => event.seq)).toEqual([last_seq + 2])
  }, 60_000)
})

async function secretKeyOf(url: string): Promise<Buffer> {
  const sql = new SQL(url)
  try {
    const [{ secret_key }] = await sql`SELECT secret_key FROM club_directory_meta`
    return Buffer.from(secret_key)
  } finally {
    await sql.close()
  }
}
