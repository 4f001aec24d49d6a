import pkg from '../package.json'
import { createApp, type AppDeps } from './app'
import { ConfigError, configWarnings, IN_MEMORY, loadConfig, type Config } from './config'
import { needsDevelopmentAdmin, withDevelopmentAdmin } from './domain/development-admin'
import { logoNamesOf } from './domain/logos'
import { ADMIN_USERNAME } from './domain/users'
import type { Snapshot } from './model/snapshot'
import { CampusSignIn, type OidcSettings } from './edge/oidc'
import { createLogger, type Logger } from './log'
import { serve } from './serve'
import { openSandbox } from './sandbox'
import { openDirectoryStore, readSeedLogos } from './data-file'
import { withSeedLogos } from './domain/seed'
import { Backups } from './store/backups'
import { openLogos } from './store/logo-store'
import { openSecretKey } from './store/secret-key'
import { StoreError } from './store/store'
import { backupLog, logosTakenIn, snapshotWatch, snapshotWriteWatch } from './storage-log'

async function main() {
  const config = loadConfig()
  const log = createLogger(config.logLevel)
  for (const warning of configWarnings()) log.warn(warning)
  const opened = await openDirectoryStore(config)
  const { store, source } = opened
  // A data file from before its logos had a folder of their own takes in those its clubs name.
  const logos =
    opened.logos ??
    openLogos(config.dataFile, {
      readOnly: config.readOnly,
      old: { named: () => logoNamesOf(opened.data.clubs), told: logosTakenIn(log) },
    })
  // A new data file's seed may bring its clubs' logos: part of it from the start, their URLs on the
  // address the start line names (with PORT=0 that port is not known yet: they name port 0). Only
  // where the store saves a change made before the app opens it (not PostgreSQL: it takes the
  // directory it opened as committed, so the change would stay in this instance's memory only).
  const seeded =
    source === 'seed' && !config.readOnly && store.savesBeforeOpening
      ? await withSeedLogos(opened.data, logos, await readSeedLogos(config.seedFile), baseUrl(config.host, config.port))
      : null
  // Saved now, as the seed itself was when the data file was made: a save after the start would
  // race the first reads of the file, and a disk full by then would leave them in memory alone.
  if (seeded?.set) {
    await store.saveOpened(seeded.data).catch((error: NodeJS.ErrnoException) => {
      console.error(`store: cannot save the seed's logos in ${config.dataFile} (${error.code ?? error})`)
      process.exit(1)
    })
  }
  const started = seeded?.data ?? opened.data
  // Outside production and without CLUBS_ADMIN_TOKEN, a directory with no user yet gets a
  // development admin token, so that a newcomer can write (kept on disk once the port is ours).
  const development = config.adminToken === null && !config.production
  const devAdmin =
    development && !config.readOnly && needsDevelopmentAdmin(started) ? withDevelopmentAdmin(started, new Date()) : null
  const data = devAdmin?.data ?? started
  // Loaded only when asked for: prom-client takes the start-up 40 ms.
  const metrics = config.metrics ? new (await import('./edge/metrics')).Metrics() : null
  store.onWrite = snapshotWriteWatch(store.file, log, metrics, config.databaseUrl !== null)
  store.onSnapshot = snapshotWatch(store.file, log)
  let stopping = false
  const campus = config.oidc ? campusSignIn(config.oidc, log) : null
  const build = (over: Pick<AppDeps, 'store' | 'data' | 'changes' | 'stopping' | 'sandbox'>) =>
    createApp({
      ...over,
      logos,
      key,
      config,
      version: pkg.version,
      metrics: metrics && { registry: metrics, token: config.metricsToken },
      stopping: () => stopping || over.stopping!(),
      campus,
      developmentAdmin: development,
      logFault: (error, request) =>
        log.error('unexpected fault', {
          method: request.method,
          path: new URL(request.url).pathname,
          error: String(error),
        }),
    })
  const key = opened.key ?? (await openSecretKey(config.dataFile, { readOnly: config.readOnly }))
  // The sandbox (docs/reference.md §25) is a fetch over the app of the moment; off, the app serves alone.
  const sandbox = config.sandbox
    ? openSandbox(
        { config, store, logos, build, origin: () => baseUrl(config.host, server?.port) },
        data,
        opened.changes,
      )
    : null
  const app = sandbox?.app ?? build({ store, data, changes: opened.changes, stopping: () => false })
  // Loading parses the whole data file; let that garbage go before serving, so RSS starts lean.
  Bun.gc(true)
  let server: ReturnType<typeof serve> | undefined
  try {
    server = serve(sandbox ?? app, {
      port: config.port,
      host: config.host,
      log,
      trustProxy: config.trustProxy,
      metrics,
    })
  } catch (error) {
    // The data file is ours until we exit: let the next start (or an operator command) have it.
    await store.close()
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
    console.error(
      `serve: port ${config.port} on ${config.host} is in use; stop what uses it, or set PORT to another port`,
    )
    process.exit(1)
  }
  // Listening, the service may be told to stop at once (a supervisor that saw it healthy): from
  // here on a signal stops it cleanly, whatever the rest of the start is doing.
  const where = store.file === IN_MEMORY ? `memory only (seeded from ${config.seedFile})` : store.file
  let backups: Backups | null = null
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    await server.stop()
    await backups?.stop()
    await store.close()
    log.info('club directory stopped', { signal, data: where })
    await log.flush()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
  if (devAdmin) {
    try {
      await store.save()
    } catch (error) {
      await server.stop()
      await store.close()
      console.error(
        `store: cannot save the development admin token in ${config.dataFile} (${(error as NodeJS.ErrnoException).code ?? error})`,
      )
      process.exit(1)
    }
  }
  // A stop that began while the start went on has the rest to itself.
  if (stopping) return
  const base = baseUrl(config.host, server.port)
  log.info('club directory started', {
    url: `${base}/api/clubs/`,
    data: where,
    loaded_from: source,
    clubs: data.clubs.filter((c) => c.archived_at === null).length,
    writes: writesNote(config, devAdmin !== null, data),
    campus_sign_in: config.oidc ? config.oidc.issuer : 'off',
    ...(config.sandbox && {
      sandbox: 'on: POST /api/_sandbox/reset, _delay= and _fail= on any request, GET /api/_sandbox/requests',
    }),
    ...(opened.upgradedFrom && {
      upgraded: `from data format version ${opened.upgradedFrom.version}${opened.upgradedFrom.copy ? `; the file as it was is kept as ${opened.upgradedFrom.copy}` : ''}`,
    }),
  })
  if (seeded?.problems.length)
    log.warn('some logos the seed brings were not set', { seed: config.seedFile, problems: seeded.problems })
  if (devAdmin) {
    await log.flush()
    console.log(developmentTokenNotice(devAdmin.token, base, config.dataFile === IN_MEMORY))
  }
  // Not awaited: the service serves (reads, service tokens) whether or not the provider answers.
  void campus?.keys.load()
  if (stopping) return
  backups =
    config.backups && store.backedUpFile !== null
      ? new Backups(store.backedUpFile, config.backups, backupLog(log), () => store.save())
      : null
  backups?.start()
}

/** The service's own address, as the start line names it: localhost when it listens on every interface. */
const baseUrl = (host: string, port: number | undefined) => `http://${host === '0.0.0.0' ? 'localhost' : host}:${port}`

/** How writes open, as the start-up line says it. */
function writesNote(config: Config, madeDevelopmentToken: boolean, data: Snapshot): string {
  if (config.readOnly) return 'off: read-only'
  if (config.adminToken) return 'on'
  if (config.production)
    return 'need a token: set CLUBS_ADMIN_TOKEN (or CLUBS_ADMIN_TOKEN_FILE, a secret file) and restart, then issue users with POST /api/users/'
  if (madeDevelopmentToken) return 'on: with the development admin token printed below'
  if (data.users.some((user) => user.username === ADMIN_USERNAME && user.token_sha256 !== null))
    return `on: with the development admin token printed at this data file's first start (a new one: stop the server, npm run users:token -- ${ADMIN_USERNAME})`
  return `need a token: set CLUBS_ADMIN_TOKEN, or stop the server and run npm run users:token -- ${ADMIN_USERNAME}`
}

/** The development admin token, shown this once, and how to use it: for a person, so not a log line. */
function developmentTokenNotice(token: string, base: string, inMemory: boolean): string {
  return [
    '',
    `  A development admin token, shown this once (${inMemory ? 'it ends with this process' : 'the data file keeps only its SHA-256'}):`,
    '',
    `    export TOKEN=${token}`,
    '',
    '  Send it as a bearer token, as the examples in the docs do:',
    `    curl -H "Authorization: Bearer $TOKEN" ${base}/api/users/me/`,
    `  It opens the API as "${ADMIN_USERNAME}" while CLUBS_ADMIN_TOKEN is unset and NODE_ENV is not production.`,
    inMemory
      ? '  Each start in memory makes a new one.'
      : `  Lost it? Stop the server and run: npm run users:token -- ${ADMIN_USERNAME}`,
    '',
  ].join('\n')
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
