import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { tempDir } from '../harness/app'
import { type Postgres, postgresBinDir, startPostgres } from '../harness/postgres'
import { ROOT, sleep } from '../harness/service'

// harness/postgres.ts, the real PostgreSQL the store's tests run against: a fresh cluster on a
// private port, databases on demand, and the outages (kill, restart) the store must live through.

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
async function accepts(port: number): Promise<boolean> {
  try {
    const socket = await Bun.connect({ hostname: '127.0.0.1', port, socket: { data() {} } })
    socket.end()
    return true
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ECONNREFUSED')
    return false
  }
}

describe('a PostgreSQL started for the tests', () => {
  let pg: Postgres
  let first = ''
  let second = ''

  beforeAll(async () => {
    pg = await startPostgres()
  }, 60_000)
  afterAll(() => pg?.stop(), 60_000)

  test('listens on loopback on its own port, with fsync on and a password', async () => {
    expect(pg.url()).toBe(pg.url('postgres'))
    expect(pg.url()).toMatch(new RegExp(`^postgres://postgres:[0-9a-f]{32}@127\\.0\\.0\\.1:${pg.port}/postgres$`))
    const sql = new SQL(pg.url())
    try {
      const [row] = await sql`SELECT current_setting('fsync') AS fsync, current_setting('listen_addresses') AS listen`
      expect(row).toEqual({ fsync: 'on', listen: '127.0.0.1' })
    } finally {
      await sql.close()
    }
    const wrong = new SQL(pg.url().replace(/:[0-9a-f]{32}@/, ':wrong@'))
    await expect(wrong`SELECT 1`).rejects.toThrow(/password authentication failed/)
    await wrong.close()
  })

  test('creates databases that are separate', async () => {
    first = await pg.createDatabase()
    second = await pg.createDatabase('clubs_second')
    expect(second).toBe(pg.url('clubs_second'))
    expect(first).not.toBe(second)
    const a = new SQL(first)
    const b = new SQL(second)
    try {
      await a`CREATE TABLE clubs (code text PRIMARY KEY)`
      await a`INSERT INTO clubs VALUES ('CHESS')`
      expect(await a`SELECT code FROM clubs`).toEqual([{ code: 'CHESS' }])
      await expect(b`SELECT code FROM clubs`).rejects.toThrow(/relation "clubs" does not exist/)
    } finally {
      await a.close()
      await b.close()
    }
    await expect(pg.createDatabase('clubs_second')).rejects.toThrow(/already exists/)
    await expect(pg.createDatabase('bad"name')).rejects.toThrow(/not a plain database name/)
  })

  test('kill: connections drop and new ones are refused; restart: the same port, nothing committed lost', async () => {
    const sql = new SQL(first)
    const held = new SQL(first)
    try {
      await held`SELECT 1`
      pg.kill()
      await expect(held`SELECT 1`).rejects.toThrow()
      // The killed postmaster's listening socket closes as the kernel reaps it, a moment later.
      for (let waited = 0; (await accepts(pg.port)) && waited < 2_000; waited += 20) await sleep(20)
      expect(await accepts(pg.port)).toBe(false)
      await expect(sql`SELECT 1`).rejects.toMatchObject({ code: 'ERR_POSTGRES_CONNECTION_REFUSED' })

      const port = pg.port
      await pg.restart()
      expect(pg.port).toBe(port)
      expect(await sql`SELECT code FROM clubs`).toEqual([{ code: 'CHESS' }])
    } finally {
      await sql.close()
      await held.close()
    }
  }, 60_000)

  test('restart while running is a clean stop and start', async () => {
    await pg.restart()
    const sql = new SQL(second)
    try {
      expect(await sql`SELECT 1 AS one`).toEqual([{ one: 1 }])
    } finally {
      await sql.close()
    }
  }, 60_000)
})

test('two clusters started at once get their own ports; stop shuts down and removes the folder', async () => {
  const [a, b] = await Promise.all([startPostgres(), startPostgres()])
  try {
    expect(a.port).not.toBe(b.port)
    expect(a.dir).not.toBe(b.dir)
    for (const pg of [a, b]) expect(await accepts(pg.port)).toBe(true)
  } finally {
    await a.stop()
    await b.stop({ keep: true })
  }
  expect(await accepts(a.port)).toBe(false)
  expect(existsSync(a.dir)).toBe(false)
  expect(await accepts(b.port)).toBe(false)
  expect(statSync(join(b.dir, 'data')).isDirectory()).toBe(true)
  await b.restart()
  expect(await accepts(b.port)).toBe(true)
  await b.stop()
  expect(existsSync(b.dir)).toBe(false)
}, 90_000)

test('finds the newest installed version, and says what to install when there is none', () => {
  const root = tempDir('clubs-pg-bin-')
  for (const version of ['9.6', '13', '15']) mkdirSync(join(root, version, 'bin'), { recursive: true })
  for (const version of ['9.6', '13']) writeFileSync(join(root, version, 'bin', 'initdb'), '')
  expect(postgresBinDir(root, null)).toBe(join(root, '13', 'bin'))
  expect(() => postgresBinDir(join(root, 'none'), null)).toThrow(
    /PostgreSQL is not installed: no initdb in .*none\/\*\/bin.*apt-get install postgresql/,
  )
  rmSync(root, { recursive: true })
})

test('a bun test run removes the clusters and temp folders it made, files and all, when it ends', async () => {
  // bun test emits no exit event: harness/test-end.ts, preloaded by bunfig.toml, does it.
  const dir = tempDir('clubs-pg-left-')
  const file = join(dir, 'makes-a-cluster-and-a-folder.test.ts')
  writeFileSync(
    file,
    `import { test } from 'bun:test'
import { startPostgres } from ${JSON.stringify(join(ROOT, 'harness', 'postgres.ts'))}
import { tempDir } from ${JSON.stringify(join(ROOT, 'harness', 'temp-dirs.ts'))}
test('makes a cluster and a folder', async () => {
  console.log('CLUSTER', (await startPostgres()).dir)
  console.log('FOLDER', tempDir())
}, 60_000)
`,
  )
  const run = Bun.spawn([process.execPath, 'test', file], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
  const [out, err] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text()])
  expect(await run.exited).toBe(0)
  const cluster = /CLUSTER (\S+)/.exec(out + err)?.[1]
  const folder = /FOLDER (\S+)/.exec(out + err)?.[1]
  expect(cluster).toStartWith(tmpdir())
  expect(folder).toStartWith(tmpdir())
  expect([existsSync(cluster!), existsSync(folder!)]).toEqual([false, false])
  // Their files go in the background, after the run (a hook deleting gigabytes ran out of time).
  const removing = () => readdirSync(tmpdir()).filter((name) => name.startsWith(`clubs-removing-${run.pid}-`))
  for (let i = 0; i < 600 && removing().length > 0; i++) await Bun.sleep(100)
  expect(removing()).toEqual([])
}, 90_000)
