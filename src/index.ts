import pkg from '../package.json'
import { createApp } from './app'
import { ConfigError, IN_MEMORY, loadConfig } from './config'
import { Metrics } from './edge/metrics'
import { CampusSignIn, type OidcSettings } from './edge/oidc'
import { createLogger, type Logger } from './log'
import { serve } from './serve'
import { openDataFile } from './data-file'
import { Backups } from './store/backups'
import { StoreError } from './store/store'

async function main() {
  const config = loadConfig()
  const log = createLogger(config.logLevel)
  const { store, data, source } = await openDataFile(config.dataFile, config.seedFile)
  const metrics = config.metrics ? new Metrics() : null
  if (metrics) store.onWrite = (seconds, ok) => metrics.observeWrite(seconds, ok)
  let stopping = false
  const campus = config.oidc ? campusSignIn(config.oidc, log) : null
  const app = createApp({
    store,
    data,
    config,
    version: pkg.version,
    metrics: metrics && { registry: metrics, token: config.metricsToken },
    stopping: () => stopping,
    campus,
    logFault: (error, request) =>
      log.error('unexpected fault', {
        method: request.method,
        path: new URL(request.url).pathname,
        error: String(error),
      }),
  })
  // Loading parses the whole data file; let that garbage go before serving, so RSS starts lean.
  Bun.gc(true)
  let server: ReturnType<typeof serve>
  try {
    server = serve(app, { port: config.port, host: config.host, log, trustProxy: config.trustProxy, metrics })
  } catch (error) {
    // The data file is ours until we exit: let the next start (or an operator command) have it.
    await store.close()
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
    console.error(
      `serve: port ${config.port} on ${config.host} is in use; stop what uses it, or set PORT to another port`,
    )
    process.exit(1)
  }
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
    campus_sign_in: config.oidc ? config.oidc.issuer : 'off',
  })
  // Not awaited: the service serves (reads, service tokens) whether or not the provider answers.
  void campus?.keys.load()

  const backups =
    config.backups && store.file !== IN_MEMORY
      ? new Backups(store.file, config.backups, (error) => log.error('backup failed', { error: String(error) }))
      : null
  backups?.start()

  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    await server.stop()
    await backups?.stop()
    await store.close()
    log.info('club directory stopped', { signal, data: where })
    log.flush()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

/** Campus sign-in whose key fetches are logged: a warning when the provider stops answering, a line when it answers again. */
function campusSignIn(settings: OidcSettings, log: Logger): CampusSignIn {
  let answering: boolean | null = null
  return new CampusSignIn(settings, {
    onLoad: (outcome) => {
      const now = !('problem' in outcome)
      const fields = { issuer: settings.issuer, ...outcome }
      if (now === answering) log.debug('campus sign-in: keys fetched', fields)
      else if (now) log.info('campus sign-in: the identity provider answers; its signing keys are loaded', fields)
      else
        log.warn(
          'campus sign-in: the identity provider cannot be reached; a token signed with a key not yet fetched gets 503 with Retry-After until it answers (service tokens keep working)',
          fields,
        )
      answering = now
    },
  })
}

main().catch((error) => {
  if (error instanceof ConfigError || error instanceof StoreError) {
    console.error(error.message)
    process.exit(1)
  }
  throw error
})
