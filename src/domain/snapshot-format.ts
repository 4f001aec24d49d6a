import { TypeCompiler } from '@sinclair/typebox/compiler'
import type { ApprovedVersion, ClubRecord } from '../model/club'
import type { JoinRequestRecord } from '../model/join-request'
import { SNAPSHOT_VERSION, SnapshotV1, StoredCurrent, StoredSnapshot, type Snapshot } from '../model/snapshot'

// Compiled once: checking 10,000 clubs this way takes a few milliseconds, not a few hundred.
const SnapshotCheck = TypeCompiler.Compile(StoredSnapshot)
/** Each format on its own, to say what is wrong with a file in the format it names: compiled only for a file that is not right. */
const formatCheck = (version: 1 | typeof SNAPSHOT_VERSION) =>
  TypeCompiler.Compile(version === 1 ? SnapshotV1 : StoredCurrent)

/** Why `data` is not a snapshot of a version this release loads, or null when it is one. */
export function snapshotProblem(data: unknown): string | null {
  if (!SnapshotCheck.Check(data)) {
    if (typeof data !== 'object' || data === null || Array.isArray(data))
      return `/: an object is expected, not ${Array.isArray(data) ? 'a list' : data === null ? 'null' : typeof data}`
    const version = (data as { version?: unknown }).version
    if (typeof version === 'number' && version > SNAPSHOT_VERSION)
      return `/version: ${version} is newer than this release reads (${SNAPSHOT_VERSION}); restore the backup made before the upgrade, or run the newer release`
    if (version !== 1 && version !== SNAPSHOT_VERSION)
      return `/version: ${JSON.stringify(version) ?? 'missing'}; a data file names its format (1 to ${SNAPSHOT_VERSION})`
    const error = formatCheck(version).Errors(data).First()
    return `${error?.path || '/'}: ${error?.message ?? 'not a snapshot'}`
  }
  const snapshot = data as StoredSnapshot
  const codes = new Set<string>()
  for (const club of snapshot.clubs) {
    if (codes.has(club.code)) return `/clubs: the code "${club.code}" appears twice`
    codes.add(club.code)
  }
  const tagIds = new Set(snapshot.tags.map((tag) => tag.id))
  if (tagIds.size !== snapshot.tags.length) return '/tags: a tag id appears twice'
  const orphan = snapshot.clubs.find((club) => club.tags.some((id) => !tagIds.has(id)))
  if (orphan) return `/clubs: "${orphan.code}" names a tag that does not exist`
  if (!('requests' in snapshot)) return null
  return requestsProblem(snapshot.requests, codes) ?? webhooksProblem(snapshot) ?? invitesProblem(snapshot)
}

/** Why the invite links cannot be told apart, or null: each has an id and a token of its own (docs/reference.md §23). */
function invitesProblem({ invites = [] }: StoredCurrent): string | null {
  if (new Set(invites.map((invite) => invite.id)).size !== invites.length) return '/invites: an invite id appears twice'
  if (new Set(invites.map((invite) => invite.token_sha256)).size !== invites.length)
    return '/invites: an invite token appears twice'
  return null
}

/** Why the webhook deliveries do not fit the webhooks, or null: each names one, once, and a pending one carries its event. */
function webhooksProblem({
  webhooks = [],
  webhook_deliveries = [],
  webhook_events = [],
}: StoredCurrent): string | null {
  const ids = new Set(webhooks.map((hook) => hook.id))
  if (ids.size !== webhooks.length) return '/webhooks: a webhook id appears twice'
  const stray = webhook_deliveries.find((delivery) => !ids.has(delivery.webhook))
  if (stray) return `/webhook_deliveries: a delivery names the webhook ${stray.webhook}, which does not exist`
  const bodies = new Set(webhook_events.map((event) => event.seq))
  const bare = webhook_deliveries.find((delivery) => delivery.status === 'pending' && !bodies.has(delivery.seq))
  if (bare) return `/webhook_deliveries: the pending delivery of event ${bare.seq} has no body in /webhook_events`
  const recorded = new Set(webhook_deliveries.map((delivery) => `${delivery.webhook} ${delivery.seq}`))
  for (const { seq, nonce, waiting = [] } of webhook_events) {
    if (waiting.length && nonce === undefined)
      return `/webhook_events: event ${seq} waits for webhooks but has no nonce`
    const unknown = waiting.find((webhook) => !ids.has(webhook))
    if (unknown) return `/webhook_events: event ${seq} waits for the webhook ${unknown}, which does not exist`
    const twice = waiting.find((webhook) => recorded.has(`${webhook} ${seq}`))
    if (twice) return `/webhook_events: event ${seq} waits for the webhook ${twice}, which has a delivery of it`
  }
  return null
}

/** Why the join requests do not fit the clubs, or null: each names a club, and no one asks one club twice. */
function requestsProblem(requests: readonly JoinRequestRecord[], codes: ReadonlySet<string>): string | null {
  const pairs = new Set<string>()
  for (const { club, username } of requests) {
    if (!codes.has(club)) return `/requests: a request names the club "${club}", which does not exist`
    const pair = `${club} ${username}`
    if (pairs.has(pair)) return `/requests: "${username}" asks to join "${club}" twice`
    pairs.add(pair)
  }
  return null
}

/** A club's reviewed fields as they stand, with its approval decision: its approved version, once it is approved. */
export function versionOf(club: Omit<ClubRecord, 'approved_version'>): ApprovedVersion {
  const { name, subtitle, description, image_url, approved_by, approved_on, approved_comment } = club
  return { name, subtitle, description, image_url, approved_by, approved_on, approved_comment }
}

/** The fields a club of an older file of this format may lack: meetings (docs/reference.md §21), re-registration (docs/reference.md §23). */
type Later = Pick<ClubRecord, 'meetings' | 'last_confirmed_on'>

/** A club from a file of before meetings meets never, and one from before re-registration was never confirmed; the others are taken as they are. */
const withLaterFields = <C extends Partial<Later>>(club: C): C & Later =>
  club.meetings && club.last_confirmed_on !== undefined
    ? (club as C & Later)
    : { ...club, meetings: club.meetings ?? [], last_confirmed_on: club.last_confirmed_on ?? null }

/**
 * The snapshot in the current format. Version 1 kept no approved versions (an approved club's
 * current record is its approved version; a pending club's last approval was not kept) and no
 * history, which starts with the first change after the upgrade, and no join requests. Clubs
 * of a file from before meetings have none; of one from before re-registration, no confirmation.
 */
export function upgradeSnapshot(data: StoredSnapshot): Snapshot {
  if (data.version === SNAPSHOT_VERSION)
    return data.clubs.every((club) => club.meetings && club.last_confirmed_on !== undefined)
      ? (data as Snapshot)
      : { ...data, clubs: data.clubs.map(withLaterFields) }
  return {
    version: SNAPSHOT_VERSION,
    tags: data.tags,
    clubs: data.clubs.map((club) => withLaterFields({ ...club, approved_version: null })),
    users: data.users ?? [],
    memberships: data.memberships ?? [],
    favorites: data.favorites ?? [],
    subscriptions: data.subscriptions ?? [],
    history: [],
    requests: [],
  }
}
