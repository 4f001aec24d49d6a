import { randomBytes } from 'node:crypto'
import { Catalog } from './catalog'
import { Journal } from './journal'
import { SavedClubs } from './saved-clubs'
import { TagService } from './tags'
import { MemberService } from './members'
import { JoinRequestService } from './join-requests'
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
import { CalendarService } from './calendars'
import { LogoService, type LogoStore } from './logos'
import type { Commit } from './journal'

/** Where the directory keeps its state: told how to capture it, asked to save it. */
export interface Persistence {
  track(capture: () => Snapshot): void
  save(): Promise<void>
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
}

/**
 * The in-memory state over a loaded snapshot and the services that change it, each saving
 * through `store`. The HTTP app and the operator commands share it.
 */
export function openDirectory(
  store: Persistence,
  data: Snapshot,
  { autoApprove, now, timeZone = 'UTC', logos: logoStore, key = randomBytes(32) }: DomainOptions,
) {
  const catalog = new Catalog(data.clubs, data.tags)
  const relations = new Relations(data)
  const directory = new UserDirectory(data.users)
  const history = new History(data.history)
  const pendingRequests = new PendingRequests(data.requests, (code) => catalog.get(code) !== undefined)
  store.track(() => ({
    version: SNAPSHOT_VERSION,
    ...catalog.snapshot(),
    users: directory.all(),
    ...relations.snapshot(),
    history: history.snapshot(),
    requests: pendingRequests.snapshot(),
    sessions: sessions.snapshot(),
  }))

  const journal = new Journal(() => store.save())
  // Any change may leave a logo unreferenced (a new one, an approval, an import): each is followed by a sweep.
  const commit: Commit = async (apply) => {
    await journal.commit(apply)
    void logos?.sweep()
  }
  const clubs = new ClubService(catalog, relations, history, { commit, autoApprove, now })
  const users = new UserService(directory, commit, now)
  const sessions = new SessionService(data.sessions ?? [], users, commit, now)
  const members = new MemberService(clubs, catalog, relations, users, pendingRequests, commit)
  const requests = new JoinRequestService(clubs, relations, pendingRequests, members, commit, now)
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
  const logos = logoStore ? new LogoService(clubs, catalog, logoStore) : null
  return {
    clubs,
    users,
    members,
    requests,
    favorites,
    subscriptions,
    tags,
    imports: new ImportService(clubs, tags, commit),
    review: new ReviewDesk(clubs, relations),
    sessions,
    calendars: new CalendarService(clubs, relations.favorites, users, { timeZone, key, commit, now }),
    logos,
    health: () => ({ clubs: catalog.countLive(), version: catalog.version }),
  }
}
