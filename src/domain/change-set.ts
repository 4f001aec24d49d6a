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
 * A collection's records changed since last asked, each with its key (null: removed), and how to
 * carry them again with the next write when the one that took them is refused.
 */
export type Changed = () => {
  readonly changed: Iterable<readonly [string, object | null]>
  refused(): void
}

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
      refused: () => keys.forEach((key) => touched.mark(key)),
    }
  }
}
