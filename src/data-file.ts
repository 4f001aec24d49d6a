import { readdir } from 'node:fs/promises'
import { basename, dirname, extname, join } from 'node:path'
import type { StoredSnapshot } from './model/snapshot'
import { CHANGE_TYPES } from './model/change'
import type { DirectoryStore, KeptChanges } from './domain/directory'
import { Journal } from './domain/journal'
import type { LoggedChange } from './domain/change-log'
import type { ReadLog } from './store/change-file'
import { emptySnapshot, snapshotOfClubs, type SeedLogo } from './domain/seed'
import { recordKeys } from './domain/replica'
import { snapshotProblem, upgradeSnapshot } from './domain/snapshot-format'
import { IN_MEMORY, Store, StoreError } from './store/store'
import type { ChangeSet } from './store/change-set'
import { PostgresStore } from './store/postgres-store'
import { demoClubs, type Config } from './config'
import { demoCampus, demoColour, initialsOf } from './domain/demo-campus'
import { drawLogo } from './store/demo-logos'

/** CLUBS_SEED_FILE=none: a new data file starts empty. */
export const NO_SEED = 'none'

/** A seed the service will not start from: the message names the variable, the file, and the row and field at fault. */
export class SeedError extends StoreError {
  constructor(file: string, reason: string) {
    super(file, reason)
    this.message = `CLUBS_SEED_FILE ${file}: ${reason}`
  }
}

/**
 * The service's data file: the store over snapshots of the club directory, in the current
 * format. A file an older release wrote is upgraded in memory (the next write saves it whole in
 * the new format) and first kept beside it as `<file>.v<N>.bak`, the way back to that release.
 */
export async function openDataFile(
  dataFile: string,
  seedFile: string,
  options: { fromSeed?: boolean; readOnly?: boolean; journalBytes?: number } = {},
) {
  const opened = await Store.open<StoredSnapshot>(dataFile, () => readSeed(seedFile), snapshotProblem, {
    ...options,
    journal: (append) => new Journal<ChangeSet>(append),
    keys: recordKeys,
  })
  const data = upgradeSnapshot(opened.data)
  // A file of the current format that lacks a later optional field (meetings) is no upgrade.
  const upgradedFrom =
    data.version === opened.data.version
      ? null
      : {
          version: opened.data.version,
          copy:
            opened.source === 'file' && dataFile !== IN_MEMORY && !options.readOnly
              ? await opened.store.keepCopy(`.v${opened.data.version}.bak`)
              : null,
        }
  return { ...opened, data, upgradedFrom, changes: keptChanges(opened.store.file, opened.log) }
}

const KNOWN_TYPES: ReadonlySet<string> = new Set(CHANGE_TYPES)

/** The change log's events as the directory keeps them: each of a type this release knows. */
function keptChanges(dataFile: string, { lines, trimmedUpTo, issued }: ReadLog): KeptChanges {
  const unknown = lines.find((line) => !KNOWN_TYPES.has(line.type))
  if (unknown)
    throw new StoreError(`${dataFile}.changes`, `event ${unknown.seq} has the unknown type "${unknown.type}"`)
  return { kept: lines as LoggedChange[], trimmedUpTo, issued }
}

/** What a new directory starts from, in this release's format (a database's first start, a reset). */
export const seedSnapshot = async (seedFile: string) => upgradeSnapshot(await readSeed(seedFile))

/** What a new data file starts from (docs/reference.md §15): nothing, a list of clubs in the write shape, or a data file. */
async function readSeed(file: string): Promise<StoredSnapshot> {
  if (file === NO_SEED) return emptySnapshot()
  const demo = demoClubs(file)
  if (demo !== null) return demoCampus(demo)
  let text: string
  try {
    text = await Bun.file(file).text()
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw new SeedError(file, code === 'ENOENT' ? 'it does not exist' : `it cannot be read (${code ?? String(e)})`)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    throw new SeedError(file, `it is not valid JSON (${(e as Error).message})`)
  }
  if (Array.isArray(value)) {
    const made = await snapshotOfClubs(value, () => new Date())
    if (typeof made === 'string') throw new SeedError(file, made)
    return made
  }
  const problem = snapshotProblem(value)
  if (problem) throw new SeedError(file, `it is neither a list of clubs nor a club directory data file (${problem})`)
  return value as StoredSnapshot
}

/** Where a seed keeps its clubs' logos: `data/seed.json` → `data/seed-logos/`. */
export const seedLogosDir = (seedFile: string) =>
  join(dirname(seedFile), `${basename(seedFile, extname(seedFile))}-logos`)

const LOGO_FILE = /^([a-z0-9]+(?:-[a-z0-9]+)*)\.(?:png|jpe?g|webp)$/i

/**
 * The logos a seed brings, if any: `<code>.png` (or .jpg, .webp) in the folder beside it named
 * like it (seedLogosDir), one for each club they name. A seed without that folder brings none.
 */
export async function readSeedLogos(seedFile: string): Promise<SeedLogo[]> {
  if (seedFile === NO_SEED) return []
  const demo = demoClubs(seedFile)
  if (demo !== null) return demoLogos(demo)
  const dir = seedLogosDir(seedFile)
  try {
    const files = (await readdir(dir)).filter((name) => LOGO_FILE.test(name)).sort()
    return await Promise.all(
      files.map(async (name) => ({ code: LOGO_FILE.exec(name)![1]!, bytes: await Bun.file(join(dir, name)).bytes() })),
    )
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return []
    throw new SeedError(seedFile, `its logos in ${dir} cannot be read (${code ?? String(e)})`)
  }
}

/**
 * How many clubs of a generated campus get a logo drawn at its first start: a logo takes some
 * 10 ms to draw and keep, so drawing 10,000 would take minutes; the first clubs show what a logo
 * looks like everywhere (cards, pages, the API), the others have none, as new clubs do.
 */
export const DEMO_LOGOS = 40

/** The logos of a generated campus's first DEMO_LOGOS clubs: their initials in their colour. */
async function demoLogos(count: number): Promise<SeedLogo[]> {
  const { clubs } = demoCampus(Math.min(count, DEMO_LOGOS))
  return Promise.all(
    clubs.map(async (club, i) => ({ code: club.code, bytes: await drawLogo(initialsOf(club.name), demoColour(i)) })),
  )
}

/**
 * Where the directory is kept, chosen in this one place: PostgreSQL when CLUBS_DATABASE_URL is
 * set (docs/reference.md §19), the data file otherwise. The database also keeps the secret key and the
 * logos, so that every instance makes the same calendar addresses and serves the same images.
 */
export async function openDirectoryStore(
  config: Pick<Config, 'dataFile' | 'databaseUrl' | 'seedFile' | 'readOnly'> & Partial<Pick<Config, 'journalBytes'>>,
) {
  if (config.databaseUrl === null)
    return { ...(await openDataFile(config.dataFile, config.seedFile, config)), key: null, logos: null }
  const opened = await PostgresStore.open(config.databaseUrl, () => seedSnapshot(config.seedFile), snapshotProblem, {
    readOnly: config.readOnly,
    keys: recordKeys,
  })
  const data = upgradeSnapshot(opened.data as StoredSnapshot)
  return {
    ...opened,
    data,
    upgradedFrom: null,
    changes: keptChanges(opened.store.file, opened.log),
    logos: opened.store.logos,
  }
}

export type DataFile = Awaited<ReturnType<typeof openDirectoryStore>>['store']

/**
 * What the service asks of either store: the domain's DirectoryStore (track, commit, exclusive),
 * and whether this instance sends webhook deliveries, why writes cannot be made now, how each
 * write went, and closing. Both stores implement all of it (checked below).
 */
export interface ServiceStore extends DirectoryStore {
  /** The data file, or the database's address without its password: what messages name. */
  readonly file: string
  /** Whether this instance sends webhook deliveries (a data file's always; one of several sharing a database). */
  readonly sendsWebhooks: boolean
  /** Why writes cannot be made now, in words (readiness); null when they can. */
  readonly writeProblem: string | null
  /** Told of each write: how long it took (seconds), and why it failed (null when it landed). */
  onWrite: ((seconds: number, failure: Error | null) => void) | null
  /** Told of each snapshot written in the background (a data file's; a database writes none): why it failed, or null. */
  onSnapshot: ((failure: Error | null) => void) | null
  /** Waits for the writes under way and lets go of the store. */
  close(): Promise<void>
  /** The file a backup copies, or null when there is none (in memory, read-only, a database). */
  readonly backedUpFile: string | null
  /** Whether a change made before the app opens the directory can be saved (a new data file's seed logos). */
  readonly savesBeforeOpening: boolean
  /** Saves `data` as the directory, before the app opens it; refused where savesBeforeOpening is false. */
  saveOpened(data: StoredSnapshot): Promise<void>
  /** Whether the directory can be replaced whole in place (the sandbox's reset): not a database others share. */
  readonly resettable: boolean
  /** Empties the change log up to `trimmedUpTo` for a directory replaced whole; refused where resettable is false. */
  restartLog(trimmedUpTo: number): Promise<void>
  /** Resolves once everything changed in memory so far is durable. */
  save(): Promise<void>
}

/** Both stores, each checked to be the one interface: a change to either that breaks it fails to compile here. */
export type Stores = Implementing<Store<StoredSnapshot>> | Implementing<PostgresStore>
type Implementing<S extends ServiceStore> = S
