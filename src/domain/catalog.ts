import { fold } from './code'
import { weekIndex, type WeekIndex } from './week-index'
import { meetingWeek, type MeetingWeek } from './week-slots'
import type { ClubRecord, Tag } from '../model/club'
import { Touched } from './change-set'
import { TermMatches } from './term-matches'

/** How many orders are kept sorted at once; the least recently used one goes first. */
const SORTED_ORDERS = 16

/** A club with the keys derived from it once, when it is stored, rather than per request. */
export interface Entry {
  readonly record: ClubRecord
  /** Name folded for ordering as a person reads it (case and accents ignored). */
  readonly nameKey: string
  /** Folded name, subtitle, code and tag names, for search (docs/reference.md §16): made on the first search that needs it. */
  readonly haystack: string
  /** Folded description, for search (docs/reference.md §16): made on the first search that needs it. */
  readonly description: string
  /** Its meetings as minute ranges per weekday, for `meets_on`, `free` and timetables (docs/reference.md §24). */
  readonly week: MeetingWeek
  /**
   * Its number among the catalog's entries, small and dense, for arrays indexed by club such as the
   * week index: twice its club's slot number for the record as it stands, one more for a distinct
   * public version. A club keeps its slot number while it is stored; only a removed club's is reused.
   */
  readonly position: number
}

/** The week index of a catalog's state, and the entry each of its positions indexes (none where it indexes nothing). */
export interface WeekIndexed {
  readonly index: WeekIndex
  readonly entries: readonly (Entry | undefined)[]
}

/** A total order of clubs, named canonically ("-favorite_count,name") so it can be kept sorted. */
export interface Order {
  readonly key: string
  readonly compare: (a: Entry, b: Entry) => number
}

/**
 * Which record of a club a caller is shown: `current`, the record as it stands (admins, the
 * club's officers), or `public`, its approved version while a change awaits review (docs/reference.md §11).
 */
export type View = 'current' | 'public'

/** A club's entry in each view; `public` is absent for a club never approved. */
interface Slot {
  /** The club's slot number (see `Entry.position`). */
  readonly number: number
  readonly current: Entry
  readonly public: Entry | undefined
}

const nameIdentity = (name: string) => name.normalize('NFC').toLowerCase()

/**
 * The record the public is shown: the record itself once approved (the same object, so its
 * cached answers are shared), its approved version while a change awaits review, or none.
 */
function publicRecordOf(record: ClubRecord): ClubRecord | undefined {
  if (record.approved) return record
  const version = record.approved_version
  if (!version) return undefined
  return { ...record, ...version, approved: true, approved_version: null }
}

/** The names a club holds: its own, and its approved version's (docs/reference.md §11). */
const namesOf = (record: ClubRecord) =>
  record.approved_version ? [record.name, record.approved_version.name] : [record.name]

/**
 * Every club and tag in memory, indexed by code and by name, in both views. Records are
 * immutable: a change stores a new record, so caches keyed by record or by `version` never see
 * stale data.
 */
export class Catalog {
  #slots = new Map<string, Slot>()
  #names = new Map<string, string>()
  #tags = new Map<number, Tag>()
  #tagsByName = new Map<string, Tag>()
  #version = 0
  /** Codes of the clubs changed since last taken. */
  readonly touched = new Touched()
  /** Ids of the tags changed since last taken. */
  readonly touchedTags = new Touched()
  /** Live clubs of a view in each order asked for, kept in order on every change instead of sorted per request. */
  #sorted = new Map<string, { view: View; order: Order; entries: Entry[] }>()
  /** Slot numbers: the next new one, and those of removed clubs, to reuse. */
  #slotNumbers = 0
  #freeSlotNumbers: number[] = []
  /** Each entry by its position (see `Entry.position`), archived ones too. */
  #byPosition: (Entry | undefined)[] = []
  /** The entries holding each search term asked for lately, kept up to date a changed position at a time. */
  readonly #matches = new TermMatches((position, term) => {
    const entry = this.#byPosition[position]
    return entry !== undefined && (entry.haystack.includes(term) || entry.description.includes(term))
  })
  /** The week index of one state (`version`), made on the first call after a change. */
  #weekIndexed: { version: number; indexed: WeekIndexed } | null = null
  /** Told the code of each club about to change, while a change set is being recorded. */
  #beforeChange: ((code: string) => void) | null = null
  /** Told the code of each club that joins or leaves the live ones (made, archived, put back, removed). */
  #liveChanged: (code: string) => void = () => {}

  constructor(clubs: readonly ClubRecord[], tags: readonly Tag[]) {
    for (const tag of tags) this.#setTag(tag.id, tag)
    for (const club of clubs) this.put(club)
  }

  /** Grows on every change; representations cached under one version stay valid until it moves. */
  get version(): number {
    return this.#version
  }

  /** Live clubs of `view` in `order`. */
  sortedBy(order: Order, view: View = 'current'): readonly Entry[] {
    const key = `${view} ${order.key}`
    let sorted = this.#sorted.get(key)
    if (sorted) {
      this.#sorted.delete(key) // re-inserted below: most recently used last
    } else {
      sorted = { view, order, entries: [...this.live(view)].sort(order.compare) }
      if (this.#sorted.size >= SORTED_ORDERS) this.#sorted.delete(this.#sorted.keys().next().value!)
    }
    this.#sorted.set(key, sorted)
    return sorted.entries
  }

  /**
   * The meetings of every live club, in both views, indexed for `free=` (docs/reference.md §24): made on the
   * first call after a change and kept until the next, so writes never pay for it and one index
   * is kept at a time. Entries of another state are not its `entries`: check before reading a mark.
   */
  weekIndexed(): WeekIndexed {
    const kept = this.#weekIndexed
    if (kept && kept.version === this.#version) return kept.indexed
    const entries = Array.from({ length: 2 * this.#slotNumbers }, (_, position) => {
      const entry = this.#byPosition[position]
      return entry && isLive(entry) ? entry : undefined
    })
    const index = weekIndex(entries.map((entry) => entry?.week))
    for (let p = 0; p < entries.length; p++) if (!index.covers(p)) entries[p] = undefined
    const indexed = { index, entries }
    this.#weekIndexed = { version: this.#version, indexed }
    return indexed
  }

  /** Live (not archived) clubs, as `view` shows them. */
  *live(view: View = 'current'): Iterable<Entry> {
    for (const slot of this.#slots.values()) {
      const entry = slot[view]
      if (entry && isLive(entry)) yield entry
    }
  }

  /** Every club, archived ones too, as it stands. */
  *records(): Iterable<ClubRecord> {
    for (const slot of this.#slots.values()) yield slot.current.record
  }

  countLive(): number {
    let n = 0
    for (const _ of this.live()) n++
    return n
  }

  /** A live club as `view` shows it. */
  get(code: string, view: View = 'current'): Entry | undefined {
    const entry = this.#slots.get(code)?.[view]
    return entry && isLive(entry) ? entry : undefined
  }

  /** The club `code` as the data file keeps it, archived ones too. */
  stored(code: string): ClubRecord | undefined {
    return this.#slots.get(code)?.current.record
  }

  /** Codes stay reserved after a club is archived. */
  hasCode(code: string): boolean {
    return this.#slots.has(code)
  }

  /** The code of the live club that holds this name (its own or its approved version's), ignoring case. */
  codeForName(name: string): string | undefined {
    return this.#names.get(nameIdentity(name))
  }

  tag(id: number): Tag | undefined {
    return this.#tags.get(id)
  }

  /** The tag with this name, ignoring case. */
  tagByName(name: string): Tag | undefined {
    return this.#tagsByName.get(nameIdentity(name))
  }

  tags(): Tag[] {
    return [...this.#tags.values()]
  }

  /**
   * Adds tag `id`, renames it, or (with null) removes it, and stores `restamp(record)` in place of
   * every club (archived ones too) that carries it; returns how to take all of that back. Each club's
   * search text follows the tag's new name, and new records keep caches kept per record correct.
   */
  changeTag(id: number, tag: Tag | null, restamp: (record: ClubRecord) => ClubRecord): () => void {
    const before = this.#tags.get(id) ?? null
    const carriers = [...this.#slots.values()].map((slot) => slot.current.record).filter((r) => r.tags.includes(id))
    // Told before the name changes, so what they showed is seen with the old name.
    for (const record of carriers) this.#beforeChange?.(record.code)
    this.#setTag(id, tag)
    for (const record of carriers) this.put(restamp(record))
    this.#version++
    return () => {
      // The name first, so the records put back are indexed under it.
      this.#setTag(id, before)
      for (const record of carriers) this.put(record)
      this.#version++
    }
  }

  #setTag(id: number, tag: Tag | null): void {
    this.touchedTags.mark(String(id))
    const before = this.#tags.get(id)
    if (before && this.#tagsByName.get(nameIdentity(before.name)) === before)
      this.#tagsByName.delete(nameIdentity(before.name))
    if (!tag) {
      this.#tags.delete(id)
      return
    }
    this.#tags.set(id, tag)
    this.#tagsByName.set(nameIdentity(tag.name), tag)
  }

  /** Stores `record`, replacing the club with its code; returns how to take that back. */
  change(record: ClubRecord): () => void {
    const previous = this.put(record)
    return () => this.#revert(record, previous)
  }

  /** Stores `record`, replacing the club with its code; returns the record it replaced. */
  put(record: ClubRecord): ClubRecord | undefined {
    this.#beforeChange?.(record.code)
    this.touched.mark(record.code)
    const before = this.#slots.get(record.code)
    const previous = before?.current.record
    if (previous) this.#releaseNames(previous)
    if (record.archived_at === null)
      for (const name of namesOf(record)) this.#names.set(nameIdentity(name), record.code)
    const publicRecord = publicRecordOf(record)
    const number = before?.number ?? this.#freeSlotNumbers.pop() ?? this.#slotNumbers++
    const current = this.#entry(record, 2 * number)
    const slot: Slot = {
      number,
      current,
      public: publicRecord === record ? current : publicRecord && this.#entry(publicRecord, 2 * number + 1),
    }
    this.#resort(before, slot)
    this.#slots.set(record.code, slot)
    this.#place(number, slot)
    if ((before !== undefined && isLive(before.current)) !== isLive(current)) this.#liveChanged(record.code)
    return previous
  }

  /** Forgets the club `code` altogether (another instance took back its creation). */
  remove(code: string): void {
    const slot = this.#slots.get(code)
    if (!slot) return
    this.#beforeChange?.(code)
    this.touched.mark(code)
    this.#releaseNames(slot.current.record)
    this.#resort(slot, undefined)
    this.#slots.delete(code)
    this.#freeSlotNumbers.push(slot.number)
    this.#place(slot.number, undefined)
    if (isLive(slot.current)) this.#liveChanged(code)
  }

  /** Tells `listener` the code of each club that joins or leaves the live ones from now on: what is kept of live clubs alone follows. */
  onLiveChange(listener: (code: string) => void): void {
    this.#liveChanged = listener
  }

  /** The entries holding search term `term` (folded), by position: 1 at each one's (docs/reference.md §16). */
  holding(term: string): Uint8Array {
    return this.#matches.of(term, this.#version, 2 * this.#slotNumbers)
  }

  /** Puts slot `number`'s entries (none: the club is gone) at their positions, as a new version. */
  #place(number: number, slot: Slot | undefined): void {
    this.#version++
    this.#byPosition[2 * number] = slot?.current
    this.#byPosition[2 * number + 1] = slot?.public === slot?.current ? undefined : slot?.public
    this.#matches.changed(2 * number, this.#version)
    this.#matches.changed(2 * number + 1, this.#version)
  }

  #releaseNames(record: ClubRecord): void {
    for (const name of namesOf(record)) {
      const identity = nameIdentity(name)
      if (this.#names.get(identity) === record.code) this.#names.delete(identity)
    }
  }

  /** Moves a changed club to its place in every kept order of each view: out where it was, in where it now goes. */
  #resort(before: Slot | undefined, after: Slot | undefined): void {
    for (const { view, order, entries } of this.#sorted.values()) {
      const out = before?.[view]
      if (out && isLive(out)) {
        const at = entries.indexOf(out)
        if (at >= 0) entries.splice(at, 1)
      }
      const into = after?.[view]
      if (into && isLive(into)) {
        let low = 0
        let high = entries.length
        while (low < high) {
          const mid = (low + high) >>> 1
          if (order.compare(entries[mid]!, into) < 0) low = mid + 1
          else high = mid
        }
        entries.splice(low, 0, into)
      }
    }
  }

  /** Takes back a `put` (the journal undoes changes newest first, so `record` is the current one). */
  #revert(record: ClubRecord, previous: ClubRecord | undefined): void {
    if (previous) {
      this.put(previous)
      return
    }
    this.remove(record.code)
  }

  /**
   * Runs `change`, telling `beforeChange` the code of each club it is about to change (maybe
   * more than once), before it changes: the one place a write's effect on the clubs is seen.
   */
  observing<T>(beforeChange: (code: string) => void, change: () => T): T {
    this.#beforeChange = beforeChange
    try {
      return change()
    } finally {
      this.#beforeChange = null
    }
  }

  /** Every club (archived ones too) and tag, as the data file keeps them. */
  snapshot(): { clubs: ClubRecord[]; tags: Tag[] } {
    return { clubs: Array.from(this.#slots.values(), (slot) => slot.current.record), tags: this.tags() }
  }

  #entry(record: ClubRecord, position: number): Entry {
    return new CatalogEntry(record, fold(record.name), meetingWeek(record.meetings), position, this.#tags)
  }
}

/**
 * An entry as the catalog keeps one per club: its search text and its description folded on the
 * first search that needs them, by getters of the class (a getter of its own per entry cost three
 * objects each, some 15 MB at 100,000 clubs; search texts folded for every club as it was stored
 * cost some 60 MB of RSS there, their garbage's holes with them, for a service that may never be
 * searched).
 */
class CatalogEntry implements Entry {
  #haystack: string | undefined
  #description: string | undefined

  constructor(
    readonly record: ClubRecord,
    readonly nameKey: string,
    readonly week: MeetingWeek,
    readonly position: number,
    /** The catalog's tags: a tag renamed or removed stores its clubs anew (Catalog.changeTag), so the names read are the entry's own. */
    private readonly catalogTags: ReadonlyMap<number, Tag>,
  ) {}

  get haystack(): string {
    return (this.#haystack ??= searchText(this.record, this.catalogTags))
  }

  get description(): string {
    return (this.#description ??= fold(this.record.description))
  }
}

/** A club's folded name, subtitle, code and tag names, a line each. */
function searchText({ name, subtitle, code, tags }: ClubRecord, catalogTags: ReadonlyMap<number, Tag>): string {
  return fold([name, subtitle, code, ...tags.map((id) => catalogTags.get(id)?.name ?? '')].join('\n'))
}

const isLive = (entry: Entry) => entry.record.archived_at === null
