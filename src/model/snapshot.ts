import { t } from 'elysia'
import { Type } from '@sinclair/typebox'
import { ClubRecord, Tag } from './club'
import { HistoryRecord } from './history'
import { InterestRecord } from './interest'
import { InviteRecord } from './invite'
import { JoinRequestRecord } from './join-request'
import { ConfirmationRecord, RoundRecord } from './registration-round'
import { SessionRecord } from './session'
import { ClubLink, Membership, UserRecord } from './user'
import { DeliveryRecord, WebhookEventRecord, WebhookRecord } from './webhook'

/** The version of the data file format this release writes. */
export const SNAPSHOT_VERSION = 2

/** The whole state as the data file (and the seed) holds it. */
export const Snapshot = t.Object({
  version: t.Literal(SNAPSHOT_VERSION),
  tags: t.Array(Tag),
  clubs: t.Array(ClubRecord),
  users: t.Array(UserRecord),
  memberships: t.Array(Membership),
  favorites: t.Array(ClubLink),
  subscriptions: t.Array(ClubLink),
  history: t.Array(HistoryRecord),
  /** Pending join requests (docs/reference.md §12), oldest first. */
  requests: t.Array(JoinRequestRecord),
  /** The site's sessions (docs/reference.md §20); a file from before the site has none. */
  sessions: t.Optional(t.Array(SessionRecord)),
  /** Webhooks (docs/reference.md §18) and their deliveries: pending ones with their events; a file from before them has none. */
  webhooks: t.Optional(t.Array(WebhookRecord)),
  webhook_deliveries: t.Optional(t.Array(DeliveryRecord)),
  webhook_events: t.Optional(t.Array(WebhookEventRecord)),
  /** Students interested in a club without an account (docs/reference.md §23); a file from before them has none. */
  interests: t.Optional(t.Array(InterestRecord)),
  /** Clubs' invite links (docs/reference.md §23), their tokens' SHA-256 only; a file from before them has none. */
  invites: t.Optional(t.Array(InviteRecord)),
  /** Re-registration rounds (docs/reference.md §23), oldest first, and the clubs confirmed in each; a file from before them has none. */
  registration_rounds: t.Optional(t.Array(RoundRecord)),
  registration_confirmations: t.Optional(t.Array(ConfirmationRecord)),
  /** The highest change number handed out (docs/reference.md §18), so that none is used twice; a file from before the log has none. */
  changes_seq: t.Optional(Type.Integer({ minimum: 0 })),
})
export type Snapshot = typeof Snapshot.static

/**
 * A club as a data file holds it: a file from before meetings (docs/reference.md §21) has none, read as [];
 * one from before re-registration (docs/reference.md §23) no `last_confirmed_on`, read as null.
 */
const StoredClub = t.Object({
  ...ClubRecord.properties,
  meetings: t.Optional(ClubRecord.properties.meetings),
  last_confirmed_on: t.Optional(ClubRecord.properties.last_confirmed_on),
})

/** The current format as a file of it may hold it: clubs from before meetings or re-registration among them. */
export const StoredCurrent = t.Object({ ...Snapshot.properties, clubs: t.Array(StoredClub) })
export type StoredCurrent = typeof StoredCurrent.static

/** Lists a version 1 file from before users existed may lack; they read as empty. */
const Later = <T extends ReturnType<typeof t.Array>>(list: T) => t.Optional(list)

/** Version 1: before approved versions and approval history (releases up to 0.1). */
export const SnapshotV1 = t.Object({
  version: t.Literal(1),
  tags: t.Array(Tag),
  clubs: t.Array(t.Omit(StoredClub, ['approved_version'])),
  users: Later(t.Array(UserRecord)),
  memberships: Later(t.Array(Membership)),
  favorites: Later(t.Array(ClubLink)),
  subscriptions: Later(t.Array(ClubLink)),
})
export type SnapshotV1 = typeof SnapshotV1.static

/** Any data file this release can load. */
export const StoredSnapshot = t.Union([StoredCurrent, SnapshotV1])
export type StoredSnapshot = typeof StoredSnapshot.static
