import { Elysia } from 'elysia'
import type { Config } from './config'
import type { DataFile } from './data-file'
import { ANONYMOUS } from './domain/caller'
import { openDirectory } from './domain/directory'
import type { Snapshot } from './model/snapshot'
import { AnswerCaches } from './edge/answer-cache'
import { Authenticator } from './edge/auth'
import { browsableAssets } from './edge/browsable/assets'
import { docsRoutes } from './edge/docs/routes'
import { makeEdge } from './edge/edge'
import { mount } from './edge/endpoint'
import { ENDPOINTS } from './edge/endpoints'
import { health } from './edge/endpoints/health'
import { errorHandler, type LogFault } from './edge/error-handler'
import { rateLimit } from './edge/rate-limit'

export interface AppDeps {
  readonly store: DataFile
  readonly data: Snapshot
  readonly config: Pick<Config, 'adminToken' | 'autoApprove' | 'readOnly'> & Partial<Pick<Config, 'rateLimit'>>
  readonly now?: () => Date
  readonly logFault?: LogFault
  /** The release, as the API docs name it. */
  readonly version?: string
}

const logToStderr: LogFault = (error, request) =>
  console.error(
    JSON.stringify({
      level: 'error',
      msg: 'unexpected fault',
      method: request.method,
      url: request.url,
      error: String(error),
    }),
  )

/** The whole service over one store; tests build it over a temp file or in memory. */
export function createApp({
  store,
  data,
  config,
  now = () => new Date(),
  logFault = logToStderr,
  version = 'dev',
}: AppDeps) {
  const directory = openDirectory(store, data, { autoApprove: config.autoApprove, now })
  const { clubs } = directory
  const answers = new AnswerCaches(
    (record) => clubs.detail(ANONYMOUS, record),
    (record) => clubs.listItem(ANONYMOUS, record),
  )
  const edge = makeEdge(new Authenticator(config.adminToken, directory.userDirectory), config.readOnly)

  return new Elysia()
    .use(errorHandler(logFault))
    .use(config.rateLimit ? rateLimit(config.rateLimit) : new Elysia())
    .use(health(directory))
    .use(mount(ENDPOINTS, { ...directory, answers }, edge))
    .use(docsRoutes(version))
    .use(browsableAssets())
}
