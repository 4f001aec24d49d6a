import { Elysia } from 'elysia'
import type { Config } from './config'
import type { DataFile } from './data-file'
import { ANONYMOUS } from './domain/caller'
import { openDirectory, type KeptChanges } from './domain/directory'
import type { LogoStore } from './domain/logos'
import type { Snapshot } from './model/snapshot'
import { AnswerCaches } from './edge/answer-cache'
import { ChangeStreams } from './edge/change-streams'
import { Authenticator } from './edge/auth'
import { browsableAssets } from './edge/browsable/assets'
import { docsRoutes } from './edge/docs/routes'
import { makeEdge } from './edge/edge'
import type { CampusSignIn } from './edge/oidc'
import { mount } from './edge/endpoint'
import { ENDPOINTS } from './edge/endpoints'
import { operations } from './edge/endpoints/operations'
import { rootRedirect } from './edge/endpoints/root'
import type { Metrics } from './edge/metrics'
import { errorHandler, type LogFault } from './edge/error-handler'
import { rateLimit } from './edge/rate-limit'
import { CampusFlow } from './site/campus-flow'
import { siteRoutes } from './site/site'
import { dispatchWebhooks } from './edge/webhook-dispatch'
import { sweepInterests } from './edge/interest-sweep'
import { WebhookSender } from './edge/webhook-sender'
import { SANDBOX_ENDPOINTS, type SandboxControls } from './edge/sandbox'

/** The site as it is when the config does not say (tests that build the app without one). */
const DEFAULT_SITE = { title: 'Club Directory' }

export interface AppDeps {
  readonly store: DataFile
  readonly data: Snapshot
  /** The change log the store found beside the data; a new one when absent. */
  readonly changes?: KeptChanges
  /** Where club logos are kept (files beside the data file, or memory). */
  readonly logos: LogoStore
  /** The service's secret key, kept apart from the data file (calendar addresses); a new one when absent. */
  readonly key?: Uint8Array
  readonly config: Pick<Config, 'adminToken' | 'autoApprove' | 'readOnly'> &
    Partial<Pick<Config, 'rateLimit' | 'site' | 'timezone' | 'maxStreams' | 'webhookAllowPrivate'>>
  readonly now?: () => Date
  readonly logFault?: LogFault
  /** The release, as the API docs name it. */
  readonly version?: string
  /** Prometheus metrics, when they are on (CLUBS_METRICS), with the token /metrics asks for. */
  readonly metrics?: { readonly registry: Metrics; readonly token: string | null } | null
  /** True once a shutdown has begun: /readyz answers 503 while the service drains. */
  readonly stopping?: () => boolean
  /** Campus sign-in (CLUBS_OIDC_*): its JWTs authenticate beside the service's own tokens. */
  readonly campus?: CampusSignIn | null
  /** The waits between a failed webhook delivery's attempts; docs/reference.md §18's schedule when absent. */
  readonly webhookRetries?: readonly number[]
  /** Whether the bootstrap admin's development token in the data file opens the API (outside production, no CLUBS_ADMIN_TOKEN). */
  readonly developmentAdmin?: boolean
  /** The sandbox for prototyping (docs/reference.md §25), when CLUBS_SANDBOX is on: its endpoints are mounted. */
  readonly sandbox?: SandboxControls | null
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
  changes,
  logos,
  key,
  config,
  now = () => new Date(),
  logFault = logToStderr,
  version = 'dev',
  metrics = null,
  stopping = () => false,
  campus = null,
  developmentAdmin = false,
  webhookRetries,
  sandbox = null,
}: AppDeps) {
  const allowPrivate = config.webhookAllowPrivate ?? false
  const directory = openDirectory(store, data, {
    autoApprove: config.autoApprove,
    now,
    timeZone: config.timezone,
    logos,
    key,
    changes,
    webhookAllowPrivate: allowPrivate,
    webhookRetries,
    sendsWebhooks: () => store.sendsWebhooks,
    adminToken: config.adminToken,
    developmentAdmin,
  })
  // What an earlier run left unreferenced (an operator command changed clubs, a crash mid-sweep) goes now.
  if (!config.readOnly) void directory.logos?.sweep()
  // Deliveries left pending by an earlier run are attempted again from now on.
  if (!config.readOnly) {
    dispatchWebhooks(directory.webhooks, directory.changes, (settled) => new WebhookSender(allowPrivate, settled))
  }
  // Interested students' entries a year old go now and every hour (docs/reference.md §23); the app's stop ends the timer.
  const stopSweeping = config.readOnly ? () => {} : sweepInterests(directory.interests)
  const { clubs } = directory
  const answers = new AnswerCaches(
    (record) => clubs.detail(ANONYMOUS, record),
    (record) => clubs.listItem(ANONYMOUS, record),
  )
  metrics?.registry.countClubsWith(() => clubs.countByState())
  const auth = new Authenticator({
    adminToken: config.adminToken,
    developmentAdmin,
    users: directory.users,
    campus,
    recordsNewUsers: !config.readOnly,
  })
  const edge = makeEdge(auth, config.readOnly, logFault)

  return new Elysia()
    .onStop(stopSweeping)
    .use(errorHandler(logFault))
    .use(
      config.rateLimit ? rateLimit(config.rateLimit, (authorization) => auth.tokenHolder(authorization)) : new Elysia(),
    )
    .use(
      operations({
        health: directory.health,
        notReady: () => (stopping() ? 'shutting down' : store.writeProblem),
        metrics: metrics?.registry ?? null,
        metricsToken: metrics?.token ?? null,
      }),
    )
    .use(
      config.site === null
        ? rootRedirect
        : siteRoutes({
            clubs,
            tags: directory.tags,
            favorites: directory.favorites,
            subscriptions: directory.subscriptions,
            members: directory.members,
            logos: directory.logos,
            requests: directory.requests,
            interests: directory.interests,
            invites: directory.invites,
            review: directory.review,
            rounds: directory.rounds,
            calendars: directory.calendars,
            changes: directory.changes,
            fitting: directory.fitting,
            sessions: directory.sessions,
            users: directory.users,
            authenticate: (token) => auth.authenticate(`Bearer ${token}`),
            title: (config.site ?? DEFAULT_SITE).title,
            timeZone: config.timezone ?? 'UTC',
            exclusive: directory.exclusive,
            now,
            campus:
              campus &&
              new CampusFlow(campus, {
                record: (identity) => auth.campusCaller(identity),
                now: () => now().getTime(),
              }),
          }),
    )
    .use(
      mount(
        sandbox ? [...ENDPOINTS, ...SANDBOX_ENDPOINTS] : ENDPOINTS,
        {
          ...directory,
          answers,
          streams: new ChangeStreams(directory.changes, stopping, config.maxStreams),
          ...(sandbox && { sandbox }),
        },
        edge,
      ),
    )
    .use(docsRoutes(version, sandbox !== null))
    .use(browsableAssets())
}
