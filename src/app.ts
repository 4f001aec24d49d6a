import { Elysia } from 'elysia'
import { clubRoutes } from './clubs/routes'
import type { Config } from './config'
import { peopleRoutes } from './clubs/people-routes'
import { Authenticator } from './http/auth'
import { makeEdge } from './http/edge'
import { errorHandler, type LogFault } from './http/error-handler'
import { rateLimit } from './http/rate-limit'
import { NOSNIFF } from './http/respond'
import type { Catalog } from './clubs/catalog'
import { browsableAssets } from './browsable/routes'
import { openDomain } from './domain'
import { OPERATIONS } from './docs/operations'
import { docsRoutes } from './docs/routes'
import pkg from '../package.json'
import type { Snapshot } from './store/snapshot'
import type { Store } from './store/store'
import { tagRoutes } from './tags/routes'
import { userRoutes } from './users/routes'

export interface AppDeps {
  readonly store: Store
  readonly data: Snapshot
  readonly config: Pick<Config, 'adminToken' | 'autoApprove' | 'readOnly'> & Partial<Pick<Config, 'rateLimit'>>
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
  const { catalog, directory, clubs, users, members, favorites, subscriptions } = openDomain(store, data, {
    autoApprove: config.autoApprove,
    now,
  })
  const edge = makeEdge(new Authenticator(config.adminToken, directory), config.readOnly)

  return new Elysia()
    .use(errorHandler(logFault))
    .use(config.rateLimit ? rateLimit(config.rateLimit) : new Elysia())
    .get(
      '/health',
      () => Response.json({ status: 'ok', clubs: countLive(catalog), version: catalog.version }, { headers: NOSNIFF }),
      {
        detail: OPERATIONS.health,
      },
    )
    .use(clubRoutes({ clubs, edge }))
    .use(peopleRoutes({ edge, clubs, members, favorites, subscriptions }))
    .use(tagRoutes(catalog, edge))
    .use(userRoutes(edge, users))
    .use(docsRoutes(pkg.version))
    .use(browsableAssets())
}

function countLive(catalog: Catalog): number {
  let n = 0
  for (const _ of catalog.live()) n++
  return n
}
