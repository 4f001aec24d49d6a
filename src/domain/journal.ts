import type { ChangeSet } from './change-set'
import { StorageUnavailable } from './errors'
import type { Undo } from './undo'

/** Applies a change in memory and resolves once it is on disk (503 when it cannot be). */
export type Commit = (apply: () => Undo | Undo[]) => Promise<void>

/** A write applied in memory and waiting to be durable: how to take it back, and its change set until a write takes it. */
interface Pending<C> {
  readonly undo: Undo[]
  changes: C | null
}

/**
 * Makes every acknowledged write durable and every refused one vanish. Writes are applied in
 * memory at once; their change sets wait for the next write of the journal, which takes all that
 * wait (writes are grouped). When a write fails, every change not yet on disk is taken back,
 * newest first — including ones made after the failed write began, which may build on the
 * refused ones, and whose change sets are dropped — and all of them are refused. The store says
 * so (refuse) as the write fails, before anything else runs: a write queued behind it must not
 * take the change sets of refused changes.
 */
export class Journal<C = ChangeSet> {
  #pending = new Set<Pending<C>>()
  #epoch = 0

  constructor(private readonly save: () => Promise<void>) {}

  commit = async (apply: () => { readonly undo: Undo[]; readonly changes: C }): Promise<void> => {
    const epoch = this.#epoch
    const { undo, changes } = apply()
    const entry: Pending<C> = { undo, changes }
    this.#pending.add(entry)
    try {
      await this.save()
    } catch {
      if (epoch === this.#epoch) this.refuse()
      throw new StorageUnavailable()
    } finally {
      this.#pending.delete(entry)
    }
    if (epoch !== this.#epoch) throw new StorageUnavailable()
  }

  /** The change sets of the writes applied since the last call, oldest first: what the write starting now keeps. */
  handOver(): C[] {
    const sets: C[] = []
    for (const entry of this.#pending)
      if (entry.changes) {
        sets.push(entry.changes)
        entry.changes = null
      }
    return sets
  }

  /** Takes back every change not yet on disk, newest first, and refuses them: the write under way failed. */
  refuse(): void {
    this.#epoch++
    for (const entry of [...this.#pending].reverse()) {
      entry.changes = null
      for (const step of entry.undo.reverse()) step()
    }
    this.#pending.clear()
  }
}
