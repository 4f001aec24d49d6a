import { createHash } from 'node:crypto'
import { requireUser, type Caller } from './caller'
import type { ClubService } from './clubs'
import { Conflict, PermissionDenied } from './errors'
import type { Relations } from './relations'
import { DECISION_EVENTS, REVIEWED_FIELDS, type ApprovedVersion, type ClubRecord } from '../model/club'
import type { HistoryEntry } from '../model/history'

export type ReviewedField = (typeof REVIEWED_FIELDS)[number]

/**
 * Where a club stands with the office: awaiting review (new, or a change to an approved club);
 * `public` with nothing awaiting; `change rejected` (the public keeps the approved version); or
 * `hidden` from the public (a rejected new club, or a revoked one).
 */
export type Standing = 'new club' | 'change to an approved club' | 'public' | 'change rejected' | 'hidden'

export const DECISIONS = ['approve', 'reject', 'revoke'] as const
export type Decision = (typeof DECISIONS)[number]

/** What an admin may decide in each standing (docs/reference.md §11): revoking needs nothing awaiting review. */
const OPEN_DECISIONS: Record<Standing, readonly Decision[]> = {
  'new club': ['approve', 'reject'],
  'change to an approved club': ['approve', 'reject'],
  public: ['revoke'],
  'change rejected': ['approve', 'revoke'],
  hidden: ['approve'],
}

const DONE: Record<Decision, string> = { approve: 'approved', reject: 'rejected', revoke: 'revoked' }

/** A club as a reviewer sees it: its record, what the public sees of it, and what may be decided. */
export interface Case {
  readonly club: ClubRecord
  readonly standing: Standing
  /** The approved version the pending values are compared with; null for a club never approved. */
  readonly approved: ApprovedVersion | null
  /** The reviewed fields whose pending value differs from the approved one. */
  readonly changed: readonly ReviewedField[]
  readonly owners: readonly string[]
  /** When it began to wait for review (the first submission since the last decision), or null. */
  readonly waitingSince: string | null
  /** The newest approval, rejection or revocation, or null. */
  readonly lastDecision: HistoryEntry | null
  readonly decisions: readonly Decision[]
  /** Names the values a reviewer is shown; a decision on values changed since is refused. */
  readonly seen: string
}

/** The activities office's desk: the queue of clubs awaiting review, and its decisions (admins only). */
export class ReviewDesk {
  constructor(
    private readonly clubs: ClubService,
    private readonly relations: Relations,
  ) {}

  /** The clubs awaiting review, the longest waiting first. */
  queue(caller: Caller): Case[] {
    const admin = requireAdmin(caller)
    const all = this.clubs.list(admin, this.clubs.parseQuery(new URLSearchParams())).records
    return all
      .filter((record) => this.clubs.reviewState(record) !== null)
      .map((record) => this.#caseOf(admin, record))
      .sort((a, b) => a.waitingSince!.localeCompare(b.waitingSince!) || a.club.code.localeCompare(b.club.code))
  }

  /** One club as a reviewer sees it (404 for a club that does not exist). */
  case(caller: Caller, code: string): Case {
    const admin = requireAdmin(caller)
    return this.#caseOf(admin, this.clubs.retrieve(admin, code))
  }

  /**
   * Decides on club `code` as the API's `PATCH {approved, approved_comment}` does, refusing (409) a
   * decision its standing does not allow, or one on values other than those `seen`: a reject sent
   * after another admin's approval would otherwise revoke.
   */
  async decide(caller: Caller, code: string, decision: Decision, comment: string, seen: string): Promise<Case> {
    this.open(caller, code, decision, seen)
    await this.clubs.update(caller, code, { approved: decision === 'approve', approved_comment: comment }, true)
    return this.case(caller, code)
  }

  /**
   * Club `code` as a reviewer sees it, when `decision` may be made on it as `seen` (else the 409
   * decide would answer): what a confirmation asks about before anything is done.
   */
  open(caller: Caller, code: string, decision: Decision, seen: string): Case {
    const before = this.case(caller, code)
    const name = before.club.name
    if (seen !== before.seen) throw new Conflict(`“${name}” has changed since you opened the page. Look at it again.`)
    if (!before.decisions.includes(decision))
      throw new Conflict(`“${name}” cannot be ${DONE[decision]} now: it is ${STANDING_WORDS[before.standing]}.`)
    return before
  }

  #caseOf(admin: Caller & { username: string }, club: ClubRecord): Case {
    const standing = standingOf(this.clubs.reviewState(club), club)
    const approved = club.approved_version
    const history = this.clubs.history(admin, club.code)
    return {
      club,
      standing,
      approved: standing === 'new club' ? null : approved,
      changed: REVIEWED_FIELDS.filter((field) => approved !== null && approved[field] !== club[field]),
      owners: this.relations
        .members(club.code)
        .filter((member) => member.role === 'owner')
        .map((member) => member.username)
        .sort(),
      waitingSince:
        standing === 'new club' || standing === 'change to an approved club' ? waitingSince(history, club) : null,
      lastDecision: history.find((entry) => DECIDED.has(entry.event)) ?? null,
      decisions: OPEN_DECISIONS[standing],
      seen: fingerprint(club),
    }
  }
}

const STANDING_WORDS: Record<Standing, string> = {
  'new club': 'a new club awaiting review',
  'change to an approved club': 'a change awaiting review',
  public: 'public with nothing awaiting review',
  'change rejected': 'public, its last change rejected',
  hidden: 'not public',
}

function requireAdmin(caller: Caller) {
  const user = requireUser(caller)
  if (!user.isAdmin) throw new PermissionDenied('Only the activities office reviews clubs.')
  return user
}

function standingOf(review: ReturnType<ClubService['reviewState']>, club: ClubRecord): Standing {
  if (review) return review
  if (club.approved) return 'public'
  return club.approved_version ? 'change rejected' : 'hidden'
}

const DECIDED: ReadonlySet<string> = new Set(DECISION_EVENTS)
const SUBMISSIONS: ReadonlySet<string> = new Set(['submitted', 'resubmitted'])
const ACTIVITY: ReadonlySet<string> = new Set(['lapsed', 'reactivated'])

/** The first submission since the last decision (history is newest first); a new club waits from its creation. */
function waitingSince(history: readonly HistoryEntry[], club: ClubRecord): string {
  let since: string | null = null
  for (const entry of history) {
    // A lapse and a reactivation (docs/reference.md §23) say nothing of review.
    if (ACTIVITY.has(entry.event)) continue
    if (SUBMISSIONS.has(entry.event) || entry.event === 'created') since = entry.at
    if (!SUBMISSIONS.has(entry.event)) break
  }
  // A data file from before the history was kept has no events for it.
  return since ?? club.updated_at
}

/** A short name for a club's reviewed values and approval state as they stand. */
function fingerprint(club: ClubRecord): string {
  const values = [...REVIEWED_FIELDS.map((field) => club[field]), club.approved, club.approved_on]
  return createHash('sha256').update(JSON.stringify(values)).digest('base64url').slice(0, 22)
}
