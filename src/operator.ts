// What the operator's user commands (users:add, users:token) share: they open the data file
// while the server is stopped (or the database, CLUBS_DATABASE_URL, also while its instances run:
// they take the change in within a second), say plainly where they wrote, and say what to do
// instead while the server holds the file.
import { resolve } from 'node:path'
import { ConfigError, IN_MEMORY, loadConfig, type Config } from './config'
import { openDirectoryStore } from './data-file'
import { openDirectory } from './domain/directory'
import { shownUrl } from './store/postgres-store'
import { StoreError } from './store/store'

type Directory = ReturnType<typeof openDirectory>

/**
 * The data file as an operator needs to read it: its absolute path, and where that came from —
 * a shell without CLUBS_DATA_FILE writes the default file, which need not be the server's.
 */
export function describeDataFile(config: Config, env: Record<string, string | undefined> = process.env): string {
  if (config.databaseUrl !== null) return `${shownUrl(config.databaseUrl)} (CLUBS_DATABASE_URL)`
  const path = resolve(config.dataFile)
  if (env.CLUBS_DATA_FILE || env.CLUBS_DATA_FILE_FILE) return `${path} (CLUBS_DATA_FILE)`
  return `${path} (the default: CLUBS_DATA_FILE is not set here; the server must run with this same file)`
}

export interface OperatorCommand {
  /** Its npm script name, the prefix of its messages. */
  readonly name: string
  readonly usage: string
  /** What to do through the running server instead, when it holds the data file. */
  readonly whileServing: (args: readonly string[]) => string
  run(args: readonly string[], directory: Directory, dataFile: string, config: Config): Promise<number>
}

/** Runs `command` over the configured data file and exits with its status. */
export function runOperatorCommand(command: OperatorCommand, args: readonly string[]): void {
  main(command, args).then(
    (code) => process.exit(code),
    (error) => {
      if (!(error instanceof ConfigError || error instanceof StoreError)) throw error
      console.error(error.message)
      if (error.message.includes('another process'))
        console.error(`The server is running: ${command.whileServing(args)} (see docs/campus.md).`)
      process.exit(1)
    },
  )
}

async function main(command: OperatorCommand, args: readonly string[]): Promise<number> {
  const config = loadConfig()
  if (args.length !== 1) {
    console.error(`usage: npm run ${command.name} -- ${command.usage}`)
    return 2
  }
  if (config.databaseUrl === null && config.dataFile === IN_MEMORY) {
    console.error(
      `${command.name}: CLUBS_DATA_FILE is ${IN_MEMORY}, so there is no file to write; ${command.whileServing(args)}.`,
    )
    return 1
  }
  // A command writes, whatever CLUBS_READ_ONLY says for the servers.
  const { store, data, changes } = await openDirectoryStore({ ...config, readOnly: false })
  try {
    const directory = openDirectory(store, data, { autoApprove: config.autoApprove, now: () => new Date(), changes })
    return await command.run(args, directory, describeDataFile(config), config)
  } finally {
    await store.close()
  }
}
