// The directory a data file holds on disk, read the way the service reads it at start-up: the
// snapshot with its journal's entries after it replayed, without the journal's own bookkeeping
// (journal_id, journal_commits). Tests read it while a server runs (it takes no lock) and after
// a crash.
import { existsSync, readFileSync } from 'node:fs'
import { recordKeys } from '../src/domain/replica'
import { journalEntries, journalFileOf } from '../src/store/journal-file'
import { withRecords } from '../src/store/store'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- read as JSON.parse reads a file
export function directoryOnDisk(file: string): any {
  const { journal_id: id, journal_commits: holds = 0, ...snapshot } = JSON.parse(readFileSync(file, 'utf8'))
  const journal = journalFileOf(file)
  if (id === undefined || !existsSync(journal)) return snapshot
  const { entries } = journalEntries(readFileSync(journal), id, holds)
  return withRecords(
    snapshot,
    entries.flatMap((entry) => entry.records),
    recordKeys,
  )
}
