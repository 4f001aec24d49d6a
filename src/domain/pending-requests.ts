import type { JoinRequestRecord } from '../model/join-request'
import { pair, Touched } from './change-set'
import type { Undo } from './undo'

const NOTHING: Undo = () => {}

/**
 * Every pending join request (docs/reference.md §12), by club in the order they came, and by user. Requests
 * of a club that is no longer live (archived) are not shown, counted or saved: they go with it.
 */
export class PendingRequests {
  #byClub = new Map<string, JoinRequestRecord[]>()
  #byUser = new Map<string, Set<string>>()
  /** Grows on every change: a page made from the requests stays valid until it moves. */
  version = 0
  /** Keys (club and user) of the requests changed on disk since last taken: put, removed, or shown or hidden with their club. */
  readonly touched = new Touched()

  constructor(
    records: readonly JoinRequestRecord[],
    /** Whether a club is live; requests of any other club are gone. */
    private readonly isLive: (club: string) => boolean,
  ) {
    for (const record of records) this.#insert(record, this.#of(record.club).length)
  }

  /** The pending request of `username` to join `club`. */
  get(club: string, username: string): JoinRequestRecord | undefined {
    if (!this.isLive(club)) return undefined
    return this.#byClub.get(club)?.find((request) => request.username === username)
  }

  /** A club's pending requests, oldest first. */
  of(club: string): JoinRequestRecord[] {
    return this.isLive(club) ? [...(this.#byClub.get(club) ?? [])] : []
  }

  /** A user's pending requests, oldest first. */
  ofUser(username: string): JoinRequestRecord[] {
    const out: JoinRequestRecord[] = []
    for (const club of this.#byUser.get(username) ?? []) {
      const request = this.get(club, username)
      if (request) out.push(request)
    }
    return out.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0))
  }

  countOf(username: string): number {
    let n = 0
    for (const club of this.#byUser.get(username) ?? []) if (this.isLive(club)) n++
    return n
  }

  /** Records a new request (there is none of that user to that club); returns how to take it back. */
  add(record: JoinRequestRecord): Undo {
    this.#insert(record, this.#of(record.club).length)
    return () => this.#take(record.club, record.username)
  }

  /** Removes the user's request to the club, if there is one; returns how to put it back where it was. */
  settle(club: string, username: string): Undo {
    const at = this.#byClub.get(club)?.findIndex((request) => request.username === username) ?? -1
    if (at < 0) return NOTHING
    const record = this.#take(club, username)!
    // The journal undoes newest first, so the list is as this change left it and `at` is its old place.
    return () => this.#insert(record, at)
  }

  /** Puts the request of `username` to `club` as `record` says (null: none), as another instance left it. */
  put(club: string, username: string, record: JoinRequestRecord | null): void {
    const at = this.#byClub.get(club)?.findIndex((request) => request.username === username) ?? -1
    if (at >= 0) this.#take(club, username)
    if (record) this.#insert(record, at >= 0 ? at : this.#of(club).length)
  }

  /** Marks the requests of `club`, which come onto disk or leave it as the club joins or leaves the live ones. */
  liveChanged(club: string): void {
    for (const { username } of this.#byClub.get(club) ?? []) this.touched.mark(pair(club, username))
  }

  /** Every pending request of a live club, as the data file keeps them. */
  snapshot(): JoinRequestRecord[] {
    const out: JoinRequestRecord[] = []
    for (const [club, requests] of this.#byClub) if (this.isLive(club)) out.push(...requests)
    return out
  }

  #of(club: string): JoinRequestRecord[] {
    let requests = this.#byClub.get(club)
    if (!requests) this.#byClub.set(club, (requests = []))
    return requests
  }

  #insert(record: JoinRequestRecord, at: number): void {
    this.version++
    this.touched.mark(pair(record.club, record.username))
    this.#of(record.club).splice(at, 0, record)
    let clubs = this.#byUser.get(record.username)
    if (!clubs) this.#byUser.set(record.username, (clubs = new Set()))
    clubs.add(record.club)
  }

  #take(club: string, username: string): JoinRequestRecord | undefined {
    const requests = this.#byClub.get(club) ?? []
    const at = requests.findIndex((request) => request.username === username)
    if (at < 0) return undefined
    this.version++
    this.touched.mark(pair(club, username))
    const [record] = requests.splice(at, 1)
    this.#byUser.get(username)?.delete(club)
    return record
  }
}
