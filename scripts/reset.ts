// Puts the data file back to the seed. The data it replaces is kept first as a timestamped copy
// in CLUBS_BACKUP_DIR (or beside the data file) that no later write replaces.
// Refuses while the server runs (the data file is locked by it).
//   npm run reset
import { existsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { ConfigError, IN_MEMORY, loadConfig } from '../src/config'
import { openDataFile } from '../src/data-file'
import { copySnapshot } from '../src/store/backups'
import { failureWords, StoreError } from '../src/store/store'
import { lockFileOf } from '../src/store/store'
import { lockHolder } from '../src/store/lock'
import { answerHelp } from '../harness/usage'

answerHelp(`usage: npm run reset

Puts the data file (CLUBS_DATA_FILE, or data/db.json) back to the seed (CLUBS_SEED_FILE, or
data/seed.json). The data it replaces is kept first as db-reset-<time>.json in CLUBS_BACKUP_DIR
(or beside the data file), which no later write replaces. Refused while the server runs.`)

async function main(): Promise<number> {
  const config = loadConfig()
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

main().then(
  (code) => process.exit(code),
  (error) => {
    if (!(error instanceof ConfigError || error instanceof StoreError)) throw error
    console.error(error.message)
    process.exit(1)
  },
)
