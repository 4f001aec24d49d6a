// npm run data:copy (docs/reference.md §19): a whole directory moved between a real data file and a real
// PostgreSQL database (Debian's, harness/postgres.ts), either way, losing nothing — every
// collection, the change log with what was trimmed (followers' numbers stay valid), the secret key
// (calendar addresses stay) — and refused, writing nothing, where it would lose something: a
// target that holds a directory without --replace, a data file a running server holds, a database
// replaced under running instances.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { SQL, type Subprocess } from 'bun'
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN_TOKEN, makeApp, readJson, tempDir } from '../harness/app'
import { putLogo, solidPng } from '../harness/logo-upload'
import { startPostgres, type Postgres } from '../harness/postgres'
import { freePort, ROOT, runToEnd, sleep, spawnService, stopService, waitForHealth } from '../harness/service'
import { openSecretKey } from '../src/store/secret-key'
import { directoryOnDisk } from '../harness/on-disk'
import { users } from '../harness/users'

let pg: Postgres
const servers: Subprocess[] = []
type App = Awaited<ReturnType<typeof makeApp>>
const opened: App[] = []

beforeAll(async () => {
  pg = await startPostgres()
}, 60_000)
afterEach(async () => {
  for (const server of servers.splice(0)) await stopService(server)
  await Promise.all(opened.splice(0).map((app) => app.store.close().catch(() => undefined)))
}, 20_000)
afterAll(async () => {
  await pg?.stop()
}, 60_000)

function freshDir(): string {
  const dir = tempDir('clubs-copy-')
  return dir
}

async function app(options: Parameters<typeof makeApp>[0]): Promise<App> {
  const made = await makeApp(options)
  opened.push(made)
  return made
}

/** `npm run data:copy -- ...args`, with nothing of this process's CLUBS_* environment but `env`. */
function copy(...args: string[]) {
  return copyWith({}, ...args)
}

function copyWith(env: Record<string, string>, ...args: string[]) {
  const ours = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('CLUBS_')))
  return runToEnd([process.execPath, join(ROOT, 'scripts', 'data-copy.ts'), ...args], {
    cwd: ROOT,
    env: { ...ours, ...env },
  })
}

/** A real server (bun src/index.ts) over `env`'s directory, stopped after the test. */
async function serving(env: Record<string, string>) {
  const port = freePort()
  const server = spawnService(port, { ...env, CLUBS_ADMIN_TOKEN: ADMIN_TOKEN, CLUBS_LOG_LEVEL: 'warn' })
  servers.push(server)
  const base = `http://127.0.0.1:${port}`
  await waitForHealth(base, server)
  return { server, base }
}

const FORM = 'application/x-www-form-urlencoded'
const KEEP = 3

/**
 * A data file with something in every collection, a change log trimmed past its start (KEEP
 * events kept), and its own secret key; the tokens and the calendar address issued on it.
 */
async function richDataFile() {
  const file = join(freshDir(), 'db.json')
  const key = await openSecretKey(file)
  const source = await makeApp({ dataFile: file, key, keepChanges: KEEP, config: { webhookAllowPrivate: true } })
  const { admin, req } = source
  expect((await admin.post('/api/webhooks/', { url: 'http://127.0.0.1:9/hook' })).status).toBe(201)
  const { alice, bob } = await users(source, 'alice', 'bob')
  const post = (path: string, token: string, json?: unknown) => req(path, { method: 'POST', token, json })
  expect((await post('/api/clubs/', alice, { name: 'Copy Club', description: 'Moved whole.' })).status).toBe(201)
  expect((await admin.patch('/api/clubs/copy-club/', { approved: true })).status).toBe(200)
  expect(
    (await req('/api/clubs/copy-club/', { method: 'PATCH', token: alice, json: { subtitle: 'Five' } })).status,
  ).toBe(200)
  expect((await admin.patch('/api/clubs/copy-club/', { accepting_members: true })).status).toBe(200)
  expect((await post('/api/clubs/copy-club/requests/', bob)).status).toBe(201)
  // A student interested without an account (docs/reference.md §23), from the club page's form.
  const interest = await req('/clubs/copy-club/interest', {
    method: 'POST',
    headers: { 'content-type': FORM, origin: 'http://localhost' },
    body: new URLSearchParams({ name: 'Ada', email: 'ada@example.edu', consent: 'true' }),
  })
  expect(interest.status).toBe(303)
  expect((await post('/api/favorites/', bob, { club: 'copy-club' })).status).toBe(201)
  expect((await post('/api/subscriptions/', bob, { club: 'penn-chess-society' })).status).toBe(201)
  expect((await post('/api/clubs/copy-club/invites/', alice, { expires_in_hours: 24, max_uses: 5 })).status).toBe(201)
  for (const n of [10, 11, 12, 13, 14, 15, 16])
    expect((await admin.patch('/api/clubs/penn-chess-society/', { subtitle: `Edit ${n}` })).status).toBe(200)
  // A re-registration round (docs/reference.md §23), open, with one club confirmed in it.
  expect((await admin.post('/api/registration-rounds/', { deadline: '2026-12-15' })).status).toBe(201)
  expect((await post('/api/clubs/copy-club/registration/', alice)).status).toBe(200)
  const signIn = await req('/sign-in', {
    method: 'POST',
    headers: { 'content-type': FORM, origin: 'http://localhost' },
    body: new URLSearchParams({ token: bob, next: '/' }),
  })
  expect(signIn.status).toBe(303)
  const calendar = (await readJson(await req('/api/users/me/calendar-url/', { token: bob }))).url as string
  // Each event's delivery is tried at once and fails (nothing listens there); with the test's
  // clock standing still, none is due again. Closed once those outcomes are saved, the file stays.
  const tried = () => {
    const saved = directoryOnDisk(file)
    return (
      (saved.webhook_deliveries ?? []).length > 0 &&
      (saved.webhook_events ?? []).every((e: { waiting: number[] }) => !e.waiting.length)
    )
  }
  for (let waited = 0; !tried(); waited += 50) {
    if (waited > 5_000) throw new Error('the deliveries were not tried within 5 s')
    await sleep(50)
  }
  await source.store.close()
  const snapshot = directoryOnDisk(file)
  for (const [name, value] of Object.entries(snapshot))
    if (Array.isArray(value)) expect({ name, records: value.length }).not.toEqual({ name, records: 0 })
  const changes = readFileSync(`${file}.changes`, 'utf8')
  const trimmedUpTo = JSON.parse(changes.split('\n')[0]!).trimmed_up_to as number
  expect(trimmedUpTo).toBeGreaterThan(0)
  return { file, snapshot, changes, trimmedUpTo, key, alice, bob, calendar: new URL(calendar).pathname }
}

const tablesIn = async (url: string) => {
  const sql = new SQL(url)
  try {
    const [{ tables }] = await sql`SELECT count(*)::int AS tables FROM pg_tables WHERE tablename LIKE 'club_directory%'`
    return tables as number
  } finally {
    await sql.close()
  }
}

describe('npm run data:copy', () => {
  test('a data file copied into a database and back out is the same directory: every collection, the change log, the key', async () => {
    const original = await richDataFile()
    const url = await pg.createDatabase()
    const into = await copy(original.file, url)
    expect(into.stderr).toBe('')
    expect(into.code).toBe(0)
    expect(into.stdout).toContain(`${original.snapshot.clubs.length} clubs, 2 users`)
    expect(into.stdout).not.toContain(new URL(url).password)
    const back = join(freshDir(), 'db.json')
    const out = await copy(url, back)
    expect(out.code).toBe(0)
    expect(JSON.parse(readFileSync(back, 'utf8'))).toEqual(original.snapshot)
    expect(readFileSync(`${back}.changes`, 'utf8')).toBe(original.changes)
    expect(readFileSync(`${back}.key`)).toEqual(readFileSync(`${original.file}.key`))
  }, 60_000)

  test('`database` names the database of CLUBS_DATABASE_URL_FILE (or CLUBS_DATABASE_URL): no password on the command line', async () => {
    const original = await richDataFile()
    const url = await pg.createDatabase()
    const urlFile = join(freshDir(), 'database_url.txt')
    writeFileSync(urlFile, `${url}\n`)
    const into = await copyWith({ CLUBS_DATABASE_URL_FILE: urlFile }, original.file, 'database')
    expect([into.code, into.stderr]).toEqual([0, ''])
    const back = join(freshDir(), 'db.json')
    expect((await copyWith({ CLUBS_DATABASE_URL: url }, 'database', back)).code).toBe(0)
    expect(JSON.parse(readFileSync(back, 'utf8'))).toEqual(original.snapshot)
    const unnamed = await copy(original.file, 'database')
    expect([unnamed.code, unnamed.stderr]).toEqual([2, expect.stringContaining('neither is set')])
  }, 60_000)

  test('tokens, the calendar address and the change numbers carry on in the database and in a data file copied from it', async () => {
    const original = await richDataFile()
    const seq = original.snapshot.changes_seq as number
    const url = await pg.createDatabase()
    expect((await copy(original.file, url)).code).toBe(0)

    // A real server on the database: the key it uses is the database's.
    const { server, base } = await serving({ CLUBS_DATABASE_URL: url })
    const get = (path: string, token?: string) =>
      fetch(`${base}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} })
    expect(await readJson(await get('/api/users/me/', original.alice))).toEqual({ username: 'alice', is_admin: false })
    const address = (await readJson(await get('/api/users/me/calendar-url/', original.bob))).url
    expect(new URL(address).pathname).toBe(original.calendar)
    expect((await get(original.calendar)).status).toBe(200)
    expect((await get(`/api/changes/?since=${original.trimmedUpTo}`)).status).toBe(200)
    expect((await get(`/api/changes/?since=${original.trimmedUpTo - 1}`)).status).toBe(410)
    await stopService(server)

    // An app on the database: a write after the copy is the next number.
    const onDatabase = await app({ databaseUrl: url })
    expect((await onDatabase.req('/api/users/me/', { token: original.bob })).status).toBe(200)
    expect((await onDatabase.admin.patch('/api/clubs/penn-chess-society/', { subtitle: 'Edit 40' })).status).toBe(200)
    const after = await readJson(await onDatabase.req(`/api/changes/?since=${seq}`))
    expect(after.results.map((event: { seq: number }) => event.seq)).toEqual([seq + 1])
    await onDatabase.store.close()

    // Out to a data file again: the same token, address and numbers there.
    const file = join(freshDir(), 'db.json')
    expect((await copy(url, file)).code).toBe(0)
    const onFile = await app({ dataFile: file, key: await openSecretKey(file, { readOnly: true }) })
    expect(await readJson(await onFile.req('/api/users/me/', { token: original.alice }))).toEqual({
      username: 'alice',
      is_admin: false,
    })
    const fileAddress = (await readJson(await onFile.req('/api/users/me/calendar-url/', { token: original.bob }))).url
    expect(new URL(fileAddress).pathname).toBe(original.calendar)
    expect((await onFile.req(original.calendar)).status).toBe(200)
    expect((await onFile.admin.patch('/api/clubs/penn-chess-society/', { subtitle: 'Edit 41' })).status).toBe(200)
    const next = await readJson(await onFile.req(`/api/changes/?since=${seq}`))
    expect(next.results.map((event: { seq: number }) => event.seq)).toEqual([seq + 1, seq + 2])
  }, 60_000)

  test('logos go with the directory: from the logos/ beside a data file into the database, and back out', async () => {
    const file = join(freshDir(), 'db.json')
    const source = await makeApp({ dataFile: file })
    const logo = (await putLogo(source, 'penn-chess-society', await solidPng(90, 60, '#aa3300'))).pathname
    const served = new Uint8Array(await (await source.req(logo)).arrayBuffer())
    await source.store.close()
    const url = await pg.createDatabase()
    const toDatabase = await copy(file, url)
    expect(toDatabase.code).toBe(0)
    expect(toDatabase.stdout).toContain('Logos copied: 1.')
    const onDatabase = await app({ databaseUrl: url })
    expect(new Uint8Array(await (await onDatabase.req(logo)).arrayBuffer())).toEqual(served)
    await onDatabase.store.close()
    const back = join(freshDir(), 'db.json')
    expect((await copy(url, back)).code).toBe(0)
    const onFile = await app({ dataFile: back })
    expect(new Uint8Array(await (await onFile.req(logo)).arrayBuffer())).toEqual(served)
  }, 60_000)

  test("a data file copied to another beside it: the logos its clubs name go to the copy's own folder, from an old shared logos/ too", async () => {
    const dir = freshDir()
    const file = join(dir, 'db.json')
    const source = await makeApp({ dataFile: file })
    const logo = (await putLogo(source, 'penn-chess-society', await solidPng(90, 60, '#aa3300'))).pathname
    const served = new Uint8Array(await (await source.req(logo)).arrayBuffer())
    await source.store.close()
    // As an earlier release left it: the logos in logos/, another data file's among them.
    renameSync(join(dir, 'db.json.logos'), join(dir, 'logos'))
    writeFileSync(join(dir, 'logos', `${'ab'.repeat(32)}.webp`), "another data file's")
    const old = readdirSync(join(dir, 'logos')).sort()
    const to = join(dir, 'copy.json')
    expect((await copy(file, to)).code).toBe(0)
    expect(readdirSync(join(dir, 'copy.json.logos')).sort()).toEqual(old.filter((name) => !name.startsWith('abab')))
    expect(readdirSync(join(dir, 'logos')).sort()).toEqual(old)
    const onCopy = await app({ dataFile: to })
    expect(new Uint8Array(await (await onCopy.req(logo)).arrayBuffer())).toEqual(served)
  })

  test('a target that holds a directory is refused without --replace, and nothing is written', async () => {
    const original = await richDataFile()
    const url = await pg.createDatabase()
    expect((await copy(original.file, url)).code).toBe(0)
    const target = join(freshDir(), 'db.json')
    expect((await copy(url, target)).code).toBe(0)
    const before = readFileSync(target, 'utf8')
    const files = readdirSync(join(target, '..')).sort()

    const intoFile = await copy(url, target)
    expect(intoFile.code).toBe(1)
    expect(intoFile.stderr).toContain(`${target} already holds a directory; give --replace`)
    expect(intoFile.stderr).toContain('Nothing was written.')
    expect(readFileSync(target, 'utf8')).toBe(before)
    expect(readdirSync(join(target, '..')).sort()).toEqual(files)

    const other = await pg.createDatabase()
    const seeded = await app({ databaseUrl: other })
    expect((await seeded.admin.patch('/api/clubs/penn-chess-society/', { subtitle: 'Edit 77' })).status).toBe(200)
    await seeded.store.close()
    const intoDatabase = await copy(original.file, other)
    expect(intoDatabase.code).toBe(1)
    expect(intoDatabase.stderr).toContain('already holds a directory (80 clubs); give --replace')
    const check = await app({ databaseUrl: other })
    expect((await readJson(await check.req('/api/clubs/penn-chess-society/'))).subtitle).toBe('Edit 77')
    expect((await check.req('/api/users/me/', { token: original.alice })).status).toBe(401)
  }, 60_000)

  test('--replace keeps a replaced data file beside it, and replaces a database only once no instance is connected', async () => {
    const original = await richDataFile()
    const url = await pg.createDatabase()
    const instance = await app({ databaseUrl: url })
    expect((await instance.admin.patch('/api/clubs/penn-chess-society/', { subtitle: 'Edit 77' })).status).toBe(200)

    const whileRunning = await copy(original.file, url, '--replace')
    expect(whileRunning.code).toBe(1)
    expect(whileRunning.stderr).toContain('is in use (')
    expect(whileRunning.stderr).toContain('stop them first')
    expect((await readJson(await instance.req('/api/clubs/penn-chess-society/'))).subtitle).toBe('Edit 77')
    await instance.store.close()

    const replaced = await copy(original.file, url, '--replace')
    expect(replaced.code).toBe(0)
    expect(replaced.stdout).toContain('It replaced the directory it held (80 clubs, changes up to 1).')
    const onDatabase = await app({ databaseUrl: url })
    expect((await onDatabase.req('/api/users/me/', { token: original.alice })).status).toBe(200)
    expect((await readJson(await onDatabase.req('/api/clubs/penn-chess-society/'))).subtitle).toBe('Edit 16')

    const target = join(freshDir(), 'db.json')
    const seeded = await app({ dataFile: target })
    await seeded.store.close()
    const old = readFileSync(target, 'utf8')
    const intoFile = await copy(original.file, target, '--replace')
    expect(intoFile.code).toBe(0)
    const kept = readdirSync(join(target, '..')).filter((name) => /^db-replaced-.*\.json$/.test(name))
    expect(kept).toHaveLength(1)
    expect(intoFile.stdout).toContain(`kept in ${join(target, '..', kept[0]!)}`)
    expect(readFileSync(join(target, '..', kept[0]!), 'utf8')).toBe(old)
    expect(JSON.parse(readFileSync(target, 'utf8'))).toEqual(original.snapshot)
  }, 60_000)

  test('a data file a running server holds is refused, as source and as target; a database is read while instances run', async () => {
    const original = await richDataFile()
    const { server } = await serving({ CLUBS_DATA_FILE: original.file })
    const url = await pg.createDatabase()
    const from = await copy(original.file, url)
    expect(from.code).toBe(1)
    expect(from.stderr).toContain(`${original.file} is in use by a running server (pid ${server.pid}`)
    expect(await tablesIn(url)).toBe(0)

    const other = await pg.createDatabase()
    const instance = await app({ databaseUrl: other })
    expect((await instance.admin.patch('/api/clubs/penn-chess-society/', { subtitle: 'Edit 77' })).status).toBe(200)
    const to = await copy(other, original.file, '--replace')
    expect(to.code).toBe(1)
    expect(to.stderr).toContain('is in use by a running server')
    await stopService(server)
    await server.exited
    // Its own server's writes aside (delivery attempts), the file is the directory it was.
    const { clubs, users } = JSON.parse(readFileSync(original.file, 'utf8'))
    expect(users).toEqual(original.snapshot.users)
    expect(clubs).toEqual(original.snapshot.clubs)

    const whileServing = join(freshDir(), 'db.json')
    expect((await copy(other, whileServing)).code).toBe(0)
    expect(JSON.parse(readFileSync(whileServing, 'utf8')).clubs).toContainEqual(
      expect.objectContaining({ code: 'penn-chess-society', subtitle: 'Edit 77' }),
    )
  }, 60_000)

  test('a missing source, a database with no directory, the same place twice and a wrong call are refused', async () => {
    const dir = freshDir()
    const url = await pg.createDatabase()
    const missing = await copy(join(dir, 'none.json'), url)
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining('none.json does not exist')])
    const empty = await copy(url, join(dir, 'db.json'))
    expect([empty.code, empty.stderr]).toEqual([1, expect.stringContaining('holds no club directory')])
    expect(await tablesIn(url)).toBe(0)
    expect(existsSync(join(dir, 'db.json'))).toBe(false)
    const same = await copy(join(dir, 'db.json'), join(dir, '.', 'db.json'))
    expect([same.code, same.stderr]).toEqual([1, expect.stringContaining('are the same')])
    const wrong = await copy(join(dir, 'db.json'))
    expect([wrong.code, wrong.stderr]).toEqual([2, expect.stringContaining('usage: npm run data:copy')])
    expect(readdirSync(dir)).toEqual([])
  }, 60_000)
})
