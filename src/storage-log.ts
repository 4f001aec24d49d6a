import type { Metrics } from './edge/metrics'
import type { Logger } from './log'
import { failureWords } from './store/store'

/**
 * Metrics for every snapshot write, and a log line when writes start failing (error), when the
 * reason changes, and when they land again (warn): today's full disk shows in the log, not only
 * as 503s in the access lines.
 */
export function snapshotWriteWatch(file: string, log: Logger, metrics: Metrics | null, onDatabase = false) {
  const [landed, failed] = onDatabase
    ? [
        'database writes land again; writes are accepted',
        'database write failed; writes answer 503 until one lands (reads go on from memory)',
      ]
    : [
        'data file writes land again; writes are accepted',
        'data file write failed; writes answer 503 until one lands (the data file and its journal keep every acknowledged write)',
      ]
  let failing: { reason: string; since: string; writes: number } | null = null
  return (seconds: number, failure: Error | null) => {
    metrics?.observeWrite(seconds, failure === null)
    if (failure === null) {
      if (failing)
        log.warn(landed, {
          file,
          failed_since: failing.since,
          failed_writes: failing.writes,
        })
      failing = null
      return
    }
    // A lost database fails in several ways as it goes (refused, closed, timed out): one outage, one line.
    const reason = onDatabase ? 'the database cannot be reached' : failureWords(failure)
    if (failing?.reason === reason) {
      failing.writes++
      return
    }
    log.error(failed, {
      file,
      reason,
      error: failure.message,
    })
    failing = { reason, since: new Date().toISOString(), writes: 1 }
  }
}

/**
 * A line when the data file's snapshot cannot be written in the background (error) and when it
 * lands again (warn): writes still land in the journal, which grows until it can be cut.
 */
export function snapshotWatch(file: string, log: Logger) {
  let failing: string | null = null
  return (failure: Error | null) => {
    if (failure === null) {
      if (failing) log.warn('the data file is written again; its journal is cut', { file })
      failing = null
      return
    }
    const reason = failureWords(failure)
    if (failing === reason) return
    log.error('the data file cannot be written again; writes land in its journal, which grows until it can', {
      file,
      reason,
      error: failure.message,
    })
    failing = reason
  }
}

/** A line for each periodic backup: where it went, or why it could not be taken. */
export const backupLog = (log: Logger) => ({
  written: (path: string) => log.info('backup written', { path }),
  failed: (error: unknown) =>
    log.error('backup failed; the data file is unchanged, and the next backup tries again', {
      reason: error instanceof Error ? failureWords(error) : String(error),
      error: String(error),
    }),
})

/** A line when a data file takes in its logos from the folder data files shared before each had its own. */
export const logosTakenIn =
  (log: Logger) =>
  ({ from, to, logos, missing }: { from: string; to: string; logos: number; missing: number }) => {
    const fields = {
      from,
      to,
      logos,
      left: `${from} as it was: other data files beside this one may use it; remove it once none does`,
    }
    if (missing === 0) log.info("logos taken into this data file's own folder", fields)
    else
      log.warn(
        `logos taken into this data file's own folder; ${missing} its clubs name were not in ${from} (they answer 404 until uploaded again)`,
        {
          ...fields,
          missing,
        },
      )
  }
