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

/**
 * A data file's directory twice, each ready to compare with the other: as the snapshot and its
 * journal's entries replay it, then as `store.save()` writes it whole. The two are equal when every
 * write marked every key it changed (docs/development.md, the path of a write).
 */
export async function replayedAndWhole(store: { save(): Promise<void> }, file: string) {
  const replayed = comparable(directoryOnDisk(file))
  await store.save()
  return { replayed, whole: comparable(directoryOnDisk(file)) }
}

/**
 * Each collection's records sorted by key, every object's fields in one order. `changes_seq` is
 * left out: the journal carries the change log's events, not the field, which start-up takes
 * from the last event (directoryOnDisk keeps the snapshot's). A file of an older format, and a new
 * one whose first snapshot is the seed as it is, keeps its `version` and lacks default fields until
 * written whole: a test saves it whole before the writes it compares.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- read as JSON.parse reads a file
function comparable({ changes_seq: _, ...directory }: Record<string, any>): Record<string, unknown> {
  const sorted = Object.keys(directory)
    .sort()
    .map((name) => {
      const value = directory[name]
      if (!Array.isArray(value)) return [name, value]
      const keys = recordKeys(name, value)
      const byKey = value.map((record, i) => [keys[i]!, canonical(record)] as const)
      return [name, byKey.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, record]) => record)]
    })
  return Object.fromEntries(sorted)
}

/** `value` with every object's fields in alphabetical order, so that a printed difference lines up. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
  )
}
