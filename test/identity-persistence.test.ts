import { afterEach, describe, expect, it } from 'bun:test'
import type { Subprocess } from 'bun'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN_TOKEN, makeApp, readJson, SEED_FILE, tempDir } from '../harness/app'
import { ENTRY, freePort, ROOT, runToEnd, sleep } from '../harness/service'
import { directoryOnDisk } from '../harness/on-disk'
import { users } from '../harness/users'

// Users and their relations to clubs over real data files (docs/reference.md §5, §9): they survive a
// restart, tokens are stored only as hashes, and the operator's users:add command.

type Json = Record<string, any>

const USERS_ADD = join(ROOT, 'scripts', 'users-add.ts')
const CODE = 'restart-circle'
const CLUB_URL = `/api/clubs/${CODE}/`

const processes: Subprocess[] = []

afterEach(async () => {
  for (const proc of processes.splice(0)) {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL')
    await proc.exited
  }
})

/** A data file path in a fresh temp folder (the file itself does not exist yet). */
function freshDataFile(): string {
  const dir = tempDir('clubs-identity-')
  return join(dir, 'db.json')
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** The environment a child process gets: the data file named, nothing inherited that could redirect it. */
const childEnv = (dataFile: string, extra: Record<string, string> = {}) => ({
  ...process.env,
  CLUBS_DATA_FILE: dataFile,
  CLUBS_SEED_FILE: SEED_FILE,
  CLUBS_LOG_LEVEL: 'info',
  ...extra,
})

/** Runs `bun scripts/users-add.ts ...args` to completion. */
async function usersAdd(dataFile: string, ...args: string[]) {
  const { code, stdout, stderr } = await runToEnd([process.execPath, USERS_ADD, ...args], {
    cwd: ROOT,
    env: childEnv(dataFile),
  })
  const lines = stdout.trim().split('\n')
  return { code, stdout, stderr, token: lines[lines.length - 1]!.trim() }
}

/** Starts `bun src/index.ts` over `dataFile` and waits until /health answers. */
async function startService(dataFile: string) {
  const port = freePort()
  const proc = Bun.spawn([process.execPath, ENTRY], {
    cwd: ROOT,
    env: childEnv(dataFile, { PORT: String(port), HOST: '127.0.0.1', CLUBS_ADMIN_TOKEN: ADMIN_TOKEN }),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  processes.push(proc)
  const base = `http://127.0.0.1:${port}`
  for (let i = 0; i < 200; i++) {
    if (proc.exitCode !== null) throw new Error(`service exited early with ${proc.exitCode}`)
    const ok = await fetch(`${base}/health`)
      .then((res) => res.status === 200)
      .catch(() => false)
    if (ok) return { proc, base }
    await sleep(50)
  }
  throw new Error('service did not become healthy')
}

describe('restart', () => {
  /** Over `file`: `owner` runs an approved club with `fan` as a member; `fan` favorites and subscribes. */
  async function populate(file: string) {
    const app = await makeApp({ dataFile: file })
    const tokens: Record<string, string> = await users(app, 'owner', 'fan', { username: 'dean', is_admin: true })
    const as =
      (who: string) =>
      (path: string, init: { method?: string; json?: unknown } = {}) =>
        app.req(path, { ...init, token: tokens[who] })
    expect((await as('owner')('/api/clubs/', { method: 'POST', json: { name: 'Restart Circle' } })).status).toBe(201)
    expect((await app.admin.patch(CLUB_URL, { approved: true })).status).toBe(200)
    const joined = await as('owner')(`${CLUB_URL}members/`, {
      method: 'POST',
      json: { username: 'fan', role: 'officer' },
    })
    expect(joined.status).toBe(201)
    expect((await as('fan')('/api/favorites/', { method: 'POST', json: { club: CODE } })).status).toBe(201)
    expect((await as('fan')('/api/subscriptions/', { method: 'POST', json: { club: CODE } })).status).toBe(201)
    return { app, tokens }
  }

  /** Everything a user can read about themselves and the club. */
  async function stateSeenBy(app: Awaited<ReturnType<typeof makeApp>>, tokens: Record<string, string>) {
    const get = async (path: string, token: string) => {
      const res = await app.req(path, { token })
      expect(res.status).toBe(200)
      return readJson(res)
    }
    return {
      me: await get('/api/users/me/', tokens.fan!),
      deanMe: await get('/api/users/me/', tokens.dean!),
      fanDetail: await get(CLUB_URL, tokens.fan!),
      ownerDetail: await get(CLUB_URL, tokens.owner!),
      members: await get(`${CLUB_URL}members/`, tokens.owner!),
      favorites: await get('/api/favorites/', tokens.fan!),
      subscriptions: await get('/api/subscriptions/', tokens.fan!),
      anonymousItem: (await readJson(await app.req('/api/clubs/'))).find((c: Json) => c.code === CODE),
    }
  }

  it('keeps users, memberships, favorites and subscriptions, and their tokens still work', async () => {
    const file = freshDataFile()
    const { app, tokens } = await populate(file)
    const before = await stateSeenBy(app, tokens)

    const after = await stateSeenBy(await makeApp({ dataFile: file }), tokens)
    expect(after).toEqual(before)
    expect(after.me).toEqual({ username: 'fan', is_admin: false })
    expect(after.deanMe).toEqual({ username: 'dean', is_admin: true })
    expect([after.fanDetail.is_member, after.fanDetail.is_favorite, after.fanDetail.is_subscribe]).toEqual([
      true,
      true,
      true,
    ])
    expect([after.ownerDetail.is_member, after.ownerDetail.is_favorite, after.ownerDetail.is_subscribe]).toEqual([
      true,
      false,
      false,
    ])
    expect([after.anonymousItem.favorite_count, after.anonymousItem.membership_count]).toEqual([1, 2])
    expect(after.members).toEqual([
      { username: 'owner', role: 'owner', title: '', public: false },
      { username: 'fan', role: 'officer', title: '', public: false },
    ])
    expect(after.favorites).toEqual([{ club: expect.objectContaining({ code: CODE, is_favorite: true }) }])
    expect(after.subscriptions).toEqual([{ club: expect.objectContaining({ code: CODE, is_subscribe: true }) }])
  })

  it('keeps the rights that come with a role: after a restart the officer still edits, the admin user still approves', async () => {
    const file = freshDataFile()
    const { tokens } = await populate(file)
    const app = await makeApp({ dataFile: file })
    const edit = await app.req(CLUB_URL, { method: 'PATCH', token: tokens.fan, json: { size: 2 } })
    expect(edit.status).toBe(200)
    const decide = await app.req('/api/clubs/quadball-club/', {
      method: 'PATCH',
      token: tokens.dean,
      json: { approved: true },
    })
    expect(decide.status).toBe(200)
    expect((await readJson(decide)).approved_by).toBe('dean')
  })

  it('keeps usernames taken, and removals removed', async () => {
    const file = freshDataFile()
    const { tokens } = await populate(file)
    const first = await makeApp({ dataFile: file })
    expect((await first.req('/api/favorites/' + CODE + '/', { method: 'DELETE', token: tokens.fan })).status).toBe(204)
    expect((await first.req(`${CLUB_URL}members/fan/`, { method: 'DELETE', token: tokens.fan })).status).toBe(204)

    const second = await makeApp({ dataFile: file })
    expect((await second.admin.post('/api/users/', { username: 'fan' })).status).toBe(400)
    const detail = await readJson(await second.req(CLUB_URL, { token: tokens.fan }))
    expect([detail.is_member, detail.is_favorite, detail.is_subscribe]).toEqual([false, false, true])
    expect([detail.membership_count, detail.favorite_count]).toEqual([1, 0])
    expect(await readJson(await second.admin.get(`${CLUB_URL}members/`))).toEqual([
      { username: 'owner', role: 'owner', title: '', public: false },
    ])
  })
})

describe('tokens at rest', () => {
  it('keeps no token in clear in the data file, only a SHA-256 of each', async () => {
    const file = freshDataFile()
    const app = await makeApp({ dataFile: file })
    const tokens: Record<string, string> = await users(app, 'alice', { username: 'bob', is_admin: true })
    const text = readFileSync(file, 'utf8') + readFileSync(`${file}.journal`, 'utf8')
    for (const token of [...Object.values(tokens), ADMIN_TOKEN]) expect(text).not.toContain(token)
    const stored = directoryOnDisk(file).users as Json[]
    expect(stored.map((user) => user.username).sort()).toEqual(['alice', 'bob'])
    for (const user of stored) {
      expect(Object.keys(user).sort()).toEqual(['created_at', 'is_admin', 'token_sha256', 'username'])
      expect(user.token_sha256).toMatch(/^[0-9a-f]{64}$/)
      expect(user.token_sha256).toBe(sha256(tokens[user.username]!))
    }
    expect(stored.find((user) => user.username === 'bob')!.is_admin).toBe(true)
  })

  it('does not accept the stored hash as a token', async () => {
    const file = freshDataFile()
    const app = await makeApp({ dataFile: file })
    await users(app, 'alice')
    const [alice] = directoryOnDisk(file).users as Json[]
    expect((await app.req('/api/users/me/', { token: alice!.token_sha256 })).status).toBe(401)
  })
})

describe('users:add (the operator command)', () => {
  it('adds a user to the data file and prints a token that works against the app', async () => {
    const file = freshDataFile()
    const run = await usersAdd(file, 'alice')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('alice')
    expect(run.token).toMatch(/^[A-Za-z0-9_-]{32,}$/)
    expect(readFileSync(file, 'utf8')).not.toContain(run.token)

    const { req } = await makeApp({ dataFile: file })
    const me = await req('/api/users/me/', { token: run.token })
    expect(me.status).toBe(200)
    expect(await readJson(me)).toEqual({ username: 'alice', is_admin: false })
    const created = await req('/api/clubs/', { method: 'POST', token: run.token, json: { name: 'Operator Circle' } })
    expect(created.status).toBe(201)
    // Not an admin: may not issue users.
    expect((await req('/api/users/', { method: 'POST', token: run.token, json: { username: 'x' } })).status).toBe(403)
  })

  it('makes an admin with --admin', async () => {
    const file = freshDataFile()
    const run = await usersAdd(file, 'dean', '--admin')
    expect(run.code).toBe(0)
    const { req } = await makeApp({ dataFile: file })
    expect(await readJson(await req('/api/users/me/', { token: run.token }))).toEqual({
      username: 'dean',
      is_admin: true,
    })
    expect((await req('/api/users/', { method: 'POST', token: run.token, json: { username: 'eve' } })).status).toBe(201)
  })

  it('refuses a second user with the same name (exit 1), and the first token keeps working', async () => {
    const file = freshDataFile()
    const first = await usersAdd(file, 'alice')
    expect(first.code).toBe(0)
    const second = await usersAdd(file, 'alice')
    expect(second.code).toBe(1)
    expect(second.stderr).toContain('alice')
    expect(second.stdout).not.toContain('Token')
    const { req } = await makeApp({ dataFile: file })
    expect(await readJson(await req('/api/users/me/', { token: first.token }))).toEqual({
      username: 'alice',
      is_admin: false,
    })
    expect((directoryOnDisk(file).users as Json[]).length).toBe(1)
  })

  for (const username of ['Alice', 'admin']) {
    it(`refuses the username "${username}" with exit 1`, async () => {
      const file = freshDataFile()
      const run = await usersAdd(file, username)
      expect(run.code).toBe(1)
      expect(run.stdout).not.toContain('Token')
    })
  }

  it('refuses while the server holds the data file, and says to use POST /api/users/', async () => {
    const file = freshDataFile()
    const { proc, base } = await startService(file)
    const run = await usersAdd(file, 'alice')
    expect(run.code).toBe(1)
    expect(run.stdout).not.toContain('Token')
    expect(run.stderr).toContain('POST /api/users/')
    expect(run.stderr).toContain(file)
    expect(directoryOnDisk(file).users ?? []).toEqual([])

    // The name is still free, through the API.
    const viaApi = await fetch(`${base}/api/users/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'alice' }),
    })
    expect(viaApi.status).toBe(201)

    // Once the server has stopped, the command works again.
    proc.kill('SIGTERM')
    expect(await proc.exited).toBe(0)
    const after = await usersAdd(file, 'bob')
    expect(after.code).toBe(0)
  })
})
