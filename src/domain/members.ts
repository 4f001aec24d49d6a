import { isAuthenticated, type Caller } from './caller'
import { NotAuthenticated, NotFound, PermissionDenied, ValidationFailed } from './errors'
import { MemberWrite, ROLES, type Role } from '../model/user'
import { BodyCheck, fieldsOrRefuse } from './check'
import type { Commit, Undo } from './journal'
import type { ClubRecord } from '../model/club'
import type { Catalog } from './catalog'
import type { ClubService } from './clubs'
import type { PendingRequests } from './pending-requests'
import type { Relations } from './relations'

export interface Member {
  readonly username: string
  readonly role: Role
}

const VALID_USERNAME = 'Enter a valid username.'
/** The body of POST /api/clubs/{code}/members/, with this service's words. */
export const MEMBER_BODY = new BodyCheck(MemberWrite, {
  notAnObject: 'Send an object: {"username": "...", "role": "member"}.',
  fields: {
    username: { invalid: VALID_USERNAME, required: VALID_USERNAME },
    role: { invalid: `Choose one of ${ROLES.join(', ')}.` },
  },
})
const LAST_OWNER = { non_field_errors: ['A club must keep at least one owner.'] }
const ROLE_ORDER: Record<Role, number> = { owner: 0, officer: 1, member: 2 }

/** A club's people and their roles: owners, officers, members (CONTRACT §2, §5). */
export class MemberService {
  constructor(
    private readonly clubs: ClubService,
    private readonly catalog: Catalog,
    private readonly relations: Relations,
    /** Whether a username names a user who can hold a token. */
    private readonly userExists: (username: string) => boolean,
    private readonly requests: PendingRequests,
    private readonly commit: Commit,
  ) {}

  list(caller: Caller, code: string): Member[] {
    this.#clubRunBy(caller, code)
    return this.relations
      .members(code)
      .sort((a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role] || (a.username < b.username ? -1 : 1))
  }

  /** Adds a member, or changes the role of one; `created` tells which. */
  async add(caller: Caller, code: string, body: unknown): Promise<{ member: Member; created: boolean }> {
    this.#clubRunBy(caller, code)
    const { username, role } = this.#validate(body)
    const relations = this.relations
    const previous = relations.roleOf(username, code)
    const mayManageOwners = caller.isAdmin || relations.roleOf(caller.username, code) === 'owner'
    if ((role === 'owner' || previous === 'owner') && !mayManageOwners) throw new PermissionDenied()
    if (previous === 'owner' && role !== 'owner' && relations.owners(code) === 1) throw new ValidationFailed(LAST_OWNER)
    await this.commit(() => this.admission(code, username, role))
    return { member: { username, role }, created: previous === undefined }
  }

  /**
   * What gives `username` `role` in live club `code`, to apply inside a commit: the role, one more
   * member on the club's current record (never the public view of a club under review), and their
   * join request, if any, settled (CONTRACT §12).
   */
  admission(code: string, username: string, role: Role): Undo[] {
    const club = this.catalog.get(code)!.record
    const joins = this.relations.roleOf(username, code) === undefined
    return [
      this.relations.change(code, username, role),
      ...(joins ? [this.catalog.change({ ...club, membership_count: club.membership_count + 1 })] : []),
      this.requests.settle(code, username),
    ]
  }

  /** Removes a member: an owner or admin may remove anyone, and anyone may leave. */
  async remove(caller: Caller, code: string, username: string): Promise<void> {
    if (!isAuthenticated(caller)) throw new NotAuthenticated()
    const relations = this.relations
    const entry = this.catalog.get(code)
    const callerRole = relations.roleOf(caller.username, code)
    if (!entry || (!this.clubs.shownTo(caller, code) && callerRole === undefined)) throw new NotFound()
    if (!caller.isAdmin && callerRole !== 'owner' && caller.username !== username) throw new PermissionDenied()
    const role = relations.roleOf(username, code)
    if (role === undefined) throw new NotFound()
    if (role === 'owner' && relations.owners(code) === 1) throw new ValidationFailed(LAST_OWNER)
    const club = entry.record
    await this.commit(() => [
      relations.change(code, username, null),
      this.catalog.change({ ...club, membership_count: Math.max(0, club.membership_count - 1) }),
    ])
  }

  /** The club, when the caller may manage its people: admins, owners and officers. */
  #clubRunBy(caller: Caller, code: string): ClubRecord {
    if (!isAuthenticated(caller)) throw new NotAuthenticated()
    const club = this.clubs.retrieve(caller, code)
    if (!caller.isAdmin && !this.clubs.runs(caller, code)) throw new PermissionDenied()
    return club
  }

  #validate(body: unknown): Member {
    const checked = MEMBER_BODY.check(body)
    const named = checked.fields.username
    if (named !== undefined && !this.userExists(named)) checked.errors.username = [`No user is called "${named}".`]
    const { username, role = 'member' } = fieldsOrRefuse(checked)
    return { username, role }
  }
}
