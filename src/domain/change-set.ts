import type { LoggedChange } from './change-log'
import type { Undo } from './undo'

/** Two names in one key: neither holds a newline (codes, usernames, numbers). */
export const pair = (a: string | number, b: string | number) => `${a}\n${b}`

/** One record a write changed: its collection, its key there, and the record now (null: removed). */
export type RecordChange = readonly [collection: string, key: string, record: object | null]

/**
 * What one write changed, made once by the directory's commit: the records it put or removed, by
 * collection, and the public events it numbered. The store keeps it (a journal entry, a database
 * transaction), the change log publishes its events once it has, and the webhooks send them.
 */
export interface ChangeSet {
  readonly records: readonly RecordChange[]
  readonly events: readonly LoggedChange[]
}

/** A write as applied in memory: how to take it back, and what it changed. */
export interface Applied {
  readonly undo: Undo[]
  readonly changes: ChangeSet
}

/** A store's commit: applies a write in memory and resolves once its change set is durable (taken back and refused when it cannot be). */
export type StoreCommit = (apply: () => Applied) => Promise<void>

/**
 * The keys of a collection's records changed since they were last taken: the collection marks each
 * key it changes, so what a write changed is found without looking at the records it did not touch.
 */
export class Touched {
  #keys = new Set<string>()

  mark(key: string): void {
    this.#keys.add(key)
  }

  /** Whether any key is marked and not taken yet. */
  get any(): boolean {
    return this.#keys.size > 0
  }

  /** The keys marked since the last take, each once. */
  take(): string[] {
    const keys = [...this.#keys]
    this.#keys.clear()
    return keys
  }
}

/**
 * A collection's records changed since last asked, each with its key (null: removed); how to take
 * them as landed once the write that carries them is durable, and how to carry them again with the
 * next write when that one is refused.
 */
export type Changed = () => {
  readonly changed: Iterable<readonly [string, object | null]>
  land(): void
  refused(): void
}

const NOTHING = () => {}

/**
 * What changed in a collection whose records mark their keys (Touched): each key's record now. A
 * key is taken once; when the write that took it is refused, it is marked again, so the next write
 * carries the record as it is then (taken back, or changed between writes as webhook outcomes are).
 * What it marked before this is called (loading the records) is what the store holds.
 */
export function touchedIn(touched: Touched, recordOf: (key: string) => object | null): Changed {
  touched.take()
  return () => {
    const keys = touched.take()
    return {
      changed: keys.map((key) => [key, recordOf(key)] as const),
      land: NOTHING,
      refused: () => keys.forEach((key) => touched.mark(key)),
    }
  }
}

/**
 * What changed in a small collection, found by comparing its records with those of the last write
 * that landed: a record never changes in place, so one seen then is unchanged, and a comparison
 * costs a lookup a record. Its records may change between writes (webhook outcomes, saved with the
 * next write), and are not taken back when that write fails: until one lands, each write carries
 * them again. Collections that grow with the directory mark their keys instead (touchedIn).
 */
export function diffedIn<R extends object>(records: () => readonly R[], keyOf: (record: R) => string): Changed {
  let landed = new Map<R, string>()
  for (const record of records()) landed.set(record, keyOf(record))
  let takes = 0
  let landedTake = 0
  return () => {
    const take = ++takes
    const now = new Map<R, string>()
    const changed: [string, R | null][] = []
    const kept = new Set<string>()
    for (const record of records()) {
      const key = landed.get(record) ?? keyOf(record)
      now.set(record, key)
      kept.add(key)
      if (!landed.has(record)) changed.push([key, record])
    }
    for (const key of landed.values()) if (!kept.has(key)) changed.push([key, null])
    return {
      changed,
      refused: NOTHING,
      land() {
        // Writes land in the order they were taken; an older one landing later changes nothing.
        if (take < landedTake) return
        landedTake = take
        landed = now
      },
    }
  }
}
