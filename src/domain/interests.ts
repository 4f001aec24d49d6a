import { randomUUID } from 'node:crypto'
import { ANONYMOUS, type Caller } from './caller'
import type { FieldErrors } from './check'
import { Touched } from './change-set'
import type { ClubService } from './clubs'
import { NotFound, ValidationFailed } from './errors'
import type { Commit } from './journal'
import type { Undo } from './undo'
import { MAX_INTEREST_EMAIL, MAX_INTEREST_NAME, type InterestRecord } from '../model/interest'

/** An entry is removed a year after it was made (docs/reference.md §23): 365 days. */
export const INTEREST_KEPT_MS = 365 * 24 * 60 * 60 * 1000

/** What an officer reads of an entry: everything but the club, which they asked for. */
export type Interested = Omit<InterestRecord, 'club'>

/** What someone sends from a club's page: the form's fields as they came. */
export interface InterestForm {
  readonly name: unknown
  readonly email: unknown
  /** True only when the consent box was ticked. */
  readonly consent: unknown
}

const CONTROL = /\p{Cc}/u
/**
 * A plausible address, not a proof of one: one `@` with something before it, a domain holding a
 * dot with something on each side, no spaces or control characters (tested apart), at most 254
 * characters.
 */
const PLAUSIBLE_EMAIL = /^[^\s@]+@[^\s@.][^\s@]*\.[^\s@]*[^\s@.]$/

export const INTEREST_WORDS = {
  name: `Enter your name (at most ${MAX_INTEREST_NAME} characters).`,
  nameControl: 'Your name cannot hold line breaks or other control characters.',
  email: 'Enter an e-mail address such as name@example.edu.',
  consent: 'Tick the box to agree that the club keeps your name and address, or the club cannot keep them.',
  closed: 'This club is not taking new members, so it keeps no list of interested students.',
}

/**
 * Students who are interested in a club without an account (docs/reference.md §23): a name and an e-mail
 * address given with consent on the club's page, for a public club that accepts members. Its
 * owners, officers and admins read and delete them; each is removed a year after it was made (a
 * sweep: `expired`, `sweep`). The same address given again for the same club keeps one entry,
 * updated: the new name, and made anew (its year counts from the latest consent).
 */
export class InterestService {
  readonly #byId = new Map<string, InterestRecord>()
  /** Ids of the entries changed since last taken. */
  readonly touched = new Touched()

  constructor(
    records: readonly InterestRecord[],
    private readonly clubs: ClubService,
    private readonly commit: Commit,
    private readonly now: () => Date,
    /** Whether the directory has a club of this code, in any state. */
    private readonly exists: (code: string) => boolean,
  ) {
    for (const record of records) this.put(record.id, record)
  }

  /** Whether the club takes entries: the public sees it, and it accepts members. */
  accepts(code: string): boolean {
    return this.clubs.shownTo(ANONYMOUS, code)?.accepting_members === true
  }

  /** Checks a form from the club's page and keeps its entry; a 404 for a club the public cannot see, a 400 naming each bad field. */
  async add(code: string, form: InterestForm): Promise<Interested> {
    const club = this.clubs.retrieve(ANONYMOUS, code)
    if (!club.accepting_members) throw new ValidationFailed({ club: [INTEREST_WORDS.closed] })
    const errors: FieldErrors = {}
    const name = typeof form.name === 'string' ? form.name.trim() : ''
    if (name.length === 0 || name.length > MAX_INTEREST_NAME) errors.name = [INTEREST_WORDS.name]
    else if (CONTROL.test(name)) errors.name = [INTEREST_WORDS.nameControl]
    const email = typeof form.email === 'string' ? form.email.trim() : ''
    if (email.length > MAX_INTEREST_EMAIL || !PLAUSIBLE_EMAIL.test(email) || CONTROL.test(email))
      errors.email = [INTEREST_WORDS.email]
    if (form.consent !== true) errors.consent = [INTEREST_WORDS.consent]
    if (Object.keys(errors).length) throw new ValidationFailed(errors)
    const at = this.now().toISOString()
    const same = this.#entriesOf(club.code).find((entry) => entry.email.toLowerCase() === email.toLowerCase())
    const record: InterestRecord = { id: same?.id ?? randomUUID(), club: club.code, name, email, created_at: at }
    await this.commit(() => this.#put([record]))
    return shown(record)
  }

  /** A club's entries, newest first, for its owners, officers and admins (401, 404, 403 otherwise). */
  list(caller: Caller, code: string): Interested[] {
    const club = this.clubs.editable(caller, code)
    const since = this.#oldestKept()
    return this.#entriesOf(club.code)
      .filter((entry) => entry.created_at >= since)
      .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? -1 : 1))
      .map(shown)
  }

  /** Deletes one of a club's entries (its owners, officers, admins); a 404 when the club has none by that id. */
  async remove(caller: Caller, code: string, id: string): Promise<void> {
    const club = this.clubs.editable(caller, code)
    const record = this.#byId.get(id)
    if (!record || record.club !== club.code) throw new NotFound()
    await this.commit(() => this.#drop([record]))
  }

  /** The entries a year old or more, and those of clubs gone from the directory. */
  expired(): InterestRecord[] {
    const since = this.#oldestKept()
    return [...this.#byId.values()].filter((entry) => entry.created_at < since || !this.exists(entry.club))
  }

  /** Removes every expired entry in one write; answers how many went (none: no write). */
  async sweep(): Promise<number> {
    const gone = this.expired()
    if (gone.length > 0) await this.commit(() => this.#drop(this.expired()))
    return gone.length
  }

  /** Puts the entry `id` as another instance left it (null: deleted). */
  put(id: string, record: InterestRecord | null): void {
    this.touched.mark(id)
    if (record) this.#byId.set(id, record)
    else this.#byId.delete(id)
  }

  /** The entry `id` as the data file keeps it, expired or not (null: none). */
  stored(id: string): InterestRecord | null {
    return this.#byId.get(id) ?? null
  }

  snapshot(): InterestRecord[] {
    return [...this.#byId.values()]
  }

  /** ISO time: entries made before it are more than a year old. */
  #oldestKept(): string {
    return new Date(this.now().getTime() - INTEREST_KEPT_MS).toISOString()
  }

  #entriesOf(code: string): InterestRecord[] {
    return [...this.#byId.values()].filter((entry) => entry.club === code)
  }

  /** Puts `records` in (each replacing the one of its id); answers the undo. */
  #put(records: readonly InterestRecord[]): Undo {
    const before = records.map((record) => [record.id, this.#byId.get(record.id)] as const)
    for (const record of records) this.put(record.id, record)
    return () => {
      for (const [id, was] of before) this.put(id, was ?? null)
    }
  }

  /** Takes `records` out; answers the undo. */
  #drop(records: readonly InterestRecord[]): Undo {
    for (const record of records) this.put(record.id, null)
    return () => {
      for (const record of records) this.put(record.id, record)
    }
  }
}

const shown = ({ id, name, email, created_at }: InterestRecord): Interested => ({ id, name, email, created_at })
