// Issues a user and prints their token, straight into the data file. Refuses while the
// server runs (the data file is locked by it): then use `POST /api/users/` instead.
//   bun run users:add <username> [--admin]
import { parseArgs } from 'node:util'
import { ConfigError, IN_MEMORY, loadConfig } from '../src/config'
import { openDirectory } from '../src/domain/directory'
import { openDataFile } from '../src/data-file'
import { StoreError } from '../src/store/store'

const { positionals, values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { admin: { type: 'boolean', default: false } },
  allowPositionals: true,
})

async function main(): Promise<number> {
  const config = loadConfig()
  const [username] = positionals
  if (!username || positionals.length > 1) {
    console.error('usage: bun run users:add <username> [--admin]')
    return 2
  }
  if (config.dataFile === IN_MEMORY) {
    console.error('users:add: CLUBS_DATA_FILE is :memory:, so there is no file to add a user to; use POST /api/users/.')
    return 1
  }
  const { store, data } = await openDataFile(config.dataFile, config.seedFile)
  try {
    const { users } = openDirectory(store, data, { autoApprove: config.autoApprove, now: () => new Date() })
    const problem = users.problemWith(username)
    if (problem) {
      console.error(`users:add: ${username}: ${problem}`)
      return 1
    }
    const issued = await users.issue(username, values.admin)
    console.log(`Added ${issued.is_admin ? 'admin' : 'user'} "${issued.username}" to ${config.dataFile}.`)
    console.log(`Token (shown this once; only its hash is stored):\n${issued.token}`)
    return 0
  } finally {
    await store.close()
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    if (!(error instanceof ConfigError || error instanceof StoreError)) throw error
    const running = error.message.includes('another process')
    console.error(error.message)
    if (running) console.error('The server is running: add users through it with POST /api/users/ (see the README).')
    process.exit(1)
  },
)
