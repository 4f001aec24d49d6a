import { StorageUnavailable } from './errors'

/** Takes back one in-memory change. */
export type Undo = () => void

/** Applies a change in memory and resolves once it is on disk (503 when it cannot be). */
export type Commit = (apply: () => Undo | Undo[]) => Promise<void>

interface Pending {
  readonly undo: Undo[]
}

/**
 * Makes every acknowledged change durable and every refused one vanish. Changes are applied
 * in memory at once, then wait for a snapshot write (writes are grouped). When a write
 * fails, every change not yet on disk is taken back, newest first — including ones made
 * after the failed write began, which may build on the refused ones — and all of them are
 * refused, even if the next write (now without them) succeeds.
 */
export class Journal {
  #pending = new Set<Pending>()
  #epoch = 0

  constructor(private readonly save: () => Promise<void>) {}

  commit: Commit = async (apply) => {
    const epoch = this.#epoch
    const entry: Pending = { undo: [apply()].flat() }
    this.#pending.add(entry)
    try {
      await this.save()
    } catch {
      this.#rollBack()
      throw new StorageUnavailable()
    } finally {
      this.#pending.delete(entry)
    }
    if (epoch !== this.#epoch) throw new StorageUnavailable()
  }

  #rollBack(): void {
    this.#epoch++
    for (const entry of [...this.#pending].reverse()) for (const step of entry.undo.reverse()) step()
    this.#pending.clear()
  }
}
