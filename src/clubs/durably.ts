import { StorageUnavailable } from '../errors'

/** Saves a snapshot holding every change made so far; resolves once it is on disk. */
export type Persist = () => Promise<void>
/** Takes back one in-memory change. */
export type Undo = () => void

/**
 * Applies a change in memory, answers only once a snapshot holding it is on disk, and takes
 * the change back when that snapshot could not be written — nothing unsaved is acknowledged.
 */
export async function durably(persist: Persist, apply: () => Undo | Undo[]): Promise<void> {
  const undo = apply()
  try {
    await persist()
  } catch {
    for (const step of [undo].flat().reverse()) step()
    throw new StorageUnavailable()
  }
}
