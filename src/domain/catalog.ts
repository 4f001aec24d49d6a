import { fold } from './code'
import type { ClubRecord, Tag } from '../model/club'

/** How many orders are kept sorted at once; the least recently used one goes first. */
const SORTED_ORDERS = 16

/** A club with the keys derived from it once, when it is stored, rather than per request. */
export interface Entry {
  readonly record: ClubRecord
  /** Name folded for ordering as a person reads it (case and accents ignored). */
  readonly nameKey: string
  /** Folded name, subtitle, code and tag names, for search. */
  readonly haystack: string
}

/** A total order of clubs, named canonically ("-favorite_count,name") so it can be kept sorted. */
export interface Order {
  readonly key: string
  readonly compare: (a: Entry, b: Entry) => number
}

const nameIdentity = (name: string) => name.normalize('NFC').toLowerCase()

/**
 * Every club and tag in memory, indexed by code and by name. Records are immutable: a change
 * stores a new record, so caches keyed by record or by `version` never see stale data.
 */
export class Catalog {
  #entries = new Map<string, Entry>()
  #names = new Map<string, string>()
  #tags = new Map<number, Tag>()
  #tagsByName = new Map<string, Tag>()
  #version = 0
  /** Live clubs in each order asked for, kept in order on every change instead of sorted per request. */
  #sorted = new Map<string, { order: Order; entries: Entry[] }>()

  constructor(clubs: readonly ClubRecord[], tags: readonly Tag[]) {
    for (const tag of tags) {
      this.#tags.set(tag.id, tag)
      this.#tagsByName.set(tag.name.toLowerCase(), tag)
    }
    for (const club of clubs) this.put(club)
  }

  /** Grows on every change; representations cached under one version stay valid until it moves. */
  get version(): number {
    return this.#version
  }

  /** Live clubs in `order`. */
  sortedBy(order: Order): readonly Entry[] {
    let view = this.#sorted.get(order.key)
    if (view) {
      this.#sorted.delete(order.key) // re-inserted below: most recently used last
    } else {
      view = { order, entries: [...this.live()].sort(order.compare) }
      if (this.#sorted.size >= SORTED_ORDERS) this.#sorted.delete(this.#sorted.keys().next().value!)
    }
    this.#sorted.set(order.key, view)
    return view.entries
  }

  /** Live (not archived) clubs. */
  *live(): Iterable<Entry> {
    for (const entry of this.#entries.values()) if (entry.record.archived_at === null) yield entry
  }

  countLive(): number {
    let n = 0
    for (const _ of this.live()) n++
    return n
  }

  get(code: string): Entry | undefined {
    const entry = this.#entries.get(code)
    return entry && entry.record.archived_at === null ? entry : undefined
  }

  /** Codes stay reserved after a club is archived. */
  hasCode(code: string): boolean {
    return this.#entries.has(code)
  }

  /** The code of the live club with this name, ignoring case. */
  codeForName(name: string): string | undefined {
    return this.#names.get(nameIdentity(name))
  }

  tag(id: number): Tag | undefined {
    return this.#tags.get(id)
  }

  tagByName(name: string): Tag | undefined {
    return this.#tagsByName.get(name.toLowerCase())
  }

  tags(): Tag[] {
    return [...this.#tags.values()]
  }

  /** Stores `record`, replacing the club with its code; returns how to take that back. */
  change(record: ClubRecord): () => void {
    const previous = this.put(record)
    return () => this.#revert(record, previous)
  }

  /** Stores `record`, replacing the club with its code; returns the record it replaced. */
  put(record: ClubRecord): ClubRecord | undefined {
    const previous = this.#entries.get(record.code)?.record
    if (previous && previous.archived_at === null) this.#names.delete(nameIdentity(previous.name))
    if (record.archived_at === null) this.#names.set(nameIdentity(record.name), record.code)
    const entry = this.#entry(record)
    this.#resort(this.#entries.get(record.code), entry)
    this.#entries.set(record.code, entry)
    this.#version++
    return previous
  }

  /** Moves a changed club to its place in every kept order: out where it was, in where it now goes. */
  #resort(before: Entry | undefined, after: Entry | undefined): void {
    for (const { order, entries } of this.#sorted.values()) {
      if (before && before.record.archived_at === null) {
        const at = entries.indexOf(before)
        if (at >= 0) entries.splice(at, 1)
      }
      if (after && after.record.archived_at === null) {
        let low = 0
        let high = entries.length
        while (low < high) {
          const mid = (low + high) >>> 1
          if (order.compare(entries[mid]!, after) < 0) low = mid + 1
          else high = mid
        }
        entries.splice(low, 0, after)
      }
    }
  }

  /** Takes back a `put` (the journal undoes changes newest first, so `record` is the current one). */
  #revert(record: ClubRecord, previous: ClubRecord | undefined): void {
    if (previous) {
      this.put(previous)
      return
    }
    if (record.archived_at === null) this.#names.delete(nameIdentity(record.name))
    this.#resort(this.#entries.get(record.code), undefined)
    this.#entries.delete(record.code)
    this.#version++
  }

  /** Every club (archived ones too) and tag, as the data file keeps them. */
  snapshot(): { clubs: ClubRecord[]; tags: Tag[] } {
    return { clubs: Array.from(this.#entries.values(), (e) => e.record), tags: this.tags() }
  }

  #entry(record: ClubRecord): Entry {
    const tagNames = record.tags.map((id) => this.#tags.get(id)?.name ?? '')
    return {
      record,
      nameKey: fold(record.name),
      haystack: fold([record.name, record.subtitle, record.code, ...tagNames].join('\n')),
    }
  }
}
