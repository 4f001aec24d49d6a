import { Elysia } from 'elysia'
import { Catalog } from './clubs/catalog'
import { clubRoutes } from './clubs/routes'
import { ClubService } from './clubs/service'
import type { Config } from './config'
import { Authenticator } from './http/auth'
import { errorHandler, type LogFault } from './http/error-handler'
import type { Store } from './store/store'
import type { Snapshot } from './store/snapshot'
import { tagRoutes } from './tags/routes'

export interface AppDeps {
  readonly store: Store
  readonly data: Snapshot
  readonly config: Pick<Config, 'adminToken' | 'autoApprove' | 'readOnly'>
  readonly now?: () => Date
  readonly logFault?: LogFault
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
export function createApp({ store, data, config, now = () => new Date(), logFault = logToStderr }: AppDeps) {
  const catalog = new Catalog(data.clubs, data.tags)
  store.track(() => ({ version: 1, ...catalog.snapshot() }))
  const clubs = new ClubService(catalog, { persist: () => store.save(), autoApprove: config.autoApprove, now })
  const auth = new Authenticator(config.adminToken)

  return new Elysia()
    .use(errorHandler(logFault))
    .get('/health', () => Response.json({ status: 'ok', clubs: countLive(catalog), version: catalog.version }))
    .use(clubRoutes({ clubs, auth, readOnly: config.readOnly }))
    .use(tagRoutes(catalog))
}

function countLive(catalog: Catalog): number {
  let n = 0
  for (const _ of catalog.live()) n++
  return n
}
