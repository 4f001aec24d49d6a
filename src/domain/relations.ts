import type { ClubLink, Membership, Role } from '../model/user'

/** Pairs (club, user) kept both ways, for "is this user's" and "this user's clubs" lookups. */
export class LinkSet {
  #byUser = new Map<string, Set<string>>()
  /** Grows on every change. */
  version = 0

  constructor(links: readonly ClubLink[]) {
    for (const link of links) this.add(link.username, link.club)
  }

  has(username: string, club: string): boolean {
    return this.#byUser.get(username)?.has(club) ?? false
  }

  add(username: string, club: string): void {
    let clubs = this.#byUser.get(username)
    if (!clubs) this.#byUser.set(username, (clubs = new Set()))
    clubs.add(club)
    this.version++
  }

  delete(username: string, club: string): boolean {
    this.version++
    return this.#byUser.get(username)?.delete(club) ?? false
  }

  /** Adds (`on`) or removes the link; returns how to take that back. */
  change(username: string, club: string, on: boolean): () => void {
    const had = this.has(username, club)
    if (on) this.add(username, club)
    else this.delete(username, club)
    return () => (had ? this.add(username, club) : this.delete(username, club))
  }

  clubsOf(username: string): ReadonlySet<string> {
    return this.#byUser.get(username) ?? EMPTY
  }

  links(): ClubLink[] {
    const out: ClubLink[] = []
    for (const [username, clubs] of this.#byUser) for (const club of clubs) out.push({ club, username })
    return out
  }
}

const EMPTY: ReadonlySet<string> = new Set()

/** Who belongs to which club in which role, and who favorited or subscribed to what. */
export class Relations {
  #roles = new Map<string, Map<string, Role>>()
  #clubsByUser = new Map<string, Map<string, Role>>()
  readonly favorites: LinkSet
  readonly subscriptions: LinkSet
  #version = 0

  constructor(data: {
    memberships: readonly Membership[]
    favorites: readonly ClubLink[]
    subscriptions: readonly ClubLink[]
  }) {
    for (const m of data.memberships) this.setRole(m.club, m.username, m.role)
    this.favorites = new LinkSet(data.favorites)
    this.subscriptions = new LinkSet(data.subscriptions)
  }

  /** Grows on every change of a role, a favorite or a subscription. */
  get version(): number {
    return this.#version + this.favorites.version + this.subscriptions.version
  }

  roleOf(username: string | null, club: string): Role | undefined {
    return username === null ? undefined : this.#clubsByUser.get(username)?.get(club)
  }

  /** The user's clubs with their role in each. */
  clubsOf(username: string): ReadonlyMap<string, Role> {
    return this.#clubsByUser.get(username) ?? new Map()
  }

  members(club: string): { username: string; role: Role }[] {
    return [...(this.#roles.get(club) ?? new Map<string, Role>())].map(([username, role]) => ({ username, role }))
  }

  owners(club: string): number {
    let n = 0
    for (const role of this.#roles.get(club)?.values() ?? []) if (role === 'owner') n++
    return n
  }

  setRole(club: string, username: string, role: Role): void {
    this.#version++
    let roles = this.#roles.get(club)
    if (!roles) this.#roles.set(club, (roles = new Map()))
    roles.set(username, role)
    let clubs = this.#clubsByUser.get(username)
    if (!clubs) this.#clubsByUser.set(username, (clubs = new Map()))
    clubs.set(club, role)
  }

  /** Gives `username` a role in `club` (or none, with null); returns how to take that back. */
  change(club: string, username: string, role: Role | null): () => void {
    const previous = this.roleOf(username, club)
    if (role === null) this.removeMember(club, username)
    else this.setRole(club, username, role)
    return () => (previous ? this.setRole(club, username, previous) : this.removeMember(club, username))
  }

  removeMember(club: string, username: string): void {
    this.#version++
    this.#roles.get(club)?.delete(username)
    this.#clubsByUser.get(username)?.delete(club)
  }

  snapshot(): { memberships: Membership[]; favorites: ClubLink[]; subscriptions: ClubLink[] } {
    const memberships: Membership[] = []
    for (const [club, roles] of this.#roles)
      for (const [username, role] of roles) memberships.push({ club, username, role })
    return { memberships, favorites: this.favorites.links(), subscriptions: this.subscriptions.links() }
  }
}
