import type { HistoryEntry, HistoryRecord } from '../model/history'
import type { Undo } from './undo'
import { pair, Touched } from './change-set'

/** Every club's approval history, append-only (docs/reference.md §11); an append can be taken back until it is on disk. */
export class History {
  #byClub = new Map<string, HistoryRecord[]>()
  /** Keys (club and place) of the events changed since last taken. */
  readonly touched = new Touched()

  constructor(records: readonly HistoryRecord[]) {
    for (const record of records) this.#eventsOf(record.club).push(record)
  }

  /** Records `record`; returns how to take it back (the journal undoes newest first). */
  append(record: HistoryRecord): Undo {
    const events = this.#eventsOf(record.club)
    events.push(record)
    this.touched.mark(pair(record.club, events.length - 1))
    return () => {
      if (events.at(-1) === record) events.pop()
    }
  }

  /** A club's events, newest first. */
  of(club: string): HistoryEntry[] {
    return (this.#byClub.get(club) ?? []).map(({ club: _, ...entry }) => entry).reverse()
  }

  /** A club's newest event that `matches`, or null. */
  latest(club: string, matches: (entry: HistoryEntry) => boolean): HistoryEntry | null {
    const events = this.#byClub.get(club) ?? []
    for (let i = events.length - 1; i >= 0; i--) {
      const { club: _, ...entry } = events[i]!
      if (matches(entry)) return entry
    }
    return null
  }

  /** Where `record` stands among its club's events, oldest first (-1: not there). */
  position(record: HistoryRecord): number {
    return this.#byClub.get(record.club)?.indexOf(record) ?? -1
  }

  /** Sets the club's event at `index` (one past the last appends), or with null removes the last. */
  put(club: string, index: number, record: HistoryRecord | null): void {
    const events = this.#eventsOf(club)
    this.touched.mark(pair(club, index))
    if (record) events[Math.min(index, events.length)] = record
    else if (index === events.length - 1) events.pop()
  }

  /** The club's event at `index`, oldest first, or null. */
  at(club: string, index: number): HistoryRecord | null {
    return this.#byClub.get(club)?.[index] ?? null
  }

  snapshot(): HistoryRecord[] {
    return [...this.#byClub.values()].flat()
  }

  #eventsOf(club: string): HistoryRecord[] {
    let events = this.#byClub.get(club)
    if (!events) this.#byClub.set(club, (events = []))
    return events
  }
}
