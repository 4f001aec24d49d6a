import { requireUser, type Caller } from './caller'
import { BodyCheck, fieldsOrRefuse } from './check'
import { NotFound, PermissionDenied } from './errors'
import type { Commit } from './journal'
import type { ClubService } from './clubs'
import type { Member, MemberService } from './members'
import type { PendingRequests } from './pending-requests'
import type { Relations } from './relations'
import type { ClubRecord } from '../model/club'
import {
  JoinRequestWrite,
  MAX_MESSAGE_LENGTH,
  MAX_PENDING_REQUESTS,
  type JoinRequest,
  type JoinRequestRecord,
  type OwnJoinRequest,
} from '../model/join-request'

/** The body of POST /api/clubs/{code}/requests/, with this service's words. */
const JOIN_REQUEST_BODY = new BodyCheck(JoinRequestWrite, {
  notAnObject: 'Send an object: {} or {"message": "..."}.',
  fields: { message: { invalid: `A message is text of at most ${MAX_MESSAGE_LENGTH} characters.` } },
})

const ALREADY_MEMBER = 'You are already a member of this club.'
const ALREADY_ASKED = 'You have already asked to join this club.'
const NOT_ACCEPTING = 'This club is not accepting new members.'
const TOO_MANY = `You already have ${MAX_PENDING_REQUESTS} pending join requests; withdraw one before asking again.`

const asSeenByOfficers = ({ username, message, created_at }: JoinRequestRecord): JoinRequest => ({
  username,
  message,
  created_at,
})

/** Asking to join a club, and its officers' answer (docs/reference.md §12). */
export class JoinRequestService {
  constructor(
    private readonly clubs: ClubService,
    private readonly relations: Relations,
    private readonly requests: PendingRequests,
    private readonly members: MemberService,
    private readonly commit: Commit,
    private readonly now: () => Date,
  ) {}

  /** Grows whenever any pending request comes or goes (a page made from them stays valid until it moves). */
  get version(): number {
    return this.requests.version
  }

  /** The caller asks to join a club they may see. */
  async ask(caller: Caller, code: string, body: unknown): Promise<JoinRequest> {
    const user = requireUser(caller)
    const club = this.clubs.retrieve(user, code)
    const checked = JOIN_REQUEST_BODY.check(body)
    const refusal = this.#refusal(user.username, club)
    if (refusal) (checked.errors.non_field_errors ??= []).push(refusal)
    const { message = '' } = fieldsOrRefuse(checked)
    const record = { club: code, username: user.username, message, created_at: this.now().toISOString() }
    await this.commit(() => this.requests.add(record))
    return asSeenByOfficers(record)
  }

  /** A club's pending requests, oldest first: for its owners, officers and admins. */
  list(caller: Caller, code: string): JoinRequest[] {
    this.#clubRunBy(caller, code)
    return this.requests.of(code).map(asSeenByOfficers)
  }

  /** An owner, officer or admin accepts: the requester becomes a member, and the request is settled. */
  async accept(caller: Caller, code: string, username: string): Promise<Pick<Member, 'username' | 'role'>> {
    this.#clubRunBy(caller, code)
    if (!this.requests.get(code, username)) throw new NotFound()
    await this.commit(() => this.members.admission(code, username, 'member'))
    return { username, role: 'member' }
  }

  /** The requester withdraws their request, or an owner, officer or admin declines it. */
  async remove(caller: Caller, code: string, username: string): Promise<void> {
    const user = requireUser(caller)
    const ownRequest = user.username === username && this.requests.get(code, username) !== undefined
    // A requester may withdraw even from a club they no longer see (set inactive since they asked).
    if (!ownRequest) {
      this.clubs.retrieve(user, code)
      if (user.username !== username && !user.isAdmin && !this.clubs.runs(user, code)) throw new PermissionDenied()
      if (!this.requests.get(code, username)) throw new NotFound()
    }
    await this.commit(() => this.requests.settle(code, username))
  }

  /** The caller's own pending requests, oldest first. */
  mine(caller: Caller): OwnJoinRequest[] {
    const user = requireUser(caller)
    return this.requests.ofUser(user.username).map(({ club, message, created_at }) => ({ club, message, created_at }))
  }

  /** Why `username` may not ask to join `club` now, or null. */
  #refusal(username: string, club: ClubRecord): string | null {
    if (this.relations.roleOf(username, club.code) !== undefined) return ALREADY_MEMBER
    if (this.requests.get(club.code, username)) return ALREADY_ASKED
    if (!club.accepting_members) return NOT_ACCEPTING
    if (this.requests.countOf(username) >= MAX_PENDING_REQUESTS) return TOO_MANY
    return null
  }

  #clubRunBy(caller: Caller, code: string): void {
    const user = requireUser(caller)
    this.clubs.retrieve(user, code)
    if (!user.isAdmin && !this.clubs.runs(user, code)) throw new PermissionDenied()
  }
}
