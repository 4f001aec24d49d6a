// Puts the data file (or the database, CLUBS_DATABASE_URL) back to the seed. The data it
// replaces is kept first as a timestamped copy in CLUBS_BACKUP_DIR (or beside the data file) that
// no later write replaces. Refuses while the server runs (it locks the data file; it is connected
// to the database).
//   npm run reset
import { existsSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { dirname, join, resolve } from 'node:path'
import { ConfigError, IN_MEMORY, loadConfig, type Config } from '../src/config'
import { openDataFile, seedSnapshot } from '../src/data-file'
import { recordKeys } from '../src/domain/replica'
import { snapshotProblem } from '../src/domain/snapshot-format'
import { copySnapshot, stamp } from '../src/store/backups'
import {
  CopyRefused,
  readDatabaseDirectory,
  writeDatabaseDirectory,
  writeDataFileDirectory,
} from '../src/store/directory-copy'
import { shownUrl } from '../src/store/postgres-store'
import { failureWords, StoreError } from '../src/store/store'
import { lockFileOf } from '../src/store/store'
import { lockHolder } from '../src/store/lock'
import { answerHelp } from '../src/command-help'

answerHelp(`usage: npm run reset

Puts the data file (CLUBS_DATA_FILE, or data/db.json) back to the seed (CLUBS_SEED_FILE, or
data/seed.json). The data it replaces is kept first as db-reset-<time>.json in CLUBS_BACKUP_DIR
(or beside the data file), which no later write replaces. Refused while the server runs.

With CLUBS_DATABASE_URL it puts that database back to the seed instead, refused while anything
else is connected to it (stop every instance first). The directory it replaces is kept first as
<database>-reset-<time>.json in CLUBS_BACKUP_DIR (or data/), with its .changes and .key:
npm run data:copy -- <that file> "$CLUBS_DATABASE_URL" --replace brings it back. The change
numbers go on past every one used, so followers list again.`)

async function main(): Promise<number> {
  const config = loadConfig()
  if (config.databaseUrl !== null) return resetDatabase(config, config.databaseUrl)
  if (config.dataFile === IN_MEMORY) {
    console.error('reset: CLUBS_DATA_FILE is :memory:; there is nothing to reset.')
    return 1
  }
  const holder = lockHolder(lockFileOf(config.dataFile))
  if (holder !== null) {
    console.error(`reset: the server (${holder}) is using ${config.dataFile}; stop it first.`)
    return 1
  }
  const keepIn = config.backups?.dir ?? dirname(config.dataFile)
  let kept: string | null = null
  try {
    if (existsSync(config.dataFile)) kept = await copySnapshot(config.dataFile, keepIn, 'reset')
  } catch (error) {
    const why = error instanceof Error ? failureWords(error) : String(error)
    console.error(`reset: cannot keep a copy of ${config.dataFile} in ${keepIn}: ${why}; nothing was changed.`)
    return 1
  }
  // The seed replaces the file as every snapshot does: the old one stays whole until it has.
  const { store, data } = await openDataFile(config.dataFile, config.seedFile, { fromSeed: true })
  await store.close()
  console.log(`Reset ${resolve(config.dataFile)} to ${config.seedFile}: ${data.clubs.length} clubs.`)
  if (kept) console.log(`The previous data is kept in ${resolve(kept)}; no later write replaces it.`)
  return 0
}

/**
 * Puts the database back to the seed, keeping its key (calendar addresses made later stay the
 * same) and numbering changes on past every number it used, as a data file's reset does.
 */
async function resetDatabase(config: Config, url: string): Promise<number> {
  const seed = await seedSnapshot(config.seedFile)
  const keepIn = config.backups?.dir ?? dirname(config.dataFile)
  const name = decodeURIComponent(new URL(url).pathname.slice(1)) || 'database'
  let kept: string | null = null
  await writeDatabaseDirectory(
    url,
    recordKeys,
    async (held) => {
      if (held) {
        // Nothing else is connected: what is read here is what is replaced.
        kept = join(keepIn, `${name}-reset-${stamp(new Date())}.json`)
        await writeDataFileDirectory(
          kept,
          await readDatabaseDirectory(url, { check: snapshotProblem, keys: recordKeys }),
        )
      }
      const seedSeq = seed.changes_seq ?? 0
      const trimmedUpTo = held && held.seq > seedSeq ? held.seq + 1 : seedSeq
      return { data: seed, log: { lines: [], trimmedUpTo }, key: held?.key ?? randomBytes(32) }
    },
    { replace: true },
  )
  console.log(`Reset ${shownUrl(url)} to ${config.seedFile}: ${seed.clubs.length} clubs.`)
  if (kept)
    console.log(
      `The previous data is kept in ${resolve(kept)}; npm run data:copy -- ${resolve(kept)} "$CLUBS_DATABASE_URL" --replace brings it back.`,
    )
  return 0
}

main().then(
  (code) => process.exit(code),
  (error) => {
    if (!(error instanceof ConfigError || error instanceof StoreError || error instanceof CopyRefused)) throw error
    console.error(error instanceof CopyRefused ? `reset: ${error.message}; nothing was changed.` : error.message)
    process.exit(1)
  },
)
