import pkg from '../package.json'
import { createApp } from './app'
import { ConfigError, IN_MEMORY, loadConfig } from './config'
import { createLogger } from './log'
import { serve } from './serve'
import { openDataFile } from './data-file'
import { StoreError } from './store/store'

async function main() {
  const config = loadConfig()
  const log = createLogger(config.logLevel)
  const { store, data, source } = await openDataFile(config.dataFile, config.seedFile)
  const app = createApp({
    store,
    data,
    config,
    version: pkg.version,
    logFault: (error, request) =>
      log.error('unexpected fault', {
        method: request.method,
        path: new URL(request.url).pathname,
        error: String(error),
      }),
  })
  // Loading parses the whole data file; let that garbage go before serving, so RSS starts lean.
  Bun.gc(true)
  const server = serve(app, { port: config.port, host: config.host, log })
  const where = config.dataFile === IN_MEMORY ? `memory only (seeded from ${config.seedFile})` : config.dataFile
  log.info('club directory started', {
    url: `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${server.port}/api/clubs/`,
    data: where,
    loaded_from: source,
    clubs: data.clubs.filter((c) => c.archived_at === null).length,
    writes: config.readOnly
      ? 'off: read-only'
      : config.adminToken
        ? 'on'
        : 'need a token: set CLUBS_ADMIN_TOKEN, or add users with npm run users:add',
  })

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    await server.stop()
    await store.close()
    log.info('club directory stopped', { signal, data: where })
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
