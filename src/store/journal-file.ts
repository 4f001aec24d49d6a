import { truncate } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { LogLine } from './change-file'
import type { ChangeSet, RecordRow } from './change-set'
import { fsync } from './fsync'
import { replaceFile } from './replace-file'
import { recordText } from './snapshot-text'
import { writeSyncedAt } from './write-all'

/** The journal beside a data file. */
export const journalFileOf = (dataFile: string) => `${dataFile}.journal`

/** One commit as the journal keeps it: its number, the records it changed, and its events. */
export interface JournalEntry {
  readonly commit: number
  readonly records: readonly RecordRow[]
  readonly events: readonly LogLine[]
}

/** Why a journal cannot be used with its data file; the message says what to do. */
export class JournalError extends Error {}

/** Where an entry ends in the file, so the journal can be cut after the entries a snapshot holds. */
interface Placed {
  readonly commit: number
  readonly end: number
}

const header = (id: number) => `{"journal_id":${id}}\n`

/** A journal entry's line: `{"commit":N,"records":[[collection,key,record],...],"events":[...]}`. */
function entryText(commit: number, sets: readonly ChangeSet[]): string {
  const records: string[] = []
  const events: string[] = []
  for (const set of sets) {
    for (const [collection, key, record] of set.records)
      records.push(`[${JSON.stringify(collection)},${JSON.stringify(key)},${record ? recordText(record) : 'null'}]`)
    for (const event of set.events) events.push(event.text)
  }
  return `{"commit":${commit},"records":[${records.join(',')}],"events":[${events.join(',')}]}\n`
}

/**
 * A data file's journal (docs/development.md, "the path of a write"): a header naming the data
 * file it belongs to (`journal_id`, which the snapshot names too), then one line per commit, each
 * appended and synced before the write is answered. The snapshot says how many commits it holds
 * (`journal_commits`); the entries after those are replayed on top of it at start-up. A last line
 * torn by a crash is cut off. After the snapshot is rewritten, the entries it holds are cut away
 * (a new file, renamed over this one), so the journal stays small.
 */
export class JournalFile {
  #length: number
  #placed: Placed[]

  // No handle is kept open between writes (see ChangeFile): an open per append is nothing beside its sync.
  private constructor(
    readonly path: string,
    readonly id: number,
    length: number,
    placed: Placed[],
  ) {
    this.#length = length
    this.#placed = placed
  }

  /** The journal's size in bytes. */
  get bytes(): number {
    return this.#length
  }

  /** How many entries the file holds (some maybe held by the snapshot already). */
  get entries(): number {
    return this.#placed.length
  }

  /**
   * Reads the journal at `path` of the data file named `id`, answering the entries after commit
   * `holds` (what its snapshot holds already), in order. A missing journal has none. `writable`
   * opens it for appending: a torn last line is cut off, and a missing file is made.
   */
  static async open(
    path: string,
    { id, holds, writable }: { id: number; holds: number; writable: boolean },
  ): Promise<{ file: JournalFile | null; entries: JournalEntry[] }> {
    let bytes: Buffer | null = null
    try {
      bytes = Buffer.from(await Bun.file(path).arrayBuffer())
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
    }
    const parsed = bytes ? journalEntries(bytes, id, holds) : null
    if (!writable) return { file: null, entries: parsed?.entries ?? [] }
    if (!parsed?.validBytes) {
      await writeJournal(path, id, [])
      return { file: new JournalFile(path, id, header(id).length, []), entries: [] }
    }
    if (parsed.validBytes < bytes!.byteLength) {
      await truncate(path, parsed.validBytes)
      await fsync(path)
    }
    return { file: new JournalFile(path, id, parsed.validBytes, parsed.placed), entries: parsed.entries }
  }

  /** Appends commit `commit`, made of `sets`, and syncs it; on failure nothing of it stays. */
  async append(commit: number, sets: readonly ChangeSet[]): Promise<void> {
    const before = this.#length
    const text = entryText(commit, sets)
    try {
      await writeSyncedAt(this.path, text, before)
    } catch (error) {
      await this.#cut(before).catch(() => undefined)
      throw error
    }
    this.#length = before + Buffer.byteLength(text)
    this.#placed.push({ commit, end: this.#length })
  }

  /** Drops the entries up to commit `holds` (a snapshot on disk holds them): the rest is written anew and renamed over the journal. */
  async dropUpTo(holds: number): Promise<void> {
    const kept = this.#placed.findIndex((placed) => placed.commit > holds)
    const from = kept < 0 ? this.#length : kept === 0 ? header(this.id).length : this.#placed[kept - 1]!.end
    const rest = from < this.#length ? await Bun.file(this.path).slice(from, this.#length).bytes() : new Uint8Array()
    await replaceFile(this.path, tempOf(this.path), [header(this.id), rest])
    // Renamed: the file is the new one from here, whether or not the folder's sync below succeeds.
    const shift = from - header(this.id).length
    this.#placed = kept < 0 ? [] : this.#placed.slice(kept).map((placed) => ({ ...placed, end: placed.end - shift }))
    this.#length -= shift
    await fsync(dirname(this.path))
  }

  /** Cuts the file back to `length` bytes, durably: an entry of a write that did not land. */
  async #cut(length: number): Promise<void> {
    await truncate(this.path, length)
    await fsync(this.path)
    this.#length = length
  }
}

/** Writes a journal of data file `id` holding `entries` (already their lines) at `path`: temp file, synced, renamed, folder synced. */
export async function writeJournal(path: string, id: number, entries: readonly Uint8Array[]): Promise<void> {
  await replaceFile(path, tempOf(path), [header(id), ...entries])
  await fsync(dirname(path))
}

const tempOf = (path: string) => join(dirname(path), `.${basename(path)}.tmp`)

/** The entries of the journal `bytes` of data file `id` after commit `holds`, where each entry ends, and how many bytes are whole. */
export function journalEntries(
  bytes: Buffer,
  id: number,
  holds: number,
): { entries: JournalEntry[]; placed: Placed[]; validBytes: number } {
  const entries: JournalEntry[] = []
  const placed: Placed[] = []
  let validBytes = 0
  let last = holds
  let start = 0
  for (let lineNo = 1; start < bytes.byteLength; lineNo++) {
    const end = bytes.indexOf(10, start)
    // A last line without its newline was torn by a crash: its commit was never answered.
    if (end < 0) break
    const fail = (why: string): never => {
      throw new JournalError(`line ${lineNo} ${why}`)
    }
    let value: { journal_id?: unknown; commit?: unknown; records?: unknown; events?: unknown }
    try {
      value = JSON.parse(bytes.toString('utf8', start, end))
    } catch {
      return fail('is not JSON; move the journal away to start without the writes it holds')
    }
    if (lineNo === 1) {
      if (!Number.isSafeInteger(value.journal_id)) fail('is not the header {"journal_id": N}')
      // A journal with no entry holds nothing to lose: one of another data file is started anew.
      if (value.journal_id !== id && end + 1 === bytes.byteLength) return { entries, placed, validBytes: 0 }
      if (value.journal_id !== id)
        fail(
          `names data file ${value.journal_id}, and the data file is ${id}: the journal belongs to another data file (a copy, or a restored backup); move it away to start from the data file alone`,
        )
    } else {
      const commit = value.commit
      if (!Number.isSafeInteger(commit) || !Array.isArray(value.records) || !Array.isArray(value.events))
        fail('is not an entry {"commit": N, "records": [...], "events": [...]}')
      placed.push({ commit: commit as number, end: end + 1 })
      if ((commit as number) > holds) {
        if (commit !== last + 1)
          fail(
            `is commit ${commit}, and the one before it that the data file holds or the journal has is ${last}: the journal does not go on from the data file; move it away to start from the data file alone`,
          )
        last = commit as number
        entries.push({
          commit: commit as number,
          records: value.records as RecordRow[],
          events: (value.events as { seq: number; type: string }[]).map((event) => ({
            seq: event.seq,
            type: event.type,
            text: JSON.stringify(event),
          })),
        })
      }
    }
    validBytes = end + 1
    start = end + 1
  }
  if (validBytes === 0 && start === 0)
    throw new JournalError('line 1 is missing or torn: the journal has no header; move it away')
  return { entries, placed, validBytes }
}
