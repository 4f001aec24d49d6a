import { Elysia } from 'elysia'
import { Catalog } from './clubs/catalog'
import { clubRoutes } from './clubs/routes'
import { ClubService } from './clubs/service'
import type { Config } from './config'
import { LinkService } from './clubs/links'
import { MemberService } from './clubs/members'
import { peopleRoutes } from './clubs/people-routes'
import { Relations } from './clubs/relations'
import { Authenticator } from './http/auth'
import { makeEdge } from './http/edge'
import { errorHandler, type LogFault } from './http/error-handler'
import type { Store } from './store/store'
import type { Snapshot } from './store/snapshot'
import { tagRoutes } from './tags/routes'
import { UserDirectory } from './users/directory'
import { userRoutes } from './users/routes'
import { UserService } from './users/service'

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
  const relations = new Relations({
    memberships: data.memberships ?? [],
    favorites: data.favorites ?? [],
    subscriptions: data.subscriptions ?? [],
  })
  const directory = new UserDirectory(data.users ?? [])
  store.track(() => ({ version: 1, ...catalog.snapshot(), users: directory.all(), ...relations.snapshot() }))

  const persist = () => store.save()
  const clubs = new ClubService(catalog, relations, { persist, autoApprove: config.autoApprove, now })
  const users = new UserService(directory, persist, now)
  const members = new MemberService(clubs, (username) => users.exists(username), persist)
  const favorites = new LinkService(
    clubs,
    { noun: 'favorite', links: relations.favorites, counter: 'favorite_count' },
    persist,
  )
  const subscriptions = new LinkService(
    clubs,
    {
      noun: 'subscription',
      links: relations.subscriptions,
      refuses: (club) => (club.enables_subscription ? null : 'This club does not take subscriptions.'),
    },
    persist,
  )
  const edge = makeEdge(new Authenticator(config.adminToken, directory), config.readOnly)

  return new Elysia()
    .use(errorHandler(logFault))
    .get('/health', () => Response.json({ status: 'ok', clubs: countLive(catalog), version: catalog.version }))
    .use(clubRoutes({ clubs, edge }))
    .use(peopleRoutes({ edge, clubs, members, favorites, subscriptions }))
    .use(tagRoutes(catalog))
    .use(userRoutes(edge, users))
}

function countLive(catalog: Catalog): number {
  let n = 0
  for (const _ of catalog.live()) n++
  return n
}
