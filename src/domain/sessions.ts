import { createHash, randomBytes } from 'node:crypto'
import type { Caller } from './caller'
import type { Commit } from './journal'
import { sha256 } from './user-directory'
import { ADMIN_USERNAME, type UserService } from './users'
import type { SessionRecord } from '../model/session'

/** A session ends after this long without use (CONTRACT §20). */
export const SESSION_IDLE_MS = 8 * 60 * 60 * 1000
/** How stale the stored last use may grow before a request saves it again: not one write per page. */
const TOUCH_EVERY_MS = 5 * 60 * 1000

/** The person a live session belongs to, with the token their forms must send back. */
export interface SessionHolder extends Caller {
  readonly username: string
  /** Derived from the session id: only its holder can know it, and nothing more is stored. */
  readonly csrf: string
}

export interface SessionStart {
  readonly via: SessionRecord['via']
  readonly groupAdmin: boolean
}

/** `sha256("csrf:" + id)`, base64url: a form token bound to the session, unguessable without its id. */
const csrfOf = (id: string) => createHash('sha256').update(`csrf:${id}`).digest('base64url')

/**
 * The site's sessions: a random id in the person's cookie, its hash here. A session ends when
 * its holder signs out, after 8 hours without use; while the holder's account is disabled, every
 * request with it is refused (403). Sessions are saved with the directory, so they survive a restart.
 */
export class SessionService {
  readonly #byHash = new Map<string, SessionRecord>()

  constructor(
    records: readonly SessionRecord[],
    private readonly users: UserService,
    private readonly commit: Commit,
    private readonly now: () => Date,
  ) {
    for (const record of records) this.#byHash.set(record.id_sha256, record)
  }

  /** Starts a session for `username`; answers the id for their cookie, shown this once. */
  async start(username: string, { via, groupAdmin }: SessionStart): Promise<string> {
    const id = randomBytes(32).toString('base64url')
    const at = this.now().toISOString()
    const record: SessionRecord = {
      id_sha256: sha256(id),
      username,
      via,
      group_admin: groupAdmin,
      created_at: at,
      last_seen_at: at,
    }
    const expired = [...this.#byHash.values()].filter((session) => this.#expired(session))
    await this.commit(() => {
      for (const session of expired) this.#byHash.delete(session.id_sha256)
      this.#byHash.set(record.id_sha256, record)
      return () => {
        this.#byHash.delete(record.id_sha256)
        for (const session of expired) this.#byHash.set(session.id_sha256, session)
      }
    })
    return id
  }

  /**
   * Who holds the session `id`, or null when it names none that lives. Its last use is noted;
   * saved at most every few minutes, and never waited for.
   */
  holder(id: string): SessionHolder | null {
    const record = this.#find(id)
    if (!record) return null
    if (this.#expired(record)) return null
    this.users.checkActive(record.username)
    const user = this.users.directory.get(record.username)
    const now = this.now()
    if (now.getTime() - Date.parse(record.last_seen_at) > TOUCH_EVERY_MS) this.#touch(record, now)
    return {
      username: record.username,
      isAdmin: record.username === ADMIN_USERNAME || record.group_admin || user?.is_admin === true,
      csrf: csrfOf(id),
    }
  }

  /** Ends the session `id` (signing out); nothing happens when it names none. */
  async end(id: string): Promise<void> {
    const record = this.#find(id)
    if (!record) return
    await this.commit(() => {
      this.#byHash.delete(record.id_sha256)
      return () => this.#byHash.set(record.id_sha256, record)
    })
  }

  /** Puts the session with hash `idHash` as `record` says (null: ended), as another instance left it. */
  put(idHash: string, record: SessionRecord | null): void {
    if (record) this.#byHash.set(idHash, record)
    else this.#byHash.delete(idHash)
  }

  snapshot(): SessionRecord[] {
    return [...this.#byHash.values()]
  }

  #find(id: string): SessionRecord | undefined {
    return id.length > 0 && id.length <= 100 ? this.#byHash.get(sha256(id)) : undefined
  }

  #expired(record: SessionRecord): boolean {
    return this.now().getTime() - Date.parse(record.last_seen_at) >= SESSION_IDLE_MS
  }

  #touch(record: SessionRecord, now: Date): void {
    const touched = { ...record, last_seen_at: now.toISOString() }
    void this.commit(() => {
      if (this.#byHash.get(record.id_sha256) !== record) return []
      this.#byHash.set(record.id_sha256, touched)
      return () => {
        if (this.#byHash.get(record.id_sha256) === touched) this.#byHash.set(record.id_sha256, record)
      }
    }).catch(() => undefined)
  }
}
