import { createApp } from './app'
import { ConfigError, loadConfig } from './config'
import { Store, StoreError } from './store/store'

async function main() {
  const config = loadConfig()
  const { store, data, source } = await Store.open(config.dataFile, config.seedFile)
  const app = createApp({ store, data, config })
  // Loading parses the whole data file; let that garbage go before serving, so RSS starts lean.
  Bun.gc(true)
  app.listen({ port: config.port, hostname: config.host })
  const where =
    config.dataFile === ':memory:' ? 'in memory only (seeded from ' + config.seedFile + ')' : config.dataFile
  console.log(
    JSON.stringify({
      level: 'info',
      msg: 'club directory started',
      url: `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${app.server?.port}/api/clubs/`,
      data: where,
      loaded_from: source,
      clubs: data.clubs.filter((c) => c.archived_at === null).length,
      writes: config.readOnly ? 'read-only' : config.adminToken ? 'enabled' : 'need CLUBS_ADMIN_TOKEN',
    }),
  )

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    await app.stop()
    await store.close()
    console.log(JSON.stringify({ level: 'info', msg: 'club directory stopped', signal, data: where }))
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

main().catch((error) => {
  if (error instanceof ConfigError || error instanceof StoreError) {
    console.error(error.message)
    process.exit(1)
  }
  throw error
})
