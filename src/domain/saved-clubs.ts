import { requireUser, type Caller } from './caller'
import { NotFound, ValidationFailed } from './errors'
import { BodyCheck, refuseIfAny } from './check'
import type { Commit } from './journal'
import type { ClubRecord } from '../model/club'
import { SavedClubWrite } from '../model/user'
import type { LinkSet } from './relations'
import type { Catalog } from './catalog'
import type { ClubService } from './clubs'

export interface SavedKind {
  /** "favorite" or "subscription", for messages. */
  readonly noun: string
  readonly links: LinkSet
  /** The club's count that follows these links, if any. */
  readonly counter?: 'favorite_count'
  /** Why a club cannot take a link, if it cannot. */
  readonly refuses?: (club: ClubRecord) => string | null
}

const NAME_A_CLUB = 'Name a club by its code: {"club": "<code>"}.'
/** The body that saves a club, with this service's words. */
export const SAVED_CLUB_BODY = new BodyCheck(SavedClubWrite, {
  notAnObject: 'Send an object: {"club": "<code>"}.',
  fields: { club: { invalid: NAME_A_CLUB, required: NAME_A_CLUB } },
})

/** A caller's saved clubs, favorites or subscriptions: `{club}` entries for clubs they can see. */
export class SavedClubs {
  constructor(
    private readonly clubs: ClubService,
    private readonly catalog: Catalog,
    private readonly kind: SavedKind,
    private readonly commit: Commit,
    private readonly now: () => Date,
  ) {}

  list(caller: Caller): ClubRecord[] {
    const user = requireUser(caller)
    const out: ClubRecord[] = []
    for (const code of this.kind.links.clubsOf(user.username)) {
      const shown = this.clubs.shownTo(user, code)
      if (shown) out.push(shown)
    }
    return out.sort((a, b) => (a.code < b.code ? -1 : 1))
  }

  async add(caller: Caller, body: unknown): Promise<ClubRecord> {
    const user = requireUser(caller)
    const club = this.#clubNamedIn(user, body)
    if (this.kind.links.has(user.username, club.code))
      throw new ValidationFailed({ club: [`This club is already a ${this.kind.noun}.`] })
    const refusal = this.kind.refuses?.(club)
    if (refusal) throw new ValidationFailed({ club: [refusal] })
    await this.#change(user.username, club.code, true)
    return this.clubs.shownTo(user, club.code)!
  }

  async remove(caller: Caller, code: string): Promise<void> {
    const user = requireUser(caller)
    if (!this.catalog.get(code) || !this.kind.links.has(user.username, code)) throw new NotFound()
    await this.#change(user.username, code, false)
  }

  /**
   * Adds (noting when) or removes the link, and moves the club's counter (on its current record,
   * whatever the caller is shown).
   */
  async #change(username: string, code: string, on: boolean): Promise<void> {
    const counter = this.kind.counter
    const club = this.catalog.get(code)!.record
    const at = on ? this.now().toISOString() : undefined
    await this.commit(() => [
      this.kind.links.change(username, code, on, at),
      ...(counter ? [this.catalog.change({ ...club, [counter]: Math.max(0, club[counter] + (on ? 1 : -1)) })] : []),
    ])
  }

  #clubNamedIn(caller: Caller, body: unknown): ClubRecord {
    const { fields, errors } = SAVED_CLUB_BODY.check(body)
    const code = fields.club
    if (code !== undefined) {
      const shown = this.clubs.shownTo(caller, code)
      if (shown) {
        refuseIfAny(errors)
        return shown
      }
      errors.club = [`No club has the code "${code}".`]
    }
    throw new ValidationFailed(errors)
  }
}
