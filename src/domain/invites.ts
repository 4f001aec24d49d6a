import { randomBytes } from 'node:crypto'
import { requireUser, type Caller } from './caller'
import type { Catalog } from './catalog'
import { Touched } from './change-set'
import { BodyCheck, fieldsOrRefuse } from './check'
import type { ClubService } from './clubs'
import { NotFound, ValidationFailed } from './errors'
import type { Commit } from './journal'
import type { Undo } from './undo'
import type { MemberService } from './members'
import type { Relations } from './relations'
import { newToken, sha256 } from './user-directory'
import type { ClubRecord } from '../model/club'
import {
  InviteCreate,
  MAX_INVITE_HOURS,
  MAX_INVITE_USES,
  MAX_LIVE_INVITES,
  MIN_INVITE_HOURS,
  type Invite,
  type InviteRecord,
} from '../model/invite'

const HOUR_MS = 60 * 60 * 1000
/** A token as newToken makes it: 32 random bytes, base64url. Anything else names no invite. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/

/** The body of POST /api/clubs/{code}/invites/, with this service's words. */
const INVITE_BODY = new BodyCheck(InviteCreate, {
  notAnObject: 'Send an object: {"expires_in_hours": 48, "max_uses": 30}.',
  fields: {
    expires_in_hours: { invalid: `Enter a whole number of hours from ${MIN_INVITE_HOURS} to ${MAX_INVITE_HOURS}.` },
    max_uses: {
      invalid: `Enter a whole number of uses from 1 to ${MAX_INVITE_USES.toLocaleString('en')}, or none for any number.`,
    },
  },
})
const TOO_MANY = `A club has at most ${MAX_LIVE_INVITES} live invite links; end one before making another.`

/** What a link admits to: the club as it stands and the invite. */
export interface OpenInvite {
  readonly club: ClubRecord
  readonly invite: InviteRecord
}

const shown = ({ id, created_by, created_at, expires_at, max_uses, uses }: InviteRecord): Invite => ({
  id,
  created_by,
  created_at,
  expires_at,
  max_uses,
  uses,
})

/**
 * Invite links (docs/reference.md §23): an owner, officer or admin makes one that expires after some hours
 * and, when it says so, after some uses; a signed-in person who opens it and confirms becomes a
 * member at once, as an accepted join request makes them. The token is shown once; only its
 * SHA-256 is kept. An invite past its expiry is removed when any invite is made; one used up is
 * removed by its last use.
 */
export class InviteService {
  readonly #byHash = new Map<string, InviteRecord>()
  readonly #byId = new Map<string, InviteRecord>()
  /** Ids of the invites changed since last taken. */
  readonly touched = new Touched()

  constructor(
    records: readonly InviteRecord[],
    private readonly clubs: ClubService,
    private readonly catalog: Catalog,
    private readonly relations: Relations,
    private readonly members: MemberService,
    private readonly commit: Commit,
    private readonly now: () => Date,
  ) {
    for (const record of records) this.#set(record)
  }

  /** The club's live invites, newest first: for its owners, officers and admins. */
  list(caller: Caller, code: string): Invite[] {
    this.clubs.editable(caller, code)
    return this.#liveOf(code).map(shown)
  }

  /** A new invite to club `code`; answers it with its token, which is not kept. */
  async create(caller: Caller, code: string, body: unknown): Promise<{ invite: Invite; token: string }> {
    const user = requireUser(caller)
    this.clubs.editable(user, code)
    const { expires_in_hours, max_uses = null } = fieldsOrRefuse(INVITE_BODY.check(body))
    const now = this.now()
    const token = newToken()
    const record: InviteRecord = {
      id: randomBytes(8).toString('hex'),
      club: code,
      token_sha256: sha256(token),
      created_by: user.username,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + expires_in_hours! * HOUR_MS).toISOString(),
      max_uses,
      uses: 0,
    }
    await this.commit(() => {
      if (this.#liveOf(code).length >= MAX_LIVE_INVITES) throw new ValidationFailed({ non_field_errors: [TOO_MANY] })
      const swept = [...this.#byId.values()].filter((invite) => !this.#lives(invite))
      return [...swept.map((invite) => this.#change(invite, null)), this.#change(null, record)]
    })
    return { invite: shown(record), token }
  }

  /** Ends the invite `id` of club `code` at once: its link is a 404 from now on. */
  async end(caller: Caller, code: string, id: string): Promise<void> {
    this.clubs.editable(caller, code)
    await this.commit(() => {
      const invite = this.#byId.get(id)
      if (!invite || invite.club !== code || !this.#lives(invite)) throw new NotFound()
      return this.#change(invite, null)
    })
  }

  /** What the link with `token` admits to; a 404 past its expiry, uses or deletion, or for a club gone or inactive. */
  open(token: string): OpenInvite {
    const invite = TOKEN_SHAPE.test(token) ? this.#byHash.get(sha256(token)) : undefined
    const club = invite && this.#lives(invite) ? this.catalog.get(invite.club)?.record : undefined
    if (!invite || !club?.active) throw new NotFound()
    return { club, invite }
  }

  /** What the link with `token` offers the caller: its club, and whether they belong to it already (a 404 as `open`). */
  offer(caller: Caller, token: string): { club: ClubRecord; member: boolean } {
    const { username } = requireUser(caller)
    const { club } = this.open(token)
    return { club, member: this.relations.roleOf(username, club.code) !== undefined }
  }

  /**
   * The caller joins the club of the link with `token`: a member at once, the use counted in the
   * same write, so that of two people taking the last use only one gets it (the other a 404).
   * Someone already in the club joins nothing and uses nothing (`joined` false).
   */
  async join(caller: Caller, token: string): Promise<{ club: ClubRecord; joined: boolean }> {
    const user = requireUser(caller)
    const { club } = this.open(token)
    if (this.relations.roleOf(user.username, club.code) !== undefined) return { club, joined: false }
    let joined = true
    await this.commit(() => {
      // Checked again inside the write: what was live a moment ago may have been used up meanwhile.
      const { invite } = this.open(token)
      if (this.relations.roleOf(user.username, invite.club) !== undefined) {
        joined = false
        return []
      }
      const used = { ...invite, uses: invite.uses + 1 }
      const usedUp = used.max_uses !== null && used.uses >= used.max_uses
      return [
        ...this.members.admission(invite.club, user.username, 'member'),
        this.#change(invite, usedUp ? null : used),
      ]
    })
    return { club: this.catalog.get(club.code)!.record, joined }
  }

  /** Puts the invite `id` as another instance left it (null: gone). */
  put(id: string, record: InviteRecord | null): void {
    const before = this.#byId.get(id)
    if (before) this.#delete(before)
    if (record) this.#set(record)
  }

  /** The invite `id` as the data file keeps it, expired or not (null: none). */
  stored(id: string): InviteRecord | null {
    return this.#byId.get(id) ?? null
  }

  snapshot(): InviteRecord[] {
    return [...this.#byId.values()]
  }

  /** Whether `invite` still admits anyone: not expired, not used up, its club still in the directory. */
  #lives(invite: InviteRecord): boolean {
    return (
      Date.parse(invite.expires_at) > this.now().getTime() &&
      (invite.max_uses === null || invite.uses < invite.max_uses) &&
      this.catalog.get(invite.club) !== undefined
    )
  }

  #liveOf(code: string): InviteRecord[] {
    return [...this.#byId.values()]
      .filter((invite) => invite.club === code && this.#lives(invite))
      .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? -1 : 1))
  }

  /** Replaces `before` with `after` (either null: none); answers its undo. */
  #change(before: InviteRecord | null, after: InviteRecord | null): Undo {
    if (before) this.#delete(before)
    if (after) this.#set(after)
    return () => {
      if (after) this.#delete(after)
      if (before) this.#set(before)
    }
  }

  #set(record: InviteRecord): void {
    this.touched.mark(record.id)
    this.#byId.set(record.id, record)
    this.#byHash.set(record.token_sha256, record)
  }

  #delete(record: InviteRecord): void {
    this.touched.mark(record.id)
    this.#byId.delete(record.id)
    this.#byHash.delete(record.token_sha256)
  }
}
