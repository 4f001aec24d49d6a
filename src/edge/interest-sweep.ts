import type { InterestService } from '../domain/interests'

/** How often the entries a year old are looked for, after the first look at the start. */
export const INTEREST_SWEEP_EVERY_MS = 60 * 60 * 1000

/**
 * Removes the interested students' entries that are a year old (docs/reference.md §23): at once, then
 * every hour, each time in one write. A sweep that cannot be saved (storage unavailable) is tried
 * again at the next. Its timer keeps no process alive; the answer stops it.
 */
export function sweepInterests(interests: InterestService, every = INTEREST_SWEEP_EVERY_MS): () => void {
  const sweep = () => void interests.sweep().catch(() => undefined)
  sweep()
  const timer = setInterval(sweep, every)
  timer.unref()
  return () => clearInterval(timer)
}
