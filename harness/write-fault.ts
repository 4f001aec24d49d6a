// Makes a data file's writes fail and then work again, the way a disk fault would: its journal
// (what every write appends to) is moved aside and a folder put in its place, so opening it to
// append fails (EISDIR); unblocking puts the journal back as it was. The service answers each
// write 503 meanwhile and takes it back (docs/reference.md §9).
import { mkdirSync, renameSync, rmdirSync } from 'node:fs'
import { journalFileOf } from '../src/store/journal-file'

export function blockWrites(dataFile: string): { unblock(): void } {
  const journal = journalFileOf(dataFile)
  const aside = `${journal}.aside`
  renameSync(journal, aside)
  mkdirSync(journal)
  return {
    unblock() {
      rmdirSync(journal)
      renameSync(aside, journal)
    },
  }
}
