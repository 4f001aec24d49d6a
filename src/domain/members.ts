import { isAuthenticated, type Caller } from './caller'
import { NotAuthenticated, NotFound, PermissionDenied, ValidationFailed } from './errors'
import { MemberPatch, MemberWrite, ROLES, type Role } from '../model/user'
import { BodyCheck, fieldsOrRefuse } from './check'
import type { Commit } from './journal'
import type { Undo } from './undo'
import type { ClubRecord } from '../model/club'
import type { Catalog } from './catalog'
import type { ClubService } from './clubs'
import type { PendingRequests } from './pending-requests'
import { NO_DETAILS, type Relations, type Seat, type SeatDetails } from './relations'
import type { UserService } from './users'

/** A member as the club's people see them. */
export interface Member {
  readonly username: string
  readonly role: Role
  readonly title: string
  readonly public: boolean
}

/** An owner or officer people can contact (docs/reference.md §21). */
export interface Officer {
  readonly username: string
  readonly title: string
  readonly role: Role
}

/** One of a person's own memberships: the club as they see it, their role and title, and whether they may leave. */
export interface OwnMembership {
  readonly club: ClubRecord
  readonly role: Role
  readonly title: string
  /** They are its last owner: leaving is refused until another owner is named. */
  readonly lastOwner: boolean
}

/** A subscriber as the club's officers see them. */
export interface Subscriber {
  readonly username: string
  readonly email: string | null
  readonly subscribed_at: string | null
}

const VALID_USERNAME = 'Enter a valid username.'
const FIELD_WORDS = {
  role: { invalid: `Choose one of ${ROLES.join(', ')}.` },
  title: { invalid: 'Enter a title of at most 100 characters, e.g. "President".' },
  public: { invalid: 'Must be a valid boolean.' },
}
/** The body of POST /api/clubs/{code}/members/, with this service's words. */
export const MEMBER_BODY = new BodyCheck(MemberWrite, {
  notAnObject: 'Send an object: {"username": "...", "role": "member"}.',
  fields: { username: { invalid: VALID_USERNAME, required: VALID_USERNAME }, ...FIELD_WORDS },
  trimmed: ['title'],
})
const MEMBER_PATCH_BODY = new BodyCheck(MemberPatch, {
  notAnObject: 'Send an object: {"role"?: "officer", "title"?: "President", "public"?: true}.',
  fields: FIELD_WORDS,
  trimmed: ['title'],
})
/** Removing or demoting a club's last owner is refused on the role (docs/reference.md §22): the club would have no one to run it. */
const LAST_OWNER = { role: ['A club must keep at least one owner.'] }
const ROLE_ORDER: Record<Role, number> = { owner: 0, officer: 1, member: 2 }
const byRoleThenName = (a: { role: Role; username: string }, b: { role: Role; username: string }) =>
  ROLE_ORDER[a.role] - ROLE_ORDER[b.role] || (a.username < b.username ? -1 : 1)
const memberOf = ({ username, role, title, public: shown }: Seat): Member => ({ username, role, title, public: shown })

/** A club's people, their roles and titles: owners, officers, members; and its subscribers (docs/reference.md §2, §5, §21). */
export class MemberService {
  constructor(
    private readonly clubs: ClubService,
    private readonly catalog: Catalog,
    private readonly relations: Relations,
    /** Who may be named a member, and the e-mail address campus sign-in gave each. */
    private readonly users: Pick<UserService, 'exists' | 'emailOf'>,
    private readonly requests: PendingRequests,
    private readonly commit: Commit,
  ) {}

  list(caller: Caller, code: string): Member[] {
    this.#clubRunBy(caller, code)
    return this.relations.members(code).sort(byRoleThenName).map(memberOf)
  }

  /**
   * The caller's memberships of live clubs, by club name: each club as they are shown it (a club
   * under review that they merely belong to, as it stands: they may still leave it).
   */
  mine(caller: Caller): OwnMembership[] {
    if (!isAuthenticated(caller)) throw new NotAuthenticated()
    const out: OwnMembership[] = []
    for (const [code, role] of this.relations.clubsOf(caller.username)) {
      const club = this.clubs.shownTo(caller, code) ?? this.catalog.get(code)?.record
      if (!club) continue
      const lastOwner = role === 'owner' && this.relations.owners(code) === 1
      out.push({ club, role, title: this.relations.seatOf(caller.username, code)?.title ?? '', lastOwner })
    }
    return out.sort((a, b) => a.club.name.localeCompare(b.club.name) || (a.club.code < b.club.code ? -1 : 1))
  }

  /** The owners and officers who chose to be listed, for anyone who may see the club: owners first, then by username. */
  officers(caller: Caller, code: string): Officer[] {
    this.clubs.retrieve(caller, code)
    return this.relations
      .members(code)
      .filter((seat) => seat.public && seat.role !== 'member')
      .sort(byRoleThenName)
      .map(({ username, title, role }) => ({ username, title, role }))
  }

  /** Who subscribed to the club, by username, for its owners, officers and admins. */
  subscribers(caller: Caller, code: string): Subscriber[] {
    this.#clubRunBy(caller, code)
    return this.relations.subscriptions
      .linksTo(code)
      .sort((a, b) => (a.username < b.username ? -1 : 1))
      .map(({ username, created_at }) => ({
        username,
        email: this.users.emailOf(username),
        subscribed_at: created_at ?? null,
      }))
  }

  /**
   * Adds a member, or changes the role of one; `created` tells which. A title and `public` sent for
   * an existing member change as a PATCH would let the caller change them.
   */
  async add(caller: Caller, code: string, body: unknown): Promise<{ member: Member; created: boolean }> {
    this.#clubRunBy(caller, code)
    const { username, role = 'member', ...details } = this.#validate(body)
    const relations = this.relations
    const previous = relations.seatOf(username, code)
    const mayManageOwners = this.#managesOwners(caller, code)
    if ((role === 'owner' || previous?.role === 'owner') && !mayManageOwners) throw new PermissionDenied()
    if (previous && changes(previous, details) && !mayManageOwners && caller.username !== username)
      throw new PermissionDenied()
    if (previous?.role === 'owner' && role !== 'owner' && relations.owners(code) === 1)
      throw new ValidationFailed(LAST_OWNER)
    await this.commit(() => this.admission(code, username, role, details))
    return {
      member: { ...NO_DETAILS, ...(previous && memberOf(previous)), ...details, username, role },
      created: !previous,
    }
  }

  /**
   * Changes a member's role, title or whether they are listed: owners and admins for anyone, a
   * member their own title and `public` (docs/reference.md §21).
   */
  async update(caller: Caller, code: string, username: string, body: unknown): Promise<Member> {
    const mayManage = this.#clubOf(caller, code)
    if (!mayManage && caller.username !== username) throw new PermissionDenied()
    const relations = this.relations
    const previous = relations.seatOf(username, code)
    if (!previous) throw new NotFound()
    const { role = previous.role, ...details } = fieldsOrRefuse(MEMBER_PATCH_BODY.check(body))
    if (role !== previous.role && !mayManage) throw new PermissionDenied()
    if (previous.role === 'owner' && role !== 'owner' && relations.owners(code) === 1)
      throw new ValidationFailed(LAST_OWNER)
    if (role !== previous.role || changes(previous, details))
      await this.commit(() => relations.change(code, username, role, details))
    return { ...memberOf(previous), ...details, role }
  }

  /**
   * What gives `username` `role` in live club `code` (with `details`), to apply inside a commit: the
   * role, one more member on the club's current record (never the public view of a club under
   * review), and their join request, if any, settled (docs/reference.md §12).
   */
  admission(code: string, username: string, role: Role, details: Partial<SeatDetails> = {}): Undo[] {
    const club = this.catalog.get(code)!.record
    const joins = this.relations.roleOf(username, code) === undefined
    return [
      this.relations.change(code, username, role, details),
      ...(joins ? [this.catalog.change({ ...club, membership_count: club.membership_count + 1 })] : []),
      this.requests.settle(code, username),
    ]
  }

  /** Removes a member: an owner or admin may remove anyone, and anyone may leave. */
  async remove(caller: Caller, code: string, username: string): Promise<void> {
    const mayManage = this.#clubOf(caller, code)
    if (!mayManage && caller.username !== username) throw new PermissionDenied()
    const relations = this.relations
    const role = relations.roleOf(username, code)
    if (role === undefined) throw new NotFound()
    if (role === 'owner' && relations.owners(code) === 1) throw new ValidationFailed(LAST_OWNER)
    const club = this.catalog.get(code)!.record
    await this.commit(() => [
      relations.change(code, username, null),
      this.catalog.change({ ...club, membership_count: Math.max(0, club.membership_count - 1) }),
    ])
  }

  /** Whether the caller may change and remove any of the club's members, and name owners: its owners and admins. */
  manages(caller: Caller, code: string): boolean {
    return isAuthenticated(caller) && this.#managesOwners(caller, code)
  }

  /** The club, when the caller may manage its people: admins, owners and officers. */
  #clubRunBy(caller: Caller, code: string): ClubRecord {
    if (!isAuthenticated(caller)) throw new NotAuthenticated()
    const club = this.clubs.retrieve(caller, code)
    if (!caller.isAdmin && !this.clubs.runs(caller, code)) throw new PermissionDenied()
    return club
  }

  /**
   * Whether the caller manages the club's members (an owner or admin); a 404 when the club is not
   * one they see or belong to (a member of a club under review may still leave it, or edit their title).
   */
  #clubOf(caller: Caller, code: string): boolean {
    if (!isAuthenticated(caller)) throw new NotAuthenticated()
    const belongs = this.relations.roleOf(caller.username, code) !== undefined
    if (!this.catalog.get(code) || (!this.clubs.shownTo(caller, code) && !belongs)) throw new NotFound()
    return this.#managesOwners(caller, code)
  }

  #managesOwners(caller: Caller, code: string): boolean {
    return caller.isAdmin || this.relations.roleOf(caller.username, code) === 'owner'
  }

  #validate(body: unknown) {
    const checked = MEMBER_BODY.check(body)
    const named = checked.fields.username
    if (named !== undefined && !this.users.exists(named)) checked.errors.username = [`No user is called "${named}".`]
    return fieldsOrRefuse(checked)
  }
}

/** Whether `details` would change the member's title or `public`. */
const changes = (seat: Seat, details: Partial<SeatDetails>): boolean =>
  (details.title !== undefined && details.title !== seat.title) ||
  (details.public !== undefined && details.public !== seat.public)
