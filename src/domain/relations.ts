import type { ClubLink, Membership, Role } from '../model/user'
import { pair, Touched } from './change-set'

/** A membership as kept in memory: every field, `title` "" and `public` false for one from before them. */
export type Seat = Required<Membership>

/** What a member is besides their role. */
export type SeatDetails = Pick<Seat, 'title' | 'public'>

/** A new member's details. */
export const NO_DETAILS: SeatDetails = { title: '', public: false }

/**
 * Pairs (club, user) kept both ways, for "is this user's", "this user's clubs" and "this club's
 * users" lookups. Each pair is its record, which never changes in place.
 */
export class LinkSet {
  #byUser = new Map<string, Map<string, ClubLink>>()
  #byClub = new Map<string, Map<string, ClubLink>>()
  /** Grows on every change. */
  version = 0
  /** Keys (club and user) of the links changed since last taken. */
  readonly touched = new Touched()

  constructor(links: readonly ClubLink[]) {
    for (const link of links) this.#put(link)
  }

  has(username: string, club: string): boolean {
    return this.#byUser.get(username)?.has(club) ?? false
  }

  /** Adds the link made at `at` (an ISO date-time; none when unknown). */
  add(username: string, club: string, at?: string): void {
    this.#put(at === undefined ? { club, username } : { club, username, created_at: at })
  }

  delete(username: string, club: string): boolean {
    this.version++
    this.touched.mark(pair(club, username))
    this.#byClub.get(club)?.delete(username)
    return this.#byUser.get(username)?.delete(club) ?? false
  }

  /** Adds (`on`, made at `at`) or removes the link; returns how to take that back. */
  change(username: string, club: string, on: boolean, at?: string): () => void {
    const had = this.#byUser.get(username)?.get(club)
    if (on) this.add(username, club, at)
    else this.delete(username, club)
    return () => (had ? this.#put(had) : this.delete(username, club))
  }

  clubsOf(username: string): Iterable<string> {
    return this.#byUser.get(username)?.keys() ?? []
  }

  /** The links to `club`, one per user. */
  linksTo(club: string): ClubLink[] {
    return [...(this.#byClub.get(club)?.values() ?? [])]
  }

  /** The user's link to the club, or null. */
  linkOf(username: string, club: string): ClubLink | null {
    return this.#byUser.get(username)?.get(club) ?? null
  }

  links(): ClubLink[] {
    const out: ClubLink[] = []
    for (const clubs of this.#byUser.values()) out.push(...clubs.values())
    return out
  }

  #put(link: ClubLink): void {
    put(this.#byUser, link.username, link.club, link)
    put(this.#byClub, link.club, link.username, link)
    this.version++
    this.touched.mark(pair(link.club, link.username))
  }
}

function put<V>(index: Map<string, Map<string, V>>, outer: string, inner: string, value: V): void {
  let map = index.get(outer)
  if (!map) index.set(outer, (map = new Map()))
  map.set(inner, value)
}

/** Who belongs to which club in which role (with their title), and who favorited or subscribed to what. */
export class Relations {
  #seats = new Map<string, Map<string, Seat>>()
  #clubsByUser = new Map<string, Map<string, Role>>()
  readonly favorites: LinkSet
  readonly subscriptions: LinkSet
  #version = 0
  /** Keys (club and user) of the memberships changed since last taken. */
  readonly touchedSeats = new Touched()

  constructor(data: {
    memberships: readonly Membership[]
    favorites: readonly ClubLink[]
    subscriptions: readonly ClubLink[]
  }) {
    for (const m of data.memberships) this.#seat({ ...m, title: m.title ?? '', public: m.public ?? false })
    this.favorites = new LinkSet(data.favorites)
    this.subscriptions = new LinkSet(data.subscriptions)
  }

  /** Grows on every change of a membership, a favorite or a subscription. */
  get version(): number {
    return this.#version + this.favorites.version + this.subscriptions.version
  }

  roleOf(username: string | null, club: string): Role | undefined {
    return username === null ? undefined : this.#clubsByUser.get(username)?.get(club)
  }

  seatOf(username: string, club: string): Seat | undefined {
    return this.#seats.get(club)?.get(username)
  }

  /** The user's clubs with their role in each. */
  clubsOf(username: string): ReadonlyMap<string, Role> {
    return this.#clubsByUser.get(username) ?? new Map()
  }

  members(club: string): Seat[] {
    return [...(this.#seats.get(club)?.values() ?? [])]
  }

  owners(club: string): number {
    let n = 0
    for (const seat of this.#seats.get(club)?.values() ?? []) if (seat.role === 'owner') n++
    return n
  }

  /**
   * Gives `username` a role in `club` (or none, with null), with `details` changed and their other
   * details kept ("" and false for a new member); returns how to take that back.
   */
  change(club: string, username: string, role: Role | null, details: Partial<SeatDetails> = {}): () => void {
    const previous = this.seatOf(username, club)
    if (role === null) this.#remove(club, username)
    else this.#seat({ ...NO_DETAILS, ...previous, ...details, club, username, role })
    return () => (previous ? this.#seat(previous) : this.#remove(club, username))
  }

  #seat(seat: Seat): void {
    this.#version++
    this.touchedSeats.mark(pair(seat.club, seat.username))
    put(this.#seats, seat.club, seat.username, seat)
    put(this.#clubsByUser, seat.username, seat.club, seat.role)
  }

  #remove(club: string, username: string): void {
    this.#version++
    this.touchedSeats.mark(pair(club, username))
    this.#seats.get(club)?.delete(username)
    this.#clubsByUser.get(username)?.delete(club)
  }

  snapshot(): { memberships: Membership[]; favorites: ClubLink[]; subscriptions: ClubLink[] } {
    const memberships: Membership[] = []
    for (const seats of this.#seats.values()) memberships.push(...seats.values())
    return { memberships, favorites: this.favorites.links(), subscriptions: this.subscriptions.links() }
  }
}
