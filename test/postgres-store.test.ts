// Several instances on one PostgreSQL database (docs/reference.md §19), each an app in this process with
// its own connections, against a real server from Debian's package: what one commits the others
// reflect within a second; the rules that must hold across the directory (a name taken once, a
// favorite not doubled) hold when instances are asked at the same moment; the change log is
// numbered in commit order with no gap; a lost database stops writes (503, /readyz says why) and
// not reads, and writes resume once it is back.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import sharp from 'sharp'
import { ADMIN_TOKEN, makeApp, readJson } from '../harness/app'
import { putLogo, solidPng } from '../harness/logo-upload'
import { startPostgres, type Postgres } from '../harness/postgres'
import { sleep } from '../harness/service'
import { startReceiver, until } from '../harness/webhook-receiver'
import { MIGRATIONS } from '../src/store/postgres-schema'
import { users } from '../harness/users'

let pg: Postgres
beforeAll(async () => {
  pg = await startPostgres()
})
afterAll(async () => {
  await pg?.stop()
})

type App = Awaited<ReturnType<typeof makeApp>>

/** Every instance a test started, closed after it (each holds connections). */
const started: App[] = []
afterEach(async () => {
  await Promise.all(started.splice(0).map((app) => app.store.close().catch(() => undefined)))
})

async function instance(url: string): Promise<App> {
  const app = await makeApp({ databaseUrl: url })
  started.push(app)
  return app
}

async function instances(n: number, url?: string): Promise<{ url: string; apps: App[] }> {
  const database = url ?? (await pg.createDatabase())
  const apps: App[] = []
  for (let i = 0; i < n; i++) apps.push(await instance(database))
  return { url: database, apps }
}

const newClub = (code: string, name = `Club ${code}`) => ({
  code,
  name,
  description: 'A club made by the instance tests.',
  email: `${code}@clubs.example.edu`,
})

/**
 * Waits until `read` sees another instance's commit: within a second on an idle machine (npm run
 * bench measures the lag); the wait allows a loaded one, and nothing else would bring it.
 */
const caughtUp = (read: () => Promise<boolean>, within = 5_000) => until(read, 'the commit on this instance', within)

describe('several instances on one database', () => {
  test('a first start loads the seed once, even when two instances start on an empty database at once', async () => {
    const url = await pg.createDatabase()
    const [a, b] = await Promise.all([instance(url), instance(url)])
    const count = async (app: App) => (await readJson(await app.req('/api/clubs/?format=json'))).length
    expect(await count(b)).toBe(await count(a))
    const sql = new SQL(url)
    const [{ clubs }] = await sql`SELECT count(*)::int AS clubs FROM club_directory_records WHERE collection = 'clubs'`
    const [{ version }] = await sql`SELECT max(version)::int AS version FROM club_directory_migrations`
    await sql.close()
    expect(clubs).toBe(80)
    expect(version).toBe(MIGRATIONS.length)
  })

  test('a write through one instance is read through the others without a restart; a new instance starts with it', async () => {
    const { url, apps } = await instances(3)
    const [a, b, c] = apps as [App, App, App]
    expect((await a.admin.post('/api/clubs/', newClub('relay'))).status).toBe(201)
    for (const other of [b, c]) await caughtUp(async () => (await other.admin.get('/api/clubs/relay/')).status === 200)
    // A user issued on one instance: its token opens the API on another.
    const issued = await readJson(await b.admin.post('/api/users/', { username: 'dana' }))
    await caughtUp(async () => (await c.req('/api/users/me/', { token: issued.token })).status === 200)
    const later = await instance(url)
    expect((await later.admin.get('/api/clubs/relay/')).status).toBe(200)
    expect(readJson(await later.req('/api/users/me/', { token: issued.token }))).resolves.toMatchObject({
      username: 'dana',
    })
  })

  test('two instances asked for the same name, or the same code, at the same moment: one 201, one 400', async () => {
    const { apps } = await instances(2)
    const [a, b] = apps as [App, App]
    for (let round = 0; round < 8; round++) {
      const sameName = await Promise.all([
        a.admin.post('/api/clubs/', newClub(`left-${round}`, `Contested ${round}`)),
        b.admin.post('/api/clubs/', newClub(`right-${round}`, `Contested ${round}`)),
      ])
      expect(sameName.map((res) => res.status).sort()).toEqual([201, 400])
      const refused = await readJson(sameName.find((res) => res.status === 400)!)
      expect(refused.name).toBeArray()
      const sameCode = await Promise.all([
        a.admin.post('/api/clubs/', newClub(`twin-${round}`, `Twin A ${round}`)),
        b.admin.post('/api/clubs/', newClub(`twin-${round}`, `Twin B ${round}`)),
      ])
      expect(sameCode.map((res) => res.status).sort()).toEqual([201, 400])
    }
    // Both instances agree on who got each name.
    for (const app of apps) {
      const list = await readJson(await app.admin.get('/api/clubs/?format=json&search=Contested'))
      expect(list.filter((club: { name: string }) => club.name.startsWith('Contested'))).toHaveLength(8)
    }
  })

  test('favorites asked for at the same moment through both instances are counted once each', async () => {
    const { apps } = await instances(2)
    const [a, b] = apps as [App, App]
    const usernames = ['ann', 'ben', 'cat', 'dev', 'eve', 'fay'] as const
    const tokens = Object.values(await users(a, ...usernames))
    await caughtUp(async () => (await b.req('/api/users/me/', { token: tokens.at(-1)! })).status === 200)
    const code = 'pre-health-society'
    const before = (await readJson(await a.req(`/api/clubs/${code}/`))).favorite_count
    // Each user twice, once through each instance, all at once.
    const answers = await Promise.all(
      tokens.flatMap((token) =>
        [a, b].map((app) => app.req('/api/favorites/', { method: 'POST', token, json: { club: code } })),
      ),
    )
    for (const res of answers) expect(res.status).toBeLessThan(500)
    expect(answers.filter((res) => res.status === 201)).toHaveLength(usernames.length)
    for (const app of apps)
      await caughtUp(
        async () => (await readJson(await app.req(`/api/clubs/${code}/`))).favorite_count === before + usernames.length,
      )
    await sleep(600)
    for (const app of apps)
      expect((await readJson(await app.req(`/api/clubs/${code}/`))).favorite_count).toBe(before + usernames.length)
  })

  test('writers racing on three instances: every instance gives the same events, numbered with no gap, each seen in order', async () => {
    const { apps } = await instances(3)
    const first = (await readJson(await apps[0]!.req('/api/changes/'))).last_seq as number
    const seen: number[] = []
    let following = true
    // A follower reading one instance while the writers race never finds a number below one it read.
    const follower = (async () => {
      let since = first
      while (following) {
        const page = await readJson(await apps[2]!.req(`/api/changes/?since=${since}&limit=1000`))
        for (const event of page.results) seen.push(event.seq)
        since = page.results.at(-1)?.seq ?? since
        await sleep(5)
      }
    })()
    const codes = (await readJson(await apps[0]!.req('/api/clubs/?format=json')))
      .slice(0, 3)
      .map((club: { code: string }) => club.code)
    const writes = apps.flatMap((app, i) =>
      Array.from({ length: 15 }, (_, n) =>
        app.admin.patch(`/api/clubs/${codes[(i + n) % codes.length]}/`, { subtitle: `Round ${i}-${n}` }),
      ),
    )
    expect((await Promise.all(writes)).map((res) => res.status)).toEqual(writes.map(() => 200))
    const last = first + writes.length
    for (const app of apps)
      await caughtUp(async () => (await readJson(await app.req('/api/changes/'))).last_seq === last)
    following = false
    await follower
    const lists = await Promise.all(
      apps.map(async (app) => (await readJson(await app.req(`/api/changes/?since=${first}&limit=1000`))).results),
    )
    const numbers = lists[0]!.map((event: { seq: number }) => event.seq)
    expect(numbers).toEqual(Array.from({ length: writes.length }, (_, i) => first + 1 + i))
    for (const list of lists.slice(1)) expect(list).toEqual(lists[0])
    // What the follower read, it read in order and without a hole.
    expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => first + 1 + i))
  })
})

describe('an instance further behind than the kept revisions', () => {
  test('reads every record again and applies what differs', async () => {
    const { url, apps } = await instances(1)
    const [b] = apps as [App]
    const code = 'pre-health-society'
    const tags = async () =>
      (await readJson(await b.req('/api/tags/?format=json'))).map((tag: { name: string }) => tag.name)
    // A change whose revision is no longer kept: the record and the meta row move, no revision row says how.
    const sql = new SQL(url)
    try {
      const [{ doc }] =
        await sql`SELECT doc::text AS doc FROM club_directory_records WHERE collection = 'clubs' AND key = ${code}`
      const changed = { ...JSON.parse(doc), subtitle: 'Changed while nobody kept the revision' }
      await sql.begin(async (tx) => {
        await tx`UPDATE club_directory_records SET doc = ${JSON.stringify(changed)}::text::json WHERE collection = 'clubs' AND key = ${code}`
        await tx`INSERT INTO club_directory_records (collection, key, doc, born, pos) VALUES ('tags', '999', '{"id":999,"name":"Resynced"}', 0, 0)`
        await tx`UPDATE club_directory_meta SET rev = rev + 5`
      })
    } finally {
      await sql.close()
    }
    await caughtUp(
      async () =>
        (await readJson(await b.req(`/api/clubs/${code}/`))).subtitle === 'Changed while nobody kept the revision',
    )
    expect(await tags()).toContain('Resynced')
    // And it writes on from there.
    expect((await b.admin.patch(`/api/clubs/${code}/`, { subtitle: 'Written after' })).status).toBe(200)
    const later = await instance(url)
    expect((await readJson(await later.req(`/api/clubs/${code}/`))).subtitle).toBe('Written after')
  })
})

describe('a read-only instance', () => {
  test('refuses writes and follows what the others commit', async () => {
    const url = await pg.createDatabase()
    const writer = await instance(url)
    const reader = await makeApp({ databaseUrl: url, config: { readOnly: true } })
    started.push(reader)
    expect((await reader.admin.post('/api/clubs/', newClub('refused-here'))).status).toBe(405)
    expect((await writer.admin.post('/api/clubs/', newClub('made-there'))).status).toBe(201)
    await caughtUp(async () => (await reader.admin.get('/api/clubs/made-there/')).status === 200)
  })
})

describe('what instances share besides records', () => {
  test('a logo uploaded through one instance is served by another', async () => {
    const { apps } = await instances(2)
    const [a, b] = apps as [App, App]
    const imageUrl = await putLogo(a, 'pre-health-society', await solidPng(120, 80, '#3366cc'))
    await caughtUp(
      async () => (await readJson(await b.admin.get('/api/clubs/pre-health-society/'))).image_url === imageUrl.href,
    )
    const served = await b.req(imageUrl.pathname)
    expect(served.status).toBe(200)
    expect(served.headers.get('content-type')).toBe('image/webp')
    expect((await sharp(new Uint8Array(await served.arrayBuffer())).metadata()).width).toBe(120)
  })

  test('a calendar address made through one instance works through another (one secret key)', async () => {
    const { apps } = await instances(2)
    const [a, b] = apps as [App, App]
    const { cal } = await users(a, 'cal')
    await caughtUp(async () => (await b.req('/api/users/me/', { token: cal })).status === 200)
    const made = await a.req('/api/users/me/calendar-url/', { token: cal })
    expect(made.status).toBe(200)
    const address = new URL((await readJson(made)).url as string)
    await caughtUp(async () => (await b.req(address.pathname)).status === 200)
    expect(await readJson(await b.req('/api/users/me/calendar-url/', { token: cal }))).toEqual({
      url: address.href,
    })
  })
})

describe('webhooks on several instances', () => {
  test('each event is delivered by one instance; when it stops, another sends the rest', async () => {
    const url = await pg.createDatabase()
    const open = async () => {
      const app = await makeApp({
        databaseUrl: url,
        now: () => new Date(),
        config: { webhookAllowPrivate: true },
        webhookRetries: [200, 200],
      })
      started.push(app)
      return app
    }
    const [a, b] = [await open(), await open()]
    const receiver = startReceiver()
    try {
      expect((await b.admin.post('/api/webhooks/', { url: receiver.url })).status).toBe(201)
      await caughtUp(async () => (await readJson(await a.admin.get('/api/webhooks/'))).length === 1)
      const code = 'pre-health-society'
      for (let n = 0; n < 6; n++)
        expect((await [a, b][n % 2]!.admin.patch(`/api/clubs/${code}/`, { subtitle: `Hook ${n}` })).status).toBe(200)
      await caughtUp(async () => new Set(receiver.events().map((event) => event.seq)).size === 6, 10_000)
      await sleep(500)
      const seqs = receiver.events().map((event) => event.seq)
      expect(seqs).toHaveLength(6)
      expect(new Set(seqs).size).toBe(6)
      // The instance that sent them stops; the other takes over.
      const sender = [a, b].find((app) => 'sendsWebhooks' in app.store && app.store.sendsWebhooks)!
      const other = sender === a ? b : a
      expect('sendsWebhooks' in other.store && other.store.sendsWebhooks).toBe(false)
      await sender.store.close()
      started.splice(started.indexOf(sender), 1)
      for (let n = 0; n < 3; n++)
        expect((await other.admin.patch(`/api/clubs/${code}/`, { subtitle: `After ${n}` })).status).toBe(200)
      await caughtUp(async () => new Set(receiver.events().map((event) => event.seq)).size === 9, 10_000)
    } finally {
      receiver.stop()
    }
  }, 30_000)
})

describe('a lost database', () => {
  test('reads go on from memory, writes are 503 and /readyz says why; once it is back, writes resume without a restart', async () => {
    const { apps } = await instances(2)
    const [a, b] = apps as [App, App]
    expect((await a.admin.post('/api/clubs/', newClub('before-outage'))).status).toBe(201)
    await caughtUp(async () => (await b.admin.get('/api/clubs/before-outage/')).status === 200)
    pg.kill()
    try {
      expect((await a.req('/api/clubs/before-outage/', { token: ADMIN_TOKEN })).status).toBe(200)
      expect((await b.req('/api/clubs/?format=json')).status).toBe(200)
      const refused = await a.admin.post('/api/clubs/', newClub('during-outage'))
      expect(refused.status).toBe(503)
      expect(refused.headers.get('retry-after')).toBeTruthy()
      await caughtUp(async () => (await b.req('/readyz')).status === 503)
      expect(await (await b.req('/readyz')).text()).toContain('database')
    } finally {
      await pg.restart()
    }
    await caughtUp(async () => (await a.admin.post('/api/clubs/', newClub('after-outage'))).status === 201, 15_000)
    await caughtUp(async () => (await b.admin.get('/api/clubs/after-outage/')).status === 200)
    await caughtUp(async () => (await a.req('/readyz')).status === 200)
    expect((await a.admin.get('/api/clubs/during-outage/')).status).toBe(404)
  }, 60_000)
})

describe('migrations', () => {
  test('a database at the previous schema version is brought up to this one at start', async () => {
    const url = await pg.createDatabase()
    const sql = new SQL(url)
    await sql`CREATE TABLE club_directory_migrations (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`
    for (let version = 1; version < MIGRATIONS.length; version++) {
      await sql.unsafe(MIGRATIONS[version - 1]!)
      await sql`INSERT INTO club_directory_migrations (version) VALUES (${version})`
    }
    const { apps } = await instances(1, url)
    expect((await apps[0]!.admin.post('/api/clubs/', newClub('migrated'))).status).toBe(201)
    const versions = await sql`SELECT version FROM club_directory_migrations ORDER BY version`
    await sql.close()
    expect(versions.map((row: { version: number }) => row.version)).toEqual(MIGRATIONS.map((_, i) => i + 1))
  })

  test('a database newer than this release is refused at start, naming its version', async () => {
    const url = await pg.createDatabase()
    const sql = new SQL(url)
    await sql`CREATE TABLE club_directory_migrations (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`
    await sql`INSERT INTO club_directory_migrations (version) VALUES (${MIGRATIONS.length + 1})`
    await sql.close()
    expect(instance(url)).rejects.toThrow(`version ${MIGRATIONS.length + 1}`)
  })
})
