import { randomBytes } from 'node:crypto'
import { Catalog } from './catalog'
import { StorageUnavailable } from './errors'
import { SavedClubs } from './saved-clubs'
import { TagService } from './tags'
import { MemberService } from './members'
import { JoinRequestService } from './join-requests'
import { InviteService } from './invites'
import { PendingRequests } from './pending-requests'
import { Relations } from './relations'
import { ClubService } from './clubs'
import { ReviewDesk } from './review'
import { ImportService } from './imports'
import { SNAPSHOT_VERSION, type Snapshot } from '../model/snapshot'
import { History } from './history'
import { UserDirectory } from './user-directory'
import { UserService } from './users'
import { SessionService } from './sessions'
import { InterestService } from './interests'
import { CalendarService } from './calendars'
import { FittingService } from './fitting'
import { LogoService, type LogoStore } from './logos'
import type { Commit } from './journal'
import type { Undo } from './undo'
import { ChangeLog, type LoggedChange, type PublicChange } from './change-log'
import { ANONYMOUS_VIEW, detail } from './represent'
import { WebhookService } from './webhooks'
import { replicaOf, takeChanges, type Replica, type TakenChanges } from './replica'
import type { StoreCommit } from './change-set'
import { RegistrationRounds } from './registration-rounds'

/**
 * Where the directory keeps its state, as the domain sees it: the one interface both stores
 * implement (the data file, PostgreSQL; src/data-file.ts picks one from the config). Told how to
 * capture the state, its change log and its records by collection; asked to commit each write's
 * change set and to run a request's work exclusively. A data file appends each change set to its
 * journal and runs the work as it is (its writes are this process's alone); a store several instances
 * share (docs/reference.md §19) commits each write under its lock, caught up with the others, and
 * runs a whole request's work under it, so that what a write checks first is current when it
 * applies. The domain never asks which it has.
 */
export interface DirectoryStore {
  /** Names how to capture the state, the change log, the records by collection, and how to take what changed since last asked. */
  track(capture: () => Snapshot, changes: ChangeLog, replica: Replica, take: () => TakenChanges): void
  /** Applies a write in memory and resolves once its change set is durable; when it cannot be, it is taken back and refused. */
  readonly commit: StoreCommit
  /** Runs a request's work as one write, ordered with every other writer's. */
  exclusive<T>(work: () => Promise<T>): Promise<T>
}

/** A store that keeps nothing, telling `track` what it would keep: every commit lands at once. */
export const keptInMemory = (track: DirectoryStore['track'] = () => {}): DirectoryStore => ({
  track,
  commit: async (apply) => void apply(),

  exclusive: (work) => work(),
})

/** The change log as the store found it (docs/reference.md §18). */
export interface KeptChanges {
  readonly kept: readonly LoggedChange[]
  /** Every event at or below this number is no longer kept. */
  readonly trimmedUpTo: number
  /** The highest number the log used, when past the data file's (lines of a write that never landed). */
  readonly issued?: number
  /** How many events to keep at least (tests keep few). */
  readonly keep?: number
}

export interface DomainOptions {
  readonly autoApprove: boolean
  readonly now: () => Date
  /** The campus time zone meetings are in (CLUBS_TIMEZONE); UTC when not said. */
  readonly timeZone?: string
  /** The service's secret key (calendar addresses); a new one each time when none is given. */
  readonly key?: Uint8Array
  /** Where club logos are kept; without one, the directory keeps none (operator commands). */
  readonly logos?: LogoStore
  /** The change log's events kept so far; a new log when absent. */
  readonly changes?: KeptChanges
  /** Webhooks to loopback, private and link-local addresses are allowed (CLUBS_WEBHOOK_ALLOW_PRIVATE). */
  readonly webhookAllowPrivate?: boolean
  /** The waits between a failed delivery's attempts; docs/reference.md §18's when not said (tests cannot wait 10 h). */
  readonly webhookRetries?: readonly number[]
  /** Whether this instance sends webhook deliveries (one of several sharing a database does); always when not said. */
  readonly sendsWebhooks?: () => boolean
  /** CLUBS_ADMIN_TOKEN: the site's sessions started with it end when it changes. None when not said. */
  readonly adminToken?: string | null
  /** Whether the bootstrap admin's development token in the data file opens the API; not when not said. */
  readonly developmentAdmin?: boolean
}

/** A store that keeps nothing: for a directory no one reads, where a refused import checks its rows. */
const UNSAVED = keptInMemory()

/**
 * The in-memory state over a loaded snapshot and the services that change it, each saving
 * through `store`. The HTTP app and the operator commands share it.
 */
export function openDirectory(
  store: DirectoryStore,
  data: Snapshot,
  {
    autoApprove,
    now,
    timeZone = 'UTC',
    logos: logoStore,
    key = randomBytes(32),
    changes,
    webhookAllowPrivate = false,
    webhookRetries,
    sendsWebhooks,
    adminToken = null,
    developmentAdmin = false,
  }: DomainOptions,
) {
  const catalog = new Catalog(data.clubs, data.tags)
  const relations = new Relations(data)
  const directory = new UserDirectory(data.users)
  const history = new History(data.history)
  const pendingRequests = new PendingRequests(data.requests, (code) => catalog.get(code) !== undefined)
  catalog.onLiveChange((code) => pendingRequests.liveChanged(code))
  const changeLog = new ChangeLog(changes?.kept ?? [], {
    issued: Math.max(data.changes_seq ?? 0, changes?.issued ?? 0),
    trimmedUpTo: changes?.trimmedUpTo ?? 0,
    keep: changes?.keep,
  })
  /** What the public sees of a club now: its anonymous detail as JSON text, or null. */
  const publicText = (code: string) => {
    const shown = catalog.get(code, 'public')?.record
    return shown?.active ? JSON.stringify(detail(shown, ANONYMOUS_VIEW, catalog)) : null
  }
  // The one path of every write: it is applied in memory, and its change set made: the records it
  // changed, and the events of what the public sees of the clubs it touched (before and after),
  // numbered in the change log. Its events' webhook deliveries are queued with it, so they are
  // durable when it is. The store takes it back when it cannot keep it; once it has, its events
  // are published. A logo it left unreferenced is swept.
  const commit: Commit = async (apply) => {
    // Every event numbered up to here, this write's last, is durable once the write is.
    let landed = 0
    await storeFailing(
      (wrapped) => store.commit(wrapped),
      () => {
        const before = new Map<string, string | null>()
        const undo: Undo[] = catalog.observing(
          (code) => {
            if (!before.has(code)) before.set(code, publicText(code))
          },
          () => [apply()].flat(),
        )
        const changed: PublicChange[] = [...before].map(([code, was]) => ({
          code,
          before: was,
          after: publicText(code),
        }))
        const { events, undo: unrecord } = changeLog.record(changed, now().toISOString())
        landed = changeLog.issued
        undo.push(unrecord, webhooks.enqueue(events))
        const records = takeChanges(replica)
        undo.push(records.refused)
        return { undo, changes: { records: records.records, events } }
      },
    )
    changeLog.publish(landed)
    void logos?.sweep()
  }
  const clubs = new ClubService(catalog, relations, history, { commit, autoApprove, now })
  const users = new UserService(directory, commit, now)
  const sessions = new SessionService(data.sessions ?? [], users, commit, now, key, {
    adminToken,
    developmentAdmin,
  })
  const members = new MemberService(clubs, catalog, relations, users, pendingRequests, commit)
  const requests = new JoinRequestService(clubs, relations, pendingRequests, members, commit, now)
  const invites = new InviteService(data.invites ?? [], clubs, catalog, relations, members, commit, now)
  const favorites = new SavedClubs(
    clubs,
    catalog,
    { noun: 'favorite', links: relations.favorites, counter: 'favorite_count' },
    commit,
    now,
  )
  const subscriptions = new SavedClubs(
    clubs,
    catalog,
    {
      noun: 'subscription',
      links: relations.subscriptions,
      refuses: (club) => (club.enables_subscription ? null : 'This club does not take subscriptions.'),
    },
    commit,
    now,
  )
  const tags = new TagService(catalog, clubs, commit, now)
  const webhooks = new WebhookService(
    data.webhooks ?? [],
    data.webhook_deliveries ?? [],
    data.webhook_events ?? [],
    commit,
    now,
    {
      allowPrivate: webhookAllowPrivate,
      published: () => changeLog.lastSeq,
      retryDelays: webhookRetries,
      sendsHere: sendsWebhooks,
    },
  )
  const interests = new InterestService(
    data.interests ?? [],
    clubs,
    commit,
    now,
    (code) => catalog.get(code) !== undefined,
  )
  const logos = logoStore ? new LogoService(clubs, catalog, logoStore) : null
  const rounds = new RegistrationRounds(
    data.registration_rounds ?? [],
    data.registration_confirmations ?? [],
    clubs,
    catalog,
    history,
    { commit, now, timeZone },
  )
  const replica = replicaOf({
    catalog,
    users: directory,
    relations,
    history,
    requests: pendingRequests,
    sessions,
    webhooks,
    interests,
    invites,
    rounds,
  })
  store.track(
    () => ({
      version: SNAPSHOT_VERSION,
      ...catalog.snapshot(),
      users: directory.all(),
      ...relations.snapshot(),
      history: history.snapshot(),
      requests: pendingRequests.snapshot(),
      sessions: sessions.snapshot(),
      ...webhooks.snapshot(),
      interests: interests.snapshot(),
      invites: invites.snapshot(),
      ...rounds.snapshot(),
      changes_seq: changeLog.issued,
    }),
    changeLog,
    replica,
    () => takeChanges(replica),
  )
  return {
    clubs,
    users,
    members,
    requests,
    invites,
    favorites,
    subscriptions,
    tags,
    imports: new ImportService(clubs, tags, commit, (): ImportService => {
      // What an import's rows are checked against, and nothing else: no history, requests or webhooks.
      const copy: Snapshot = {
        version: SNAPSHOT_VERSION,
        ...catalog.snapshot(),
        users: directory.all(),
        ...relations.snapshot(),
        history: [],
        requests: [],
      }
      return openDirectory(UNSAVED, copy, { autoApprove, now }).imports
    }),
    review: new ReviewDesk(clubs, relations),
    sessions,
    interests,
    calendars: new CalendarService(clubs, relations.favorites, users, { timeZone, key, commit, now }),
    fitting: new FittingService(clubs, { timeZone, now }),
    logos,
    rounds,
    changes: changeLog,
    webhooks,
    health: () => ({ clubs: catalog.countLive(), version: catalog.version }),
    /** Runs a request's work as one write, ordered with every other instance's (the work itself where writes are this process's alone). */
    exclusive: <T>(work: () => Promise<T>): Promise<T> => storeFailing((wrapped) => store.exclusive(wrapped), work),
  }
}

/**
 * Runs `body` inside the store's `run` (its journal, or its lock and transaction): what `body`
 * throws (a refused write) passes through as it is; anything the store throws is storage unavailable (503).
 */
async function storeFailing<B extends () => unknown, R>(run: (wrapped: B) => Promise<R>, body: B): Promise<R> {
  const ours: { error?: unknown } = {}
  const wrapped = (() => {
    try {
      const out = body()
      return out instanceof Promise ? out.catch((error) => Promise.reject((ours.error = error))) : out
    } catch (error) {
      throw (ours.error = error)
    }
  }) as B
  try {
    return await run(wrapped)
  } catch (error) {
    if ('error' in ours && error === ours.error) throw error
    throw new StorageUnavailable()
  }
}
