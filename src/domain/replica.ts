import type { ClubRecord, Tag } from '../model/club'
import type { HistoryRecord } from '../model/history'
import type { InterestRecord } from '../model/interest'
import type { InviteRecord } from '../model/invite'
import type { JoinRequestRecord } from '../model/join-request'
import type { ConfirmationRecord, RoundRecord } from '../model/registration-round'
import type { SessionRecord } from '../model/session'
import type { ClubLink, Membership, UserRecord } from '../model/user'
import type { DeliveryRecord, WebhookEventRecord, WebhookRecord } from '../model/webhook'
import type { Catalog } from './catalog'
import type { History } from './history'
import type { InterestService } from './interests'
import type { InviteService } from './invites'
import type { PendingRequests } from './pending-requests'
import type { RegistrationRounds } from './registration-rounds'
import type { LinkSet, Relations } from './relations'
import type { SessionService } from './sessions'
import type { UserDirectory } from './user-directory'
import type { WebhookService } from './webhooks'
import { pair, touchedIn, type Changed, type RecordChange } from './change-set'

/**
 * One kind of record of the snapshot: what names a record among its kind, which records changed
 * since last asked, and how one changed elsewhere is put in place.
 */
interface Collection<R> {
  /** The record's key, unique in its collection and the same on every instance. */
  key(record: R): string
  /** Puts the record another instance committed under `key` (null: it is gone). */
  put(key: string, record: R | null): void
  readonly changed: Changed
}

/**
 * The snapshot's records by collection, as a store shared by several instances (docs/reference.md §19)
 * writes them one by one and hands those another instance committed back.
 */
export type Replica = { readonly [collection: string]: Collection<object> }

const split = (key: string) => key.split('\n') as [string, string]

/**
 * Each collection's key of a record, where the record alone names it (history's is its place among
 * its club's events: historyKeys).
 */
const KEYS = {
  tags: (tag: Tag) => String(tag.id),
  clubs: (club: ClubRecord) => club.code,
  users: (user: UserRecord) => user.username,
  memberships: (seat: Membership) => pair(seat.club, seat.username),
  favorites: (link: ClubLink) => pair(link.club, link.username),
  subscriptions: (link: ClubLink) => pair(link.club, link.username),
  requests: (request: JoinRequestRecord) => pair(request.club, request.username),
  sessions: (session: SessionRecord) => session.id_sha256,
  webhooks: (hook: WebhookRecord) => String(hook.id),
  webhook_deliveries: (delivery: DeliveryRecord) => pair(delivery.webhook, delivery.seq),
  webhook_events: (event: WebhookEventRecord) => String(event.seq),
  interests: (entry: InterestRecord) => entry.id,
  invites: (invite: InviteRecord) => invite.id,
  registration_rounds: (round: RoundRecord) => String(round.id),
  registration_confirmations: (confirmation: ConfirmationRecord) => pair(confirmation.round, confirmation.club),
} satisfies { [collection: string]: (record: never) => string }

/** History records' keys, in a snapshot's order: each club's events numbered from 0. */
function historyKeys(records: readonly HistoryRecord[]): string[] {
  const seen = new Map<string, number>()
  return records.map((record) => {
    const index = seen.get(record.club) ?? 0
    seen.set(record.club, index + 1)
    return pair(record.club, index)
  })
}

/**
 * The keys of a collection's records as a snapshot lists them, the same as replicaOf's: for a
 * store that writes a whole snapshot at once (a first start, a copy).
 */
export function recordKeys(collection: string, records: readonly object[]): string[] {
  if (collection === 'history') return historyKeys(records as HistoryRecord[])
  const key = (KEYS as Record<string, ((record: object) => string) | undefined>)[collection]
  if (!key) throw new Error(`no key for the records of "${collection}"`)
  return records.map(key)
}

function links(set: LinkSet, key: (link: ClubLink) => string): Collection<ClubLink> {
  return {
    key,
    changed: touchedIn(set.touched, (key) => {
      const [club, username] = split(key)
      return set.linkOf(username, club)
    }),
    put(key, link) {
      const [club, username] = split(key)
      if (link) set.add(username, club, link.created_at)
      else set.delete(username, club)
    },
  }
}

/** The collections of a directory's snapshot, over the services that keep them in memory. */
export function replicaOf(parts: {
  catalog: Catalog
  users: UserDirectory
  relations: Relations
  history: History
  requests: PendingRequests
  sessions: SessionService
  webhooks: WebhookService
  interests: InterestService
  invites: InviteService
  rounds: RegistrationRounds
}): Replica {
  const { catalog, users, relations, history, requests, sessions, webhooks, interests, invites, rounds } = parts
  const collections: { [name: string]: Collection<object> } = {
    tags: {
      key: KEYS.tags,
      changed: touchedIn(catalog.touchedTags, (id) => catalog.tag(Number(id)) ?? null),
      // A rename reaches its clubs' search text; their records come as clubs of the same change.
      put: (key, tag: Tag | null) => void catalog.changeTag(Number(key), tag, (record) => record),
    } satisfies Collection<Tag>,
    clubs: {
      key: KEYS.clubs,
      changed: touchedIn(catalog.touched, (code) => catalog.stored(code) ?? null),
      put: (key, club: ClubRecord | null) => (club ? void catalog.put(club) : catalog.remove(key)),
    } satisfies Collection<ClubRecord>,
    users: {
      key: KEYS.users,
      changed: touchedIn(users.touched, (username) => users.get(username) ?? null),
      put: (key, user: UserRecord | null) => (user ? users.put(user) : users.remove(key)),
    } satisfies Collection<UserRecord>,
    memberships: {
      key: KEYS.memberships,
      changed: touchedIn(relations.touchedSeats, (key) => {
        const [club, username] = split(key)
        return relations.seatOf(username, club) ?? null
      }),
      put(key, seat: Membership | null) {
        const [club, username] = split(key)
        relations.change(club, username, seat?.role ?? null, {
          title: seat?.title ?? '',
          public: seat?.public ?? false,
        })
      },
    } satisfies Collection<Membership>,
    favorites: links(relations.favorites, KEYS.favorites),
    subscriptions: links(relations.subscriptions, KEYS.subscriptions),
    history: {
      key: (record: HistoryRecord) => pair(record.club, history.position(record)),
      changed: touchedIn(history.touched, (key) => {
        const [club, index] = split(key)
        return history.at(club, Number(index))
      }),
      put(key, record: HistoryRecord | null) {
        const [club, index] = split(key)
        history.put(club, Number(index), record)
      },
    } satisfies Collection<HistoryRecord>,
    requests: {
      key: KEYS.requests,
      changed: touchedIn(requests.touched, (key) => {
        const [club, username] = split(key)
        return requests.get(club, username) ?? null
      }),
      put(key, request: JoinRequestRecord | null) {
        const [club, username] = split(key)
        requests.put(club, username, request)
      },
    } satisfies Collection<JoinRequestRecord>,
    sessions: {
      key: KEYS.sessions,
      changed: touchedIn(sessions.touched, (idHash) => sessions.stored(idHash)),
      put: (key, session: SessionRecord | null) => sessions.put(key, session),
    } satisfies Collection<SessionRecord>,
    webhooks: {
      key: KEYS.webhooks,
      changed: touchedIn(webhooks.touched.webhooks, (id) => webhooks.hookOnDisk(Number(id))),
      put: (key, hook: WebhookRecord | null) => webhooks.putHook(Number(key), hook),
    } satisfies Collection<WebhookRecord>,
    webhook_deliveries: {
      key: KEYS.webhook_deliveries,
      changed: touchedIn(webhooks.touched.deliveries, (key) => {
        const [webhook, seq] = split(key)
        return webhooks.deliveryOnDisk(Number(webhook), Number(seq))
      }),
      put(key, delivery: DeliveryRecord | null) {
        const [webhook, seq] = split(key)
        webhooks.putDelivery(Number(webhook), Number(seq), delivery)
      },
    } satisfies Collection<DeliveryRecord>,
    webhook_events: {
      key: KEYS.webhook_events,
      changed: touchedIn(webhooks.touched.events, (seq) => webhooks.eventOnDisk(Number(seq))),
      put: (key, event: WebhookEventRecord | null) => webhooks.putEvent(Number(key), event),
    } satisfies Collection<WebhookEventRecord>,
    interests: {
      key: KEYS.interests,
      changed: touchedIn(interests.touched, (id) => interests.stored(id)),
      put: (key, entry: InterestRecord | null) => interests.put(key, entry),
    } satisfies Collection<InterestRecord>,
    invites: {
      key: KEYS.invites,
      changed: touchedIn(invites.touched, (id) => invites.stored(id)),
      put: (key, invite: InviteRecord | null) => invites.put(key, invite),
    } satisfies Collection<InviteRecord>,
    registration_rounds: {
      key: KEYS.registration_rounds,
      changed: touchedIn(rounds.touched.rounds, (id) => rounds.round(Number(id))),
      put: (key, round: RoundRecord | null) => rounds.putRound(Number(key), round),
    } satisfies Collection<RoundRecord>,
    registration_confirmations: {
      key: KEYS.registration_confirmations,
      changed: touchedIn(rounds.touched.confirmations, (key) => {
        const [round, club] = split(key)
        return rounds.confirmation(Number(round), club)
      }),
      put(key, confirmation: ConfirmationRecord | null) {
        const [round, club] = split(key)
        rounds.putConfirmation(Number(round), club, confirmation)
      },
    } satisfies Collection<ConfirmationRecord>,
  }
  return collections
}

/** Records changed in memory, and how to carry them with the next write when the one that took them is refused. */
export interface TakenChanges {
  readonly records: RecordChange[]
  refused(): void
}

/**
 * Every record changed since last asked, collection by collection in the replica's order (tags
 * before the clubs naming them), and how to carry them with the next write when the one that took
 * them is refused.
 */
export function takeChanges(replica: Replica): TakenChanges {
  const records: RecordChange[] = []
  const taken = Object.entries(replica).map(([collection, { changed }]) => {
    const now = changed()
    for (const [key, record] of now.changed) records.push([collection, key, record])
    return now
  })
  return { records, refused: () => taken.forEach((now) => now.refused()) }
}
