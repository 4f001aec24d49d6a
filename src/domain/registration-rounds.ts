import { requireUser, type Caller } from './caller'
import type { Catalog } from './catalog'
import { pair, Touched } from './change-set'
import { BodyCheck, fieldsOrRefuse } from './check'
import type { ClubService } from './clubs'
import { Conflict, NotFound, PermissionDenied } from './errors'
import type { History } from './history'
import type { Commit } from './journal'
import type { Undo } from './undo'
import type { ClubRecord } from '../model/club'
import { dayIn } from './time-zones'
import {
  MAX_ROUND_MESSAGE_LENGTH,
  RoundWrite,
  type ConfirmationRecord,
  type CurrentRound,
  type RoundClub,
  type RoundRecord,
} from '../model/registration-round'

/** The body of POST /api/registration-rounds/, with this service's words. */
const ROUND_BODY = new BodyCheck(RoundWrite, {
  notAnObject: 'Send an object: {"deadline": "YYYY-MM-DD", "message": "..."}.',
  fields: {
    deadline: { invalid: 'Enter a date as YYYY-MM-DD, for example 2026-12-15.' },
    message: { invalid: `A message is text of at most ${MAX_ROUND_MESSAGE_LENGTH} characters.` },
  },
})

const NO_ROUND = 'No re-registration round is open.'
const OFFICE_ONLY = 'Only the activities office runs re-registration rounds.'

export interface RoundOptions {
  readonly commit: Commit
  readonly now: () => Date
  /** The campus time zone: what "today" means for a deadline and a confirmation. */
  readonly timeZone: string
}

/**
 * Re-registration rounds (docs/reference.md §23): the office opens one with a deadline, each club's owners
 * or officers confirm it, and the close makes every active club not confirmed in it inactive
 * (history `lapsed`), all in one write. Knows nothing of HTTP or files.
 */
export class RegistrationRounds {
  #rounds = new Map<number, RoundRecord>()
  /** Each round's confirmations, by club code. */
  #confirmed = new Map<number, Map<string, ConfirmationRecord>>()
  #version = 0
  /** The keys of the rounds and of the confirmations changed since last taken. */
  readonly touched = { rounds: new Touched(), confirmations: new Touched() }

  constructor(
    rounds: readonly RoundRecord[],
    confirmations: readonly ConfirmationRecord[],
    private readonly clubs: ClubService,
    private readonly catalog: Catalog,
    private readonly history: History,
    private readonly options: RoundOptions,
  ) {
    for (const round of rounds) this.#rounds.set(round.id, round)
    for (const confirmation of confirmations)
      this.#confirmationsOf(confirmation.round).set(confirmation.club, confirmation)
  }

  /** Grows whenever a round or a confirmation comes, changes or goes (a page made from them stays valid until it moves). */
  get version(): number {
    return this.#version
  }

  /** The campus day now. */
  today(): string {
    return dayIn(this.options.timeZone, this.options.now())
  }

  /** The round open now, or null: anyone may ask (the site shows its deadline to owners and officers). */
  openRound(): RoundRecord | null {
    for (const round of this.#rounds.values()) if (round.closed_at === null) return round
    return null
  }

  /** The newest closed round, or null: the office's page lists what its close made lapse. */
  lastClosed(): RoundRecord | null {
    let last: RoundRecord | null = null
    for (const round of this.#rounds.values())
      if (round.closed_at !== null && (!last || round.id > last.id)) last = round
    return last
  }

  /** Club `code`'s confirmation in the open round, or null (none open, or not confirmed yet). */
  confirmationOf(code: string): ConfirmationRecord | null {
    const round = this.openRound()
    return (round && this.#confirmed.get(round.id)?.get(code)) ?? null
  }

  /** Opens a round (admins): a 409 while another is open, a 400 for a deadline that is no date or is past. */
  async open(caller: Caller, body: unknown): Promise<RoundRecord> {
    const admin = requireAdmin(caller)
    const checked = ROUND_BODY.check(body)
    const deadline = checked.fields.deadline
    if (deadline !== undefined && !checked.errors.deadline && deadline < this.today())
      checked.errors.deadline = [`The deadline cannot be in the past: it is ${this.today()} on campus.`]
    const { message = '' } = fieldsOrRefuse(checked)
    const open = this.openRound()
    if (open) throw new Conflict(`A re-registration round is already open (until ${open.deadline}): close it first.`)
    const round: RoundRecord = {
      id: Math.max(0, ...this.#rounds.keys()) + 1,
      opened_at: this.options.now().toISOString(),
      opened_by: admin.username,
      deadline: checked.fields.deadline!,
      message,
      closed_at: null,
      closed_by: null,
      lapsed: [],
    }
    await this.options.commit(() => this.#putRound(round))
    return round
  }

  /** The open round and its progress (admins); 404 when none is open. */
  current(caller: Caller): CurrentRound {
    requireAdmin(caller)
    const round = this.#open()
    const clubs = this.#activeClubs()
    const confirmed = this.#confirmationsOf(round.id)
    return {
      id: round.id,
      opened_at: round.opened_at,
      deadline: round.deadline,
      message: round.message,
      clubs: clubs.length,
      confirmed: clubs.filter((club) => confirmed.has(club.code)).length,
    }
  }

  /** Every active club, by name, with its confirmation in the open round (null when none): admins; 404 when none is open. */
  clubsOf(caller: Caller): RoundClub[] {
    requireAdmin(caller)
    const confirmed = this.#confirmationsOf(this.#open().id)
    return this.#activeClubs().map(({ code, name }) => {
      const confirmation = confirmed.get(code)
      return {
        code,
        name,
        confirmed_at: confirmation?.confirmed_at ?? null,
        confirmed_by: confirmation?.confirmed_by ?? null,
      }
    })
  }

  /**
   * Its owners, officers or an admin confirm club `code` in the open round (a 409 when none is
   * open): its `last_confirmed_on` becomes today, the campus day. Confirming again restamps it.
   */
  async confirm(caller: Caller, code: string): Promise<ClubRecord> {
    const user = requireUser(caller)
    const current = this.clubs.retrieve(user, code)
    if (!user.isAdmin && !this.clubs.runs(user, code))
      throw new PermissionDenied('Only the club’s owners and officers re-register it.')
    const round = this.openRound()
    if (!round) throw new Conflict(`${NO_ROUND} There is nothing to confirm until the activities office opens one.`)
    const now = this.options.now()
    const club = restamped(current, { last_confirmed_on: dayIn(this.options.timeZone, now) }, now.toISOString())
    const confirmation = { round: round.id, club: code, confirmed_at: now.toISOString(), confirmed_by: user.username }
    await this.options.commit(() => [this.catalog.change(club), this.#putConfirmation(confirmation)])
    return club
  }

  /**
   * Closes the open round (admins; 404 when none is open): every active club not confirmed in it
   * becomes inactive, history `lapsed`, and the round records them. One commit: all of it is on
   * disk, or none of it.
   */
  async close(caller: Caller): Promise<{ lapsed: string[] }> {
    const admin = requireAdmin(caller)
    const round = this.#open()
    const confirmed = this.#confirmationsOf(round.id)
    const now = this.options.now().toISOString()
    const lapsing = this.#activeClubs()
      .filter((club) => !confirmed.has(club.code))
      .sort((a, b) => (a.code < b.code ? -1 : 1))
    const lapsed = lapsing.map((club) => club.code)
    const comment = `Not re-registered by ${round.deadline}.`
    const closed: RoundRecord = { ...round, closed_at: now, closed_by: admin.username, lapsed }
    await this.options.commit(() => [
      ...lapsing.flatMap((club) => [
        this.catalog.change(restamped(club, { active: false }, now)),
        this.history.append({
          club: club.code,
          event: 'lapsed',
          at: now,
          by: admin.username,
          comment,
          fields: [],
        }),
      ]),
      this.#putRound(closed),
    ])
    return { lapsed }
  }

  /** Puts round `id` as another instance left it (null: gone). */
  putRound(id: number, round: RoundRecord | null): void {
    this.#version++
    this.touched.rounds.mark(String(id))
    if (round) this.#rounds.set(id, round)
    else this.#rounds.delete(id)
  }

  /** Puts club `club`'s confirmation in round `round` as another instance left it (null: gone). */
  putConfirmation(round: number, club: string, confirmation: ConfirmationRecord | null): void {
    this.#version++
    this.touched.confirmations.mark(pair(round, club))
    if (confirmation) this.#confirmationsOf(round).set(club, confirmation)
    else this.#confirmed.get(round)?.delete(club)
  }

  /** Round `id` (null: none). */
  round(id: number): RoundRecord | null {
    return this.#rounds.get(id) ?? null
  }

  /** Club `club`'s confirmation in round `round` (null: none). */
  confirmation(round: number, club: string): ConfirmationRecord | null {
    return this.#confirmed.get(round)?.get(club) ?? null
  }

  snapshot(): { registration_rounds: RoundRecord[]; registration_confirmations: ConfirmationRecord[] } {
    return {
      registration_rounds: [...this.#rounds.values()],
      registration_confirmations: [...this.#confirmed.values()].flatMap((byClub) => [...byClub.values()]),
    }
  }

  #open(): RoundRecord {
    const round = this.openRound()
    if (!round) throw new NotFound(NO_ROUND)
    return round
  }

  /** The live clubs that are active now, by name: the ones a round asks to re-register. */
  #activeClubs(): ClubRecord[] {
    const out: ClubRecord[] = []
    for (const { record } of this.catalog.live()) if (record.active) out.push(record)
    return out.sort((a, b) => a.name.localeCompare(b.name) || (a.code < b.code ? -1 : 1))
  }

  #confirmationsOf(round: number): Map<string, ConfirmationRecord> {
    let byClub = this.#confirmed.get(round)
    if (!byClub) this.#confirmed.set(round, (byClub = new Map()))
    return byClub
  }

  #putRound(round: RoundRecord): Undo {
    const before = this.round(round.id)
    this.putRound(round.id, round)
    return () => this.putRound(round.id, before)
  }

  #putConfirmation(confirmation: ConfirmationRecord): Undo {
    const { round, club } = confirmation
    const before = this.confirmation(round, club)
    this.putConfirmation(round, club, confirmation)
    return () => this.putConfirmation(round, club, before)
  }
}

function requireAdmin(caller: Caller): Caller & { username: string } {
  const user = requireUser(caller)
  if (!user.isAdmin) throw new PermissionDenied(OFFICE_ONLY)
  return user
}

/**
 * `club` with `change` made at `now`: what the public sees of it changes too (its confirmation
 * day, whether it is active), so the public's version moves on with it while a change awaits review.
 */
function restamped(club: ClubRecord, change: Partial<ClubRecord>, now: string): ClubRecord {
  const version = club.approved_version
  return { ...club, ...change, updated_at: now, approved_version: version && { ...version, updated_at: now } }
}
