// Puts the data file back to the seed; the old file is kept as <file>.bak.
// Refuses while the server runs (the data file is locked by it).
//   npm run reset
import { existsSync, renameSync } from 'node:fs'
import { ConfigError, IN_MEMORY, loadConfig } from '../src/config'
import { openDataFile } from '../src/data-file'
import { StoreError } from '../src/store/store'
import { lockFileOf } from '../src/store/store'
import { lockHolder } from '../src/store/lock'

async function main(): Promise<number> {
  const config = loadConfig()
  if (config.dataFile === IN_MEMORY) {
    console.error('reset: CLUBS_DATA_FILE is :memory:; there is nothing to reset.')
    return 1
  }
  const holder = lockHolder(lockFileOf(config.dataFile))
  if (holder !== null && holder !== process.pid) {
    console.error(`reset: the server (pid ${holder}) is using ${config.dataFile}; stop it first.`)
    return 1
  }
  const backup = `${config.dataFile}.bak`
  if (existsSync(config.dataFile)) renameSync(config.dataFile, backup)
  const { store, data } = await openDataFile(config.dataFile, config.seedFile)
  await store.close()
  console.log(`Reset ${config.dataFile} to ${config.seedFile}: ${data.clubs.length} clubs.`)
  if (existsSync(backup)) console.log(`The previous data is in ${backup}.`)
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
