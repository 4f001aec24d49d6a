import { createHash, createHmac, randomBytes } from 'node:crypto'
import { requireUser, type Caller } from './caller'
import { Touched } from './change-set'
import { NotFound, PermissionDenied } from './errors'
import type { Commit } from './journal'
import { sha256 } from './user-directory'
import { ADMIN_USERNAME, type UserService } from './users'
import type { SessionRecord } from '../model/session'

/** A session ends after this long without use (docs/reference.md §20). */
export const SESSION_IDLE_MS = 8 * 60 * 60 * 1000
/** How stale the stored last use may grow before a request saves it again: not one write per page. */
const TOUCH_EVERY_MS = 5 * 60 * 1000
/** How many ids' hashes and tokens' fingerprints are kept made (all are forgotten past it, and made again as asked). */
const MAX_MADE = 10_000

/** The person a live session belongs to, with the token their forms must send back. */
export interface SessionHolder extends Caller {
  readonly username: string
  /** Derived from the session id: only its holder can know it, and nothing more is stored. */
  readonly csrf: string
}

/**
 * How a session starts: with a service token (the session lasts while that token opens its user),
 * or with campus sign-in (its admin group at sign-in).
 */
export type SessionStart =
  { readonly via: 'token'; readonly token: string } | { readonly via: 'campus'; readonly groupAdmin: boolean }

/** Which service token opens the bootstrap admin (docs/reference.md §5): what a session started with it is checked against. */
export interface AdminTokens {
  /** CLUBS_ADMIN_TOKEN; null without it. */
  readonly adminToken: string | null
  /** Whether the development token in the data file opens the API (outside production, without CLUBS_ADMIN_TOKEN). */
  readonly developmentAdmin: boolean
}

/** `sha256("csrf:" + id)`, base64url: a form token bound to the session, unguessable without its id. */
const csrfOf = (id: string) => createHash('sha256').update(`csrf:${id}`).digest('base64url')

/**
 * The site's sessions: a random id in the person's cookie, its hash here. A session ends when
 * its holder signs out, after 8 hours without use, when an admin ends the user's sessions, and —
 * one started with a service token — as soon as that token no longer opens its user (revoked,
 * issued again, CLUBS_ADMIN_TOKEN changed). While the holder's account is disabled, every request
 * with it is refused (403) but signing out. Sessions are saved with the directory, so they survive a restart.
 */
export class SessionService {
  readonly #byHash = new Map<string, SessionRecord>()
  readonly #adminTokenHash: string | null
  // Every request with a session finds it by its id's hash, checks it (its token's fingerprint) and
  // answers its CSRF token: each is made once, not per request (three hashes, ~5 µs of a signed-in
  // page that is otherwise served from a cache in ~20 µs).
  /** The hash of each id that named a live session (in memory only: the data file keeps hashes alone). */
  readonly #hashes = new Map<string, string>()
  /** Each token hash's fingerprint: a pure function of the hash and the key. */
  readonly #fingerprints = new Map<string, string>()
  /** Each live session record's CSRF token: the record is found by its id's hash, so one id makes it. */
  readonly #csrfs = new WeakMap<SessionRecord, string>()
  /** Id hashes of the sessions changed since last taken. */
  readonly touched = new Touched()

  constructor(
    records: readonly SessionRecord[],
    private readonly users: UserService,
    private readonly commit: Commit,
    private readonly now: () => Date,
    /** The service's secret key: a session keeps its token's fingerprint under it, never the token or its plain hash. */
    private readonly key: Uint8Array,
    private readonly admin: AdminTokens,
  ) {
    for (const record of records) this.put(record.id_sha256, record)
    this.#adminTokenHash = admin.adminToken === null ? null : sha256(admin.adminToken)
  }

  /**
   * Starts a session for `username`; answers the id for their cookie, shown this once. A token
   * that is not the user's service token (a campus JWT pasted in the form) starts a campus session.
   */
  async start(username: string, how: SessionStart): Promise<string> {
    const id = randomBytes(32).toString('base64url')
    const at = this.now().toISOString()
    const held = how.via === 'token' ? sha256(how.token) : null
    const credential = held !== null && held === this.#tokenHashOf(username) ? this.#fingerprint(held) : null
    const record: SessionRecord = {
      id_sha256: sha256(id),
      username,
      via: credential ? 'token' : 'campus',
      group_admin: how.via === 'campus' && how.groupAdmin,
      ...(credential ? { credential } : {}),
      created_at: at,
      last_seen_at: at,
    }
    const ended = [...this.#byHash.values()].filter((session) => this.#ended(session))
    await this.commit(() => {
      const putBack = this.#drop(ended)
      this.put(record.id_sha256, record)
      return () => {
        this.put(record.id_sha256, null)
        putBack()
      }
    })
    return id
  }

  /**
   * Who holds the session `id`, or null when it names none that lives; a 403 while their account
   * is disabled, unless `evenDisabled` (signing out). Its last use is noted; saved at most every
   * few minutes, and never waited for.
   */
  holder(id: string, { evenDisabled = false } = {}): SessionHolder | null {
    const record = this.#find(id)
    if (!record || this.#ended(record)) return null
    if (!evenDisabled) this.users.checkActive(record.username)
    const user = this.users.directory.get(record.username)
    const now = this.now()
    if (now.getTime() - Date.parse(record.last_seen_at) > TOUCH_EVERY_MS) this.#touch(record, now)
    return {
      username: record.username,
      isAdmin: record.username === ADMIN_USERNAME || record.group_admin || user?.is_admin === true,
      csrf: this.#csrfOf(record, id),
    }
  }

  /** Ends the session `id` (signing out); nothing happens when it names none. */
  async end(id: string): Promise<void> {
    const record = this.#find(id)
    if (record) await this.commit(() => this.#drop([record]))
  }

  /** Ends every session of `username` (admins): they sign in again on every browser. 404 for an unknown user. */
  async endAll(caller: Caller, username: string): Promise<void> {
    if (!requireUser(caller).isAdmin) throw new PermissionDenied()
    if (!this.users.exists(username)) throw new NotFound()
    const theirs = [...this.#byHash.values()].filter((session) => session.username === username)
    if (theirs.length > 0) await this.commit(() => this.#drop(theirs))
  }

  /** Puts the session with hash `idHash` as `record` says (null: ended), as another instance left it. */
  put(idHash: string, record: SessionRecord | null): void {
    this.touched.mark(idHash)
    if (record) this.#byHash.set(idHash, record)
    else this.#byHash.delete(idHash)
  }

  /** The session with hash `idHash` as the data file keeps it, ended or not (null: none). */
  stored(idHash: string): SessionRecord | null {
    return this.#byHash.get(idHash) ?? null
  }

  snapshot(): SessionRecord[] {
    return [...this.#byHash.values()]
  }

  /** Takes `sessions` out; answers what puts them back (the undo of a write that could not be saved). */
  #drop(sessions: readonly SessionRecord[]): () => void {
    for (const session of sessions) this.put(session.id_sha256, null)
    return () => {
      for (const session of sessions) this.put(session.id_sha256, session)
    }
  }

  #find(id: string): SessionRecord | undefined {
    if (id.length === 0 || id.length > 100) return undefined
    const known = this.#hashes.get(id)
    const hash = known ?? sha256(id)
    const record = this.#byHash.get(hash)
    if (record && known === undefined) {
      if (this.#hashes.size >= MAX_MADE) this.#hashes.clear()
      this.#hashes.set(id, hash)
    }
    return record
  }

  /**
   * Whether `record` lives no more: 8 hours unused, or started with a service token that no longer
   * opens its user. A token session from before sessions kept their token's fingerprint cannot say
   * which token started it, so it has ended too (its holder signs in again).
   */
  #ended(record: SessionRecord): boolean {
    if (this.now().getTime() - Date.parse(record.last_seen_at) >= SESSION_IDLE_MS) return true
    if (record.via !== 'token') return false
    const current = this.#tokenHashOf(record.username)
    return current === null || record.credential !== this.#fingerprint(current)
  }

  /** The SHA-256 of the service token that opens `username` now, or null when none does (as the API's authentication decides). */
  #tokenHashOf(username: string): string | null {
    if (username === ADMIN_USERNAME) {
      if (this.#adminTokenHash !== null) return this.#adminTokenHash
      if (!this.admin.developmentAdmin) return null
    }
    return this.users.directory.get(username)?.token_sha256 ?? null
  }

  /** What a session keeps of the token that started it: an HMAC of its hash, which a copy of the data file cannot test guesses against. */
  #fingerprint(tokenHash: string): string {
    let made = this.#fingerprints.get(tokenHash)
    if (made === undefined) {
      if (this.#fingerprints.size >= MAX_MADE) this.#fingerprints.clear()
      made = createHmac('sha256', this.key).update(`session-token:${tokenHash}`).digest('hex')
      this.#fingerprints.set(tokenHash, made)
    }
    return made
  }

  #csrfOf(record: SessionRecord, id: string): string {
    let made = this.#csrfs.get(record)
    if (made === undefined) {
      made = csrfOf(id)
      this.#csrfs.set(record, made)
    }
    return made
  }

  #touch(record: SessionRecord, now: Date): void {
    const refreshed = { ...record, last_seen_at: now.toISOString() }
    void this.commit(() => {
      if (this.#byHash.get(record.id_sha256) !== record) return []
      this.put(record.id_sha256, refreshed)
      return () => {
        if (this.#byHash.get(record.id_sha256) === refreshed) this.put(record.id_sha256, record)
      }
    }).catch(() => undefined)
  }
}
