import { requireUser, type Caller } from './caller'
import { Conflict, NotFound, PermissionDenied, ValidationFailed } from './errors'
import type { Role } from '../model/user'
import type { Catalog, Entry, Order } from './catalog'
import { firstFreeCode, RESERVED_CODES, slugify } from './code'
import {
  CLUB_DEFAULTS,
  DECISION_EVENTS,
  REVIEWED_FIELDS,
  type ClubDetail,
  type ClubListItem,
  type ClubRecord,
  type LastDecision,
} from '../model/club'
import type { HistoryEntry, HistoryEventKind, HistoryRecord } from '../model/history'
import type { History } from './history'
import { versionOf } from './snapshot-format'
import type { Commit } from './journal'
import type { Undo } from './undo'
import { applyListQuery, inRelevanceOrder, parseListQuery, type ListQuery } from './list-query'
import type { Relations } from './relations'
import { ANONYMOUS_VIEW, detail, isPlain, listItem, select, type Representation, type Viewpoint } from './represent'
import { checkClubBody, fieldsOrRefuse, type ClubFieldsOf, type FieldErrors } from './check'

export interface ClubServiceOptions {
  /** Applies a change and resolves once it is on disk. */
  readonly commit: Commit
  /** New clubs start approved (CLUBS_AUTO_APPROVE, for hackathons). */
  readonly autoApprove: boolean
  readonly now: () => Date
}

const APPROVAL_FIELDS = ['approved', 'approved_comment'] as const
const RUNS_CLUB: ReadonlySet<Role | undefined> = new Set<Role | undefined>(['owner', 'officer'])

/** The fields of any club write body, as checked. */
type ClubFields = Partial<ClubFieldsOf['patch']>

/** One page of a list: the clubs on it, and where it stands among all that matched. */
export interface ClubPage {
  readonly records: ClubRecord[]
  /** How many clubs matched, before paging. */
  readonly total: number
  /** The page asked for and the last one; null when no page was asked for (every match is in `records`). */
  readonly page: { readonly number: number; readonly size: number; readonly last: number } | null
}

/** A checked change to one club, not made yet: the record it stores, and how to make it. */
export interface ClubChange {
  readonly club: ClubRecord
  /** False when the club keeps every value it had (updated_at aside) and nothing is recorded. */
  readonly changes: boolean
  readonly apply: () => Undo[]
}

/** The club domain: visibility, permissions, the six operations, approval. Knows nothing of HTTP or files. */
export class ClubService {
  constructor(
    private readonly catalog: Catalog,
    private readonly relations: Relations,
    private readonly events: History,
    private readonly options: ClubServiceOptions,
  ) {}

  /** Owners and officers run a club: they see it in any state and may edit it. */
  runs(caller: Caller, code: string): boolean {
    return RUNS_CLUB.has(this.relations.roleOf(caller.username, code))
  }

  /**
   * The record of club `code` that `caller` is shown, or undefined when they may not see it:
   * admins and the club's officers see it as it stands, everyone else its public (approved,
   * active) version (docs/reference.md §4, §11).
   */
  shownTo(caller: Caller, code: string): ClubRecord | undefined {
    if (caller.isAdmin || this.runs(caller, code)) return this.catalog.get(code)?.record
    const shown = this.catalog.get(code, 'public')?.record
    return shown?.active ? shown : undefined
  }

  /** What `caller` sees of `record` beyond the record itself: their flags, and the real e-mail. */
  private viewOf(caller: Caller, record: ClubRecord): Viewpoint {
    const username = caller.username
    if (username === null) return ANONYMOUS_VIEW
    const role = this.relations.roleOf(username, record.code)
    return {
      isFavorite: this.relations.favorites.has(username, record.code),
      isMember: role !== undefined,
      isSubscribed: this.relations.subscriptions.has(username, record.code),
      seesEmail: caller.isAdmin || RUNS_CLUB.has(role),
    }
  }

  #dataVersion = { catalog: -1, relations: -1, name: '' }

  /**
   * Names the state every answer is made from; it changes whenever any answer could. The same
   * string while the state stays, so the caches that compare it per request compare one pointer.
   */
  get dataVersion(): string {
    const catalog = this.catalog.version
    const relations = this.relations.version
    const made = this.#dataVersion
    if (made.catalog !== catalog || made.relations !== relations)
      this.#dataVersion = { catalog, relations, name: `${catalog}.${relations}` }
    return this.#dataVersion.name
  }

  /** The clubs `caller` sees that `query` keeps, in its order; one page of them when it asks for one. */
  list(caller: Caller, query: ListQuery): ClubPage {
    const matched = inRelevanceOrder(this.#matching(caller, query), query)
    const total = matched.length
    if (!query.page) return { records: matched.map(({ record }) => record), total, page: null }
    const { number, size } = query.page
    const last = Math.max(1, Math.ceil(total / size))
    if (number > last) throw new NotFound('Invalid page.')
    const start = (number - 1) * size
    const records = matched.slice(start, start + size).map(({ record }) => record)
    return { records, total, page: { number, size, last } }
  }

  /** The list representation of `record` as `caller` sees it, with only `fields` when a selection is asked. */
  listItem(caller: Caller, record: ClubRecord): ClubListItem
  listItem(caller: Caller, record: ClubRecord, fields: readonly string[] | null): Representation
  listItem(caller: Caller, record: ClubRecord, fields: readonly string[] | null = null): Representation {
    return select(listItem(record, this.viewOf(caller, record), this.catalog), fields)
  }

  /**
   * The detail representation of `record` as `caller` sees it: to its owners, officers and admins
   * (who see the real address) with the latest decision on it too (docs/reference.md §22).
   */
  detail(caller: Caller, record: ClubRecord): ClubDetail
  detail(caller: Caller, record: ClubRecord, fields: readonly string[] | null): Representation
  detail(caller: Caller, record: ClubRecord, fields: readonly string[] | null = null): Representation {
    const view = this.viewOf(caller, record)
    const out = detail(record, view, this.catalog)
    if (view.seesEmail) out.last_decision = this.lastDecision(record.code)
    return select(out, fields)
  }

  /** Whether `caller` sees `record` exactly as an anonymous caller does, so one answer serves both. */
  seesAsPublic(caller: Caller, record: ClubRecord): boolean {
    return isPlain(this.viewOf(caller, record))
  }

  /** Parses a list query against this directory's tags. */
  parseQuery(params: URLSearchParams): ListQuery {
    return parseListQuery(params, this.catalog)
  }

  retrieve(caller: Caller, code: string): ClubRecord {
    const record = this.shownTo(caller, code)
    if (!record) throw new NotFound()
    return record
  }

  /** How many live clubs are in each state, for the operators' metrics. */
  countByState(): Record<'public' | 'inactive' | 'new_pending' | 'change_pending' | 'rejected', number> {
    const counts = { public: 0, inactive: 0, new_pending: 0, change_pending: 0, rejected: 0 }
    for (const { record } of this.catalog.live()) {
      const review = this.reviewState(record)
      if (!record.active) counts.inactive++
      else if (review === 'new club') counts.new_pending++
      else if (review === 'change to an approved club') counts.change_pending++
      else if (record.approved) counts.public++
      else counts.rejected++
    }
    return counts
  }

  /**
   * Whether `record` awaits review as a new club, as a change to an approved one, or not at all:
   * a decision sets `approved_on`, so a rejected change no longer awaits one (docs/reference.md §4).
   */
  reviewState(record: ClubRecord): 'new club' | 'change to an approved club' | null {
    if (record.approved || record.approved_on !== null) return null
    return record.approved_version ? 'change to an approved club' : 'new club'
  }

  /** Whether a change by `caller` to the reviewed fields of `record` awaits review: a non-admin's, once it was approved (docs/reference.md §4, §11). */
  reviewsEdits(caller: Caller, record: ClubRecord): boolean {
    return !caller.isAdmin && (record.approved || record.approved_version !== null)
  }

  /** The newest approval, rejection or revocation of club `code`, or null when none is recorded. */
  lastDecision(code: string): LastDecision | null {
    const entry = this.events.latest(code, (e) => DECIDED.has(e.event))
    return (
      entry && { action: entry.event as LastDecision['action'], comment: entry.comment, by: entry.by, at: entry.at }
    )
  }

  /** Whether `record` is inactive because a re-registration round's close let it lapse (docs/reference.md §23). */
  isLapsed(record: ClubRecord): boolean {
    if (record.active) return false
    return this.events.latest(record.code, (e) => e.event === 'lapsed' || e.event === 'reactivated')?.event === 'lapsed'
  }

  /**
   * Whether `record` was rejected and nothing has been sent for review since (docs/reference.md §22): an
   * owner's or officer's change to its reviewed fields, or a resubmission, puts it in the queue
   * again. A revoked club is not rejected: only an admin's approval brings it back (docs/reference.md §11).
   */
  isRejected(record: ClubRecord): boolean {
    if (record.approved || record.approved_on === null) return false
    // A data file from before the history was kept records no decision; a rejection was the only one then.
    return (this.lastDecision(record.code)?.action ?? 'rejected') === 'rejected'
  }

  /**
   * Sends a rejected club back for review as it stands (`POST /api/clubs/{code}/resubmit/`): its
   * owners and officers; 409 for a club that is not rejected (docs/reference.md §22).
   */
  async resubmit(caller: Caller, code: string): Promise<ClubRecord> {
    const user = requireUser(caller)
    const current = this.retrieve(user, code)
    if (!this.runs(user, code))
      throw new PermissionDenied('Only the club’s owners and officers send it for review again.')
    if (!this.isRejected(current)) throw new Conflict(notRejected(current, this.reviewState(current)))
    const now = this.#now()
    const club: ClubRecord = { ...current, ...AWAITING_REVIEW, updated_at: now }
    await this.options.commit(() => [
      this.catalog.change(club),
      this.events.append(event(code, 'resubmitted', now, user.username)),
    ])
    return club
  }

  /** A club's approval history, newest first: for its owners, officers and admins (docs/reference.md §11). */
  history(caller: Caller, code: string): HistoryEntry[] {
    const user = requireUser(caller)
    this.retrieve(user, code)
    if (!user.isAdmin && !this.runs(user, code)) throw new PermissionDenied()
    return this.events.of(code)
  }

  async create(caller: Caller, body: unknown): Promise<ClubRecord> {
    const change = this.prepareCreate(requireUser(caller), body)
    await this.options.commit(change.apply)
    return change.club
  }

  /** A create by `user`, checked against the directory as it stands (a 400 otherwise), not made yet. */
  prepareCreate(user: Caller & { username: string }, body: unknown): ClubChange {
    const checked = checkClubBody(body, 'create', this.#today())
    const { fields: sent, errors } = checked
    this.#checkApprovalFields(user, sent, { approved: false, approved_comment: '' })
    if (sent.code !== undefined && this.catalog.hasCode(sent.code))
      errors.code = ['A club with this code already exists.']
    else if (sent.code !== undefined && RESERVED_CODES.has(sent.code))
      errors.code = [`"${sent.code}" names a page of the site, not a club: choose another code.`]
    this.#checkName(sent.name, null, errors)
    const tags = this.#resolveTags(sent.tags, errors)
    const fields = fieldsOrRefuse(checked)

    const now = this.#now()
    const name = fields.name
    const code = fields.code ?? firstFreeCode(slugify(name), (c) => RESERVED_CODES.has(c) || this.catalog.hasCode(c))
    const record: ClubRecord = {
      ...CLUB_DEFAULTS,
      ...withoutApproval(fields),
      code,
      name,
      tags: tags ?? [],
      approved: this.options.autoApprove,
      approved_by: null,
      approved_comment: '',
      approved_on: null,
      favorite_count: 0,
      membership_count: 1,
      created_at: now,
      updated_at: now,
      archived_at: null,
      approved_version: null,
      last_confirmed_on: null,
    }
    const created = event(code, 'created', now, user.username)
    const { club, events } = decide(record, fields, user, now)
    const apply = () => [
      this.catalog.change(club),
      this.relations.change(club.code, user.username, 'owner'),
      ...[created, ...events].map((e) => this.events.append(e)),
    ]
    return { club, changes: true, apply }
  }

  /** The club as it stands, for a caller who may change it (owners, officers, admins): 404 when unseen, 403 otherwise. */
  editable(caller: Caller, code: string): ClubRecord {
    const user = requireUser(caller)
    const current = this.retrieve(user, code)
    if (!user.isAdmin && !this.runs(user, code)) throw new PermissionDenied()
    return current
  }

  /** The live clubs `username` owns or is an officer of, whatever their state, by name. */
  runBy(username: string): { record: ClubRecord; role: Role }[] {
    const out: { record: ClubRecord; role: Role }[] = []
    for (const [code, role] of this.relations.clubsOf(username)) {
      const record = RUNS_CLUB.has(role) ? this.catalog.get(code)?.record : undefined
      if (record) out.push({ record, role })
    }
    return out.sort((a, b) => a.record.name.localeCompare(b.record.name) || (a.record.code < b.record.code ? -1 : 1))
  }

  /** PUT (`partial` false: every writable field required) and PATCH. */
  async update(caller: Caller, code: string, body: unknown, partial: boolean): Promise<ClubRecord> {
    const user = requireUser(caller)
    const current = this.editable(user, code)
    const change = this.prepareUpdate(user, current, body, partial)
    await this.options.commit(change.apply)
    return change.club
  }

  /** A PUT or PATCH of `current` by `user`, who may change it, checked (a 400 otherwise), not made yet. */
  prepareUpdate(user: Caller & { username: string }, current: ClubRecord, body: unknown, partial: boolean): ClubChange {
    const code = current.code
    const { fields, errors } = checkClubBody(body, partial ? 'patch' : 'replace', this.#today())
    this.#checkApprovalFields(user, fields, current)
    // A club a re-registration round let lapse is made active again by the office alone (docs/reference.md §23).
    const reactivates = fields.active === true && this.isLapsed(current)
    if (reactivates && !user.isAdmin)
      throw new PermissionDenied('A lapsed club is made active again by the activities office: ask it.')
    if (fields.code !== undefined && fields.code !== current.code)
      errors.code = ['The code of a club cannot be changed.']
    this.#checkName(fields.name, current, errors)
    const tags = this.#resolveTags(fields.tags, errors)
    if (Object.keys(errors).length) throw new ValidationFailed(errors)

    const now = this.#now()
    const { code: _sameCode, ...changes } = withoutApproval(fields)
    let record: ClubRecord = { ...current, ...changes, tags: tags ?? current.tags, updated_at: now }
    const reviewed = REVIEWED_FIELDS.filter((field) => record[field] !== current[field])
    const submitted: HistoryRecord[] = []
    if (reviewed.length && !user.isAdmin && this.isRejected(current)) {
      // In the queue again (docs/reference.md §22); a rejected change keeps its approved version public meanwhile.
      record = { ...record, ...AWAITING_REVIEW }
      submitted.push(event(code, 'resubmitted', now, user.username, '', reviewed))
    } else if (reviewed.length && this.reviewsEdits(user, current)) {
      // The change awaits review; meanwhile the public keeps seeing the approved version.
      const approvedVersion = current.approved_version ?? versionOf(current)
      record = { ...record, ...AWAITING_REVIEW }
      record.approved_version = approvedVersion
      submitted.push(event(code, 'submitted', now, user.username, '', reviewed))
    }
    // While a change awaits review the public sees the approved version, which moves on only when
    // a field the public sees beside it changes: a change that awaits review changes nothing public.
    const shown = record.approved_version
    if (shown) {
      const publicSince = current.approved_version ? (shown.updated_at ?? current.updated_at) : current.updated_at
      record.approved_version = { ...shown, updated_at: changesBesideReview(current, record) ? now : publicSince }
    }
    const { club, events } = decide(record, fields, user, now)
    const recorded = [...submitted, ...events]
    if (reactivates) recorded.push(event(code, 'reactivated', now, user.username))
    const apply = () => [this.catalog.change(club), ...recorded.map((e) => this.events.append(e))]
    return { club, changes: recorded.length > 0 || !sameValues(club, current), apply }
  }

  async destroy(caller: Caller, code: string): Promise<void> {
    const user = requireUser(caller)
    const current = this.retrieve(caller, code)
    if (!user.isAdmin && this.relations.roleOf(user.username, code) !== 'owner') throw new PermissionDenied()
    const now = this.#now()
    const archived = { ...current, updated_at: now, archived_at: now }
    await this.options.commit(() => [
      this.catalog.change(archived),
      this.events.append(event(code, 'archived', now, user.username)),
    ])
  }

  /**
   * The clubs `caller` sees that `query` keeps, in its order: admins every club as it stands;
   * others the public view, with the clubs they run as they stand in their place.
   */
  #matching(caller: Caller, query: ListQuery): Entry[] {
    if (caller.isAdmin) return applyListQuery(this.catalog.sortedBy(query.order), () => true, query)
    const runs = new Set<string>()
    if (caller.username !== null)
      for (const [code, role] of this.relations.clubsOf(caller.username)) if (RUNS_CLUB.has(role)) runs.add(code)
    const visible = (entry: Entry) => entry.record.active && !runs.has(entry.record.code)
    const shown = applyListQuery(this.catalog.sortedBy(query.order, 'public'), visible, query)
    if (!runs.size) return shown
    const own = [...runs].flatMap((code) => this.catalog.get(code) ?? [])
    return mergeSorted(
      shown,
      applyListQuery(own.sort(query.order.compare), () => true, query),
      query.order,
    )
  }

  /** Only admins decide approval; anyone may send the stored values back unchanged (GET-edit-PUT). */
  #checkApprovalFields(user: Caller, fields: ClubFields, stored: { approved: boolean; approved_comment: string }) {
    if (user.isAdmin) return
    for (const field of APPROVAL_FIELDS) {
      if (fields[field] !== undefined && fields[field] !== stored[field]) throw new PermissionDenied()
    }
  }

  #checkName(name: string | undefined, current: ClubRecord | null, errors: FieldErrors) {
    if (name === undefined) return
    const holder = this.catalog.codeForName(name)
    if (holder !== undefined && holder !== current?.code) errors.name = ['A club with this name already exists.']
  }

  /** Tag references (by id or name) as ids, duplicates collapsed in first-seen order. */
  #resolveTags(refs: readonly unknown[] | undefined, errors: FieldErrors): number[] | null {
    if (refs === undefined) return null
    const ids: number[] = []
    const problems: string[] = []
    for (const ref of refs) {
      const tag = tagRef(ref, this.catalog)
      if (typeof tag === 'string') problems.push(tag)
      else if (!ids.includes(tag)) ids.push(tag)
    }
    if (problems.length) errors.tags = problems
    return ids
  }

  #now(): string {
    return this.options.now().toISOString()
  }

  #today(): string {
    return this.#now().slice(0, 10)
  }
}

/** A club awaiting review: no decision on it since it was sent. */
const AWAITING_REVIEW = { approved: false, approved_by: null, approved_on: null, approved_comment: '' } as const

const DECIDED: ReadonlySet<string> = new Set(DECISION_EVENTS)

/** Why club `record`, not rejected, cannot be sent for review again. */
function notRejected(record: ClubRecord, review: 'new club' | 'change to an approved club' | null): string {
  const name = `“${record.name}”`
  if (review) return `${name} already awaits review.`
  if (record.approved) return `${name} is approved: only a rejected club is sent for review again.`
  return `The approval of ${name} was revoked: only the activities office brings it back.`
}

/** The fields a record takes as they are: all but approval (decided apart) and tags (resolved apart). */
function withoutApproval<F extends ClubFields>(fields: F) {
  const { approved: _a, approved_comment: _c, tags: _t, ...rest } = fields
  return rest
}

/** Whether two records of a club hold the same values, updated_at aside. */
function sameValues(a: ClubRecord, b: ClubRecord): boolean {
  const keys = Object.keys(a) as (keyof ClubRecord)[]
  if (keys.length !== Object.keys(b).length) return false
  return keys.every(
    (key) => key === 'updated_at' || a[key] === b[key] || JSON.stringify(a[key]) === JSON.stringify(b[key]),
  )
}

/**
 * What a tag reference of a club write names: an id (`{"id"}`), a name (`{"name"}`, or a bare
 * string as a seed writes it: docs/reference.md §22), or nothing. An id wins over a name sent beside it.
 */
export function tagNamed(ref: unknown): { id: number } | { name: string } | null {
  if (typeof ref === 'string') return { name: ref }
  if (typeof ref === 'object' && ref !== null && !Array.isArray(ref)) {
    const { id, name } = ref as { id?: unknown; name?: unknown }
    if (typeof id === 'number' && Number.isInteger(id)) return { id }
    if (typeof name === 'string') return { name }
  }
  return null
}

/** The tag id a reference names, or the message saying why it names none. */
function tagRef(ref: unknown, catalog: Catalog): number | string {
  const named = tagNamed(ref)
  if (named === null) return 'Name a tag as {"id": <integer>}, {"name": "<text>"} or "<text>".'
  if ('id' in named) return catalog.tag(named.id)?.id ?? `Tag ${named.id} does not exist.`
  return catalog.tagByName(named.name.trim())?.id ?? `Tag "${named.name}" does not exist.`
}

/** A history entry of club `code`. */
const event = (
  club: string,
  kind: HistoryEventKind,
  at: string,
  by: string | null,
  comment = '',
  fields: HistoryRecord['fields'] = [],
): HistoryRecord => ({ club, event: kind, at, by, comment, fields })

/** Two lists each sorted by `order`, as one. */
function mergeSorted(a: readonly Entry[], b: readonly Entry[], order: Order): Entry[] {
  const out: Entry[] = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) out.push(order.compare(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!)
  return out.concat(a.slice(i), b.slice(j))
}

/**
 * Applies an admin's approval decision. A decision is recorded when `approved` or the comment
 * changes, or when a pending club is explicitly refused (`approved: false` with a comment or
 * as the only field); the server sets who decided and when. Approving makes the current values
 * the approved version; rejecting a pending change leaves the approved version public;
 * `approved: false` on a public club with nothing awaiting review revokes it: no version stays
 * public, and only an approval brings one back.
 */
function decide(
  record: ClubRecord,
  fields: ClubFields,
  user: Caller & { username: string },
  now: string,
): { club: ClubRecord; events: HistoryRecord[] } {
  const undecided = { club: record, events: [] }
  if (!user.isAdmin || (fields.approved === undefined && fields.approved_comment === undefined)) return undecided
  const approved = fields.approved ?? record.approved
  const comment = fields.approved_comment ?? record.approved_comment
  const pending = !record.approved && record.approved_on === null
  const changed = approved !== record.approved || comment !== record.approved_comment
  const refusesPending = pending && fields.approved === false && Object.keys(fields).length <= 2
  const revokes = fields.approved === false && !pending && (record.approved || record.approved_version !== null)
  if (!changed && !refusesPending && !revokes) return undecided
  const decided = { ...record, approved, approved_comment: comment, approved_by: user.username, approved_on: now }
  // Approved: the record is the approved version. Rejected: the public keeps what was approved last.
  decided.approved_version = approved || revokes ? null : record.approved_version
  const kind = approved ? 'approved' : revokes ? 'revoked' : 'rejected'
  return { club: decided, events: [event(record.code, kind, now, user.username, comment)] }
}

const NOT_SHOWN_BESIDE_REVIEW: ReadonlySet<string> = new Set([
  ...REVIEWED_FIELDS,
  'updated_at',
  'approved',
  'approved_by',
  'approved_on',
  'approved_comment',
  'approved_version',
])

/** Whether `after` differs from `before` in a field the public sees whatever awaits review. */
function changesBesideReview(before: ClubRecord, after: ClubRecord): boolean {
  return (Object.keys(after) as (keyof ClubRecord)[]).some(
    (field) => !NOT_SHOWN_BESIDE_REVIEW.has(field) && JSON.stringify(after[field]) !== JSON.stringify(before[field]),
  )
}
