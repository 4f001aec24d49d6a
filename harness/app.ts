import { SQL } from 'bun'
import { join } from 'node:path'
import { createApp } from '../src/app'
import { openDataFile, openDirectoryStore, type DataFile } from '../src/data-file'
import { IN_MEMORY } from '../src/store/store'
import { logoNamesOf } from '../src/domain/logos'
import { openLogos } from '../src/store/logo-store'
import type { Config } from '../src/config'
import type { CampusSignIn } from '../src/edge/oidc'
import { startPostgres, type Postgres } from './postgres'

export const ADMIN_TOKEN = 'test-admin-token'
const TEST_KEY = new Uint8Array(32).fill(42)
export const SEED_FILE = join(import.meta.dir, '..', 'data', 'seed.json')
/** A fixed clock, so "not in the future" and timestamps are predictable. */
export const NOW = new Date('2026-11-22T12:00:00.000Z')

export type TestConfig = Partial<
  Pick<
    Config,
    'adminToken' | 'autoApprove' | 'maxStreams' | 'readOnly' | 'rateLimit' | 'timezone' | 'webhookAllowPrivate'
  >
>

/**
 * CLUBS_TEST_STORE=postgres: every app made without a data file keeps the directory in a fresh
 * database of one PostgreSQL this process starts (docs/reference.md §19), so that the API suites run
 * on both stores. The oldest of those apps are closed as new ones come (each holds connections).
 */
export const ON_POSTGRES = process.env.CLUBS_TEST_STORE === 'postgres'
const OPEN_DATABASES = 8
let cluster: Promise<Postgres> | null = null
let databases = 0
/** The apps on a database of their own, oldest first, with the database each is on. */
const databaseApps: { store: DataFile; name: string }[] = []

/**
 * A fresh database holding the seed: a copy of one seeded once (a first start's migrations and
 * seeding are tested on their own). Apps a test opens on it with `databaseUrl` are its to close.
 */
export async function testDatabase(): Promise<string> {
  cluster ??= (async () => {
    const pg = await startPostgres()
    const seeded = await pg.createDatabase('clubs_seeded')
    const { store } = await openDirectoryStore({
      databaseUrl: seeded,
      dataFile: IN_MEMORY,
      seedFile: SEED_FILE,
      readOnly: false,
    })
    await store.close()
    return pg
  })()
  const pg = await cluster
  const name = `clubs_app_${process.pid}_${++databases}`
  const sql = new SQL(pg.url())
  await sql.unsafe(`CREATE DATABASE ${name} TEMPLATE clubs_seeded`).finally(() => sql.close())
  while (databaseApps.length >= OPEN_DATABASES) {
    const oldest = databaseApps.shift()!
    await oldest.store.close().catch(() => undefined)
    dropLater(pg, oldest.name)
  }
  return pg.url(name)
}

let drops = Promise.resolve()
/**
 * Drops a closed app's database, one at a time and without the tests waiting: a run makes about
 * a thousand, which kept would fill gigabytes, and each drop takes a moment.
 */
function dropLater(pg: Postgres, name: string): void {
  drops = drops.then(async () => {
    const sql = new SQL(pg.url())
    await sql
      .unsafe(`DROP DATABASE ${name} WITH (FORCE)`)
      .catch(() => undefined)
      .finally(() => sql.close())
  })
}

/** The store each data file is open in, so that opening the file again is a restart: the old one lets go first. */
const openStores = new Map<string, DataFile>()

/**
 * The real app over the sample data: in memory, or over `dataFile` (a real lowdb file). A second
 * app on the same file is the process restarted: the first one's writes finish and it closes.
 */
export async function makeApp(
  options: {
    dataFile?: string
    config?: TestConfig
    now?: () => Date
    campus?: CampusSignIn
    /** Whether the data file's development admin token opens the API (outside production, no CLUBS_ADMIN_TOKEN). */
    developmentAdmin?: boolean
    /** The service's secret key; the same for every test app unless told (a key file that outlives restarts). */
    key?: Uint8Array
    /** How many change log events to keep at least (docs/reference.md §18 keeps 10,000). */
    keepChanges?: number
    /** The waits between a failed webhook delivery's attempts (docs/reference.md §18's are hours long). */
    webhookRetries?: readonly number[]
    /** A PostgreSQL database (docs/reference.md §19) in place of the data file: each app on it is another instance. */
    databaseUrl?: string
    /** How large the data file's journal grows before the snapshot is written again (CLUBS_JOURNAL_BYTES). */
    journalBytes?: number
  } = {},
) {
  if (options.dataFile) await openStores.get(options.dataFile)?.close()
  const databaseUrl = options.databaseUrl ?? (ON_POSTGRES && !options.dataFile ? await testDatabase() : null)
  const { store, data, changes, logos } = databaseUrl
    ? await openDirectoryStore({ databaseUrl, dataFile: IN_MEMORY, seedFile: SEED_FILE, readOnly: false })
    : {
        ...(await openDataFile(options.dataFile ?? IN_MEMORY, SEED_FILE, { journalBytes: options.journalBytes })),
        logos: null,
      }
  if (options.dataFile) openStores.set(options.dataFile, store)
  if (databaseUrl && !options.databaseUrl) databaseApps.push({ store, name: new URL(databaseUrl).pathname.slice(1) })
  const app = createApp({
    store,
    data,
    changes: options.keepChanges ? { ...changes, keep: options.keepChanges } : changes,
    logos: logos ?? openLogos(options.dataFile ?? IN_MEMORY, { old: { named: () => logoNamesOf(data.clubs) } }),
    config: { adminToken: ADMIN_TOKEN, autoApprove: false, readOnly: false, ...options.config },
    now: options.now ?? (() => NOW),
    logFault: () => {},
    campus: options.campus,
    developmentAdmin: options.developmentAdmin,
    key: options.key ?? TEST_KEY,
    webhookRetries: options.webhookRetries,
  })
  const req = (path: string, init: RequestInit & { token?: string | null; json?: unknown } = {}) => {
    const { token = null, json, ...rest } = init
    const headers = new Headers(rest.headers)
    if (token) headers.set('authorization', `Bearer ${token}`)
    let body = rest.body
    if (json !== undefined) {
      body = JSON.stringify(json)
      if (!headers.has('content-type')) headers.set('content-type', 'application/json')
    }
    return app.handle(new Request(`http://localhost${path}`, { ...rest, headers, body }))
  }
  /** Shorthands that send the admin token. */
  const admin = {
    get: (path: string) => req(path, { token: ADMIN_TOKEN }),
    post: (path: string, json: unknown) => req(path, { method: 'POST', token: ADMIN_TOKEN, json }),
    put: (path: string, json: unknown) => req(path, { method: 'PUT', token: ADMIN_TOKEN, json }),
    patch: (path: string, json: unknown) => req(path, { method: 'PATCH', token: ADMIN_TOKEN, json }),
    delete: (path: string) => req(path, { method: 'DELETE', token: ADMIN_TOKEN }),
  }
  return { app, store, req, admin }
}

export { tempDir } from './temp-dirs'

export const readJson = async (res: Response) => (await res.json()) as any
