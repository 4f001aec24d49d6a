import type { HistoryEntry, HistoryRecord } from '../model/history'
import type { Undo } from './journal'

/** Every club's approval history, append-only (CONTRACT §11); an append can be taken back until it is on disk. */
export class History {
  #byClub = new Map<string, HistoryRecord[]>()

  constructor(records: readonly HistoryRecord[]) {
    for (const record of records) this.#eventsOf(record.club).push(record)
  }

  /** Records `record`; returns how to take it back (the journal undoes newest first). */
  append(record: HistoryRecord): Undo {
    const events = this.#eventsOf(record.club)
    events.push(record)
    return () => {
      if (events.at(-1) === record) events.pop()
    }
  }

  /** A club's events, newest first. */
  of(club: string): HistoryEntry[] {
    return (this.#byClub.get(club) ?? []).map(({ club: _, ...entry }) => entry).reverse()
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
