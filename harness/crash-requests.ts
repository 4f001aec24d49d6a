// Join requests among the crash rounds' writes (docs/reference.md §9, §12): each client has a user who,
// club by club, asks to join (with a message unique to that ask) and withdraws again. What the
// client knows of each (user, club) pair is kept here: a request acknowledged pending, one
// acknowledged gone, or one in flight when the process was killed (either may be true).

/** What is known of one user's request to one club. */
type Known =
  | { readonly state: 'pending'; readonly message: string }
  | { readonly state: 'absent' }
  /** In flight at the kill: pending with `message`, or absent. */
  | { readonly state: 'unknown'; readonly message: string }

/** The pending requests found (in the file, or through the service): by username, club → message. */
export type FoundRequests = ReadonlyMap<string, ReadonlyMap<string, string>>

/** One ask or withdrawal to send: its method and path, its body, and what its answer settles. */
export interface RequestOp {
  readonly method: 'POST' | 'DELETE'
  readonly path: string
  readonly body?: { readonly message: string }
  readonly expected: 201 | 204
  /** The answer came: the change was acknowledged (`true`) or refused. */
  answered(acknowledged: boolean): void
}

/** One client's user and what it knows of its requests. */
export class Asker {
  readonly #known = new Map<string, Known>()
  #turn = 0

  constructor(
    readonly username: string,
    readonly token: string,
  ) {}

  /** The next change to make, taking the clubs in turn; none while every club is in doubt. */
  next(codes: readonly string[], round: number): RequestOp | null {
    for (let tries = 0; tries < codes.length; tries++) {
      const club = codes[this.#turn++ % codes.length]!
      const known = this.#known.get(club) ?? { state: 'absent' }
      if (known.state === 'unknown') continue
      const path = `/api/clubs/${club}/requests/`
      if (known.state === 'pending') {
        this.#known.set(club, { state: 'unknown', message: known.message })
        return {
          method: 'DELETE',
          path: `${path}${this.username}/`,
          expected: 204,
          answered: (ok) => this.#known.set(club, ok ? { state: 'absent' } : known),
        }
      }
      const message = `crash~${this.username}~r${round}~${Math.random().toString(36).slice(2, 8)}`
      this.#known.set(club, { state: 'unknown', message })
      return {
        method: 'POST',
        path,
        body: { message },
        expected: 201,
        answered: (ok) => this.#known.set(club, ok ? { state: 'pending', message } : known),
      }
    }
    return null
  }

  /** Everything `found` holds that contradicts what was acknowledged, as problems. */
  check(where: string, found: FoundRequests, problems: string[]): void {
    const mine = found.get(this.username) ?? new Map<string, string>()
    for (const [club, known] of this.#known) {
      const message = mine.get(club)
      if (known.state === 'pending' && message !== known.message)
        problems.push(`${where}: ${this.username}'s acknowledged request to ${club} is ${message ?? 'missing'}`)
      if (known.state === 'absent' && message !== undefined)
        problems.push(`${where}: ${this.username}'s acknowledged withdrawal from ${club} is undone`)
      if (known.state === 'unknown' && message !== undefined && message !== known.message)
        problems.push(`${where}: ${this.username}'s request to ${club} holds ${message}, which was never sent`)
    }
    for (const [club, message] of mine)
      if (!this.#known.has(club))
        problems.push(`${where}: ${this.username} has a request to ${club} never made (${message})`)
  }

  /** After a restart, what the service holds is what is durable: requests in doubt are settled by it. */
  settle(found: FoundRequests): void {
    const mine = found.get(this.username)
    for (const [club, known] of this.#known) {
      if (known.state !== 'unknown') continue
      const message = mine?.get(club)
      this.#known.set(club, message === undefined ? { state: 'absent' } : { state: 'pending', message })
    }
  }
}

/** The requests of a snapshot's `requests` list, or of several users' own lists, as found requests. */
export function foundRequests(requests: readonly { club: string; username: string; message: string }[]) {
  const found = new Map<string, Map<string, string>>()
  for (const { club, username, message } of requests) {
    let mine = found.get(username)
    if (!mine) found.set(username, (mine = new Map()))
    mine.set(club, message)
  }
  return found
}
