import { randomInt } from 'node:crypto'
import { link, mkdir, rename, rm } from 'node:fs/promises'
import { dirname } from 'node:path'
import { Low } from 'lowdb'
import { fsync } from './fsync'
import { GroupCommit } from './group-commit'
import { ChangeFile, ChangeFileError, changeFileOf, type LogLine, type ReadLog } from './change-file'
import { acquireLock } from './lock'
import { SnapshotFile } from './snapshot-file'
import { shareStrings } from './shared-strings'
import type { SnapshotShape } from './snapshot-text'
import type { ChangeSet, RecordKeys, RecordRow, StoreCommit } from './change-set'
import { JournalError, JournalFile, journalFileOf, writeJournal } from './journal-file'

export const IN_MEMORY = ':memory:'

/** A data or seed file the service will not start from; the file is left as it is. */
export class StoreError extends Error {
  constructor(file: string, reason: string) {
    super(`store: cannot use ${file}: ${reason}`)
  }
}

/**
 * How a data file's writes are committed over its journal's appends: each write applied in memory
 * at once, its change set handed over to the next append, and refused, taken back, when that
 * append fails (the domain's Journal). The wiring (src/data-file.ts) names it; a store opened
 * without one refuses every commit.
 */
export type Journaling = (append: () => Promise<void>) => {
  commit: StoreCommit
  handOver(): ChangeSet[]
  refuse(): void
}

const NOT_JOURNALED: Journaling = () => ({
  commit: () =>
    Promise.reject(new Error('store: this data file was opened without a journal (open it with openDataFile)')),
  handOver: () => [],
  refuse: () => {},
})

/** Why `data` is not a snapshot this service can use, or null when it is one. */
export type SnapshotCheck = (data: unknown) => string | null

/** The change log as the store sees it: the newest events to keep in its file. */
export interface LogSource {
  /** The events kept up to `seq`, newest last. */
  keptUpTo(seq: number): readonly LogLine[]
  /** Every event at or below this number is no longer kept. */
  readonly trimmedUpTo: number
  /** How many events are kept at least. */
  readonly keep: number
}

export interface OpenedStore<Snapshot extends SnapshotShape> {
  readonly store: Store<Snapshot>
  /** The directory: the snapshot with the journal's commits after it replayed. */
  readonly data: Snapshot
  /** The change log beside the data file, with the journal's events after it. */
  readonly log: ReadLog
  /** Where the data came from: the data file, or the seed (copied to a new data file, or kept in memory). */
  readonly source: 'file' | 'seed'
}

/** The journal's fields in the snapshot: which data file it is, and how many of the journal's commits it holds. */
type JournalFields = { readonly journal_id?: number; readonly journal_commits?: number }

/** How large the journal grows before the snapshot is written again and the journal cut (CLUBS_JOURNAL_BYTES). */
export const JOURNAL_BYTES = 8 << 20
/** How long after a compaction failed (a full disk) the next is tried. */
const COMPACTION_RETRY_MS = 10_000

/**
 * With its lowdb adapter (SnapshotFile), all that touches lowdb. A data file is a snapshot (the
 * whole directory, written with lowdb: temp file + rename, so it is always complete) and a journal
 * beside it: a write is one appended, synced journal entry, its change set, so its cost does not
 * grow with the directory. Once the journal passes a size, the snapshot is written again in the
 * background, at a commit, and the entries it holds are cut from the journal. Start-up is the
 * snapshot with the journal's entries after it replayed.
 */
export class Store<Snapshot extends SnapshotShape = SnapshotShape> {
  #capture: () => Snapshot = () => {
    throw new Error('store: nothing to save; call track() first')
  }
  #log: LogSource | null = null
  #changeFile: ChangeFile | null = null
  #journalFile: JournalFile | null = null
  readonly #journal: ReturnType<Journaling>
  readonly #writes: GroupCommit
  /** The newest commit on disk: in the journal, or held by the snapshot. */
  #committed: number
  /** The next write rewrites the snapshot whole (save(), a data file without a journal yet). */
  #whole = false
  #compacting: Promise<void> | null = null
  #compactAfter = 0
  /** A compaction landed: the journal's entries up to this commit can go. */
  #cutUpTo: number | null = null
  #lastWriteFailure: Error | null = null
  /** Told of each write: how long it took (seconds), and why it failed (null when it landed). */
  onWrite: ((seconds: number, failure: Error | null) => void) | null = null
  /** Told of each snapshot written in the background: why it failed (null when it landed). */
  onSnapshot: ((failure: Error | null) => void) | null = null
  /** Applies a write in memory and resolves once its change set is in the journal. */
  readonly commit: StoreCommit

  private constructor(
    readonly file: string,
    private readonly db: Low<Snapshot> | null,
    journal: Journaling,
    private readonly journalId: number,
    committed: number,
    private readonly journalBytes: number,
    private readonly unlock: () => void = () => {},
  ) {
    this.#committed = committed
    this.#writes = new GroupCommit(() => this.#write())
    this.#journal = journal(() => (this.db ? this.#writes.commit() : Promise.resolve()))
    this.commit = this.#journal.commit
  }

  /** Runs a request's work: a data file's writes are this process's alone, so there is nothing to order it with. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return work()
  }

  /** The file a backup copies: this data file, or null when there is none to copy (in memory, read-only). */
  get backedUpFile(): string | null {
    return this.db ? this.file : null
  }

  /** A change to the directory made before the app opens it can be saved (a new data file's seed logos). */
  readonly savesBeforeOpening = true

  /** Saves `data` as the directory now, before the app opens it and tracks its own. */
  saveOpened(data: Snapshot): Promise<void> {
    this.track(() => data)
    return this.save()
  }

  /** The directory can be replaced whole in place (the sandbox's reset): this process's alone. */
  readonly resettable = true

  /** A data file's process sends every webhook delivery (no other instance shares it). */
  get sendsWebhooks(): boolean {
    return true
  }

  /**
   * Opens `dataFile` (created from the snapshot `seed` makes when missing; with `fromSeed`,
   * replaced by it, the old file staying whole until the seed's snapshot is); `check` decides
   * what a snapshot is, `keys` names its records (for the journal's). `readOnly` reads the file
   * (or, missing, the seed) and never writes: no lock, no write access needed, and any number of
   * read-only processes may share the file.
   */
  static async open<Snapshot extends SnapshotShape>(
    dataFile: string,
    seed: () => Promise<Snapshot>,
    check: SnapshotCheck,
    {
      fromSeed = false,
      readOnly = false,
      journal = NOT_JOURNALED,
      keys,
      journalBytes = JOURNAL_BYTES,
    }: { fromSeed?: boolean; readOnly?: boolean; journal?: Journaling; keys: RecordKeys; journalBytes?: number },
  ): Promise<OpenedStore<Snapshot>> {
    const opened = (db: Low<Snapshot> | null, id: number, committed: number, unlock?: () => void) =>
      new Store<Snapshot>(dataFile, db, journal, id, committed, journalBytes, unlock)
    if (dataFile === IN_MEMORY) {
      const data = await seed()
      return { store: opened(null, 0, 0), data, source: 'seed', log: noLog(data) }
    }
    if (readOnly) {
      const existing = await readSnapshotIfAny<Snapshot & JournalFields>(dataFile, check)
      if (!existing) {
        const data = await seed()
        return { store: opened(null, 0, 0), data, source: 'seed', log: noLog(data) }
      }
      const replayed =
        existing.journal_id === undefined
          ? { data: existing, events: [] }
          : await replayJournal(dataFile, existing, keys, false)
      const { log } = await openLog(dataFile, replayed.data, replayed.events, false)
      return { store: opened(null, 0, 0), data: replayed.data, source: 'file', log }
    }
    const fail = (what: string) => (e: NodeJS.ErrnoException) => {
      throw new StoreError(dataFile, `cannot ${what} (${e.code ?? e.message})`)
    }
    await mkdir(dirname(dataFile), { recursive: true }).catch(fail('create its folder'))
    const lock = await Promise.resolve()
      .then(() => acquireLock(lockFileOf(dataFile)))
      .catch(fail('write its lock file'))
    if ('heldBy' in lock)
      throw new StoreError(dataFile, `another process (${lock.heldBy}) is using it; stop it first, or use its HTTP API`)
    const db = new Low<Snapshot>(new SnapshotFile<Snapshot>(dataFile), null as unknown as Snapshot)
    try {
      const existing = fromSeed ? null : await readSnapshotIfAny<Snapshot & JournalFields>(dataFile, check)
      if (existing?.journal_id !== undefined) {
        const replayed = await replayJournal(dataFile, existing, keys, true)
        const store = opened(db, existing.journal_id, replayed.committed, lock.release)
        store.#journalFile = replayed.file
        const { file, log } = await openLog(dataFile, replayed.data, replayed.events, true)
        store.#changeFile = file
        return { store, data: replayed.data, source: 'file', log }
      }
      if (existing && (await holdsEntries(journalFileOf(dataFile))))
        throw new StoreError(
          journalFileOf(dataFile),
          'it is beside a data file that names no journal: it belongs to another data file; move it away to start from the data file alone',
        )
      // A new data file, a seed replacing one (its journal goes with it), or one from before journals: written whole first.
      if (fromSeed) await rm(journalFileOf(dataFile), { force: true }).catch(fail('remove its journal'))
      const store = opened(db, newJournalId(), 0, lock.release)
      store.#whole = true
      const data = existing ?? (await seed())
      const { file, log } = await openLog(dataFile, data, [], true)
      store.#changeFile = file
      if (existing) return { store, data, source: 'file', log }
      // A seed replacing a data file whose log went further numbers on from there (npm run reset).
      const used = Math.max(log.trimmedUpTo, log.issued ?? 0)
      store.track(() => (used > (data.changes_seq ?? 0) ? { ...data, changes_seq: used } : data))
      await store.save().catch(fail('write it'))
      return { store, data, source: 'seed', log }
    } catch (e) {
      lock.release()
      throw e
    }
  }

  /** Names the function that captures the current state whenever a snapshot is written, and the change log written with it. */
  track(capture: () => Snapshot, log: LogSource | null = null): void {
    this.#capture = capture
    this.#log = log
  }

  /** Resolves once a snapshot holding every change made before the call is on disk: the snapshot is written whole. */
  save(): Promise<void> {
    if (!this.db) return Promise.resolve()
    this.#whole = true
    return this.#writes.commit()
  }

  /**
   * Empties the change log, every event up to `trimmedUpTo` dropped, once the writes under way
   * have landed: the directory it logged is being replaced whole (the sandbox's reset).
   */
  async restartLog(trimmedUpTo: number): Promise<void> {
    await this.#idle()
    await this.#changeFile?.rewrite([], trimmedUpTo)
  }

  /**
   * Waits for the writes under way, writes the snapshot whole when the journal holds entries it
   * does not (a data file at rest is one file a person can open; a failure leaves the journal to
   * replay), then lets other processes use the file.
   */
  async close(): Promise<void> {
    await this.#idle()
    // A compaction that landed with every commit leaves only its entries to cut: writing the same
    // snapshot again would only put it in place of the older backup.
    if (this.#cutUpTo === this.#committed) await this.#journalFile?.dropUpTo(this.#committed).catch(() => undefined)
    else if (this.#journalFile?.entries) await this.save().catch(() => undefined)
    this.unlock()
  }

  /**
   * Keeps the file as it is now beside it, as `<file><suffix>`, which no write replaces (say,
   * the last snapshot an older release wrote). Returns that path; an existing copy is kept.
   */
  async keepCopy(suffix: string): Promise<string> {
    const copy = `${this.file}${suffix}`
    try {
      await link(this.file, copy)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new StoreError(this.file, `cannot keep a copy as ${copy} (${(e as NodeJS.ErrnoException).code ?? e})`)
    }
    return copy
  }

  /** Why the last write failed, in words, until one lands again (readiness, docs/reference.md §17); null when it landed. */
  get writeProblem(): string | null {
    return this.#lastWriteFailure && `the last write failed: ${failureWords(this.#lastWriteFailure)}`
  }

  async #idle(): Promise<void> {
    await this.#writes.idle()
    await this.#compacting
  }

  async #write(): Promise<void> {
    const started = performance.now()
    try {
      if (this.#whole || !this.#journalFile) await this.#writeWhole()
      else await this.#append()
      this.#lastWriteFailure = null
    } catch (error) {
      this.#lastWriteFailure = error instanceof Error ? error : new Error(String(error))
      // At once: a write queued behind this one must not keep the refused writes' change sets.
      this.#journal.refuse()
      throw error
    } finally {
      this.onWrite?.((performance.now() - started) / 1000, this.#lastWriteFailure)
    }
  }

  /** Appends the writes waiting as one journal entry; starts a compaction at it when the journal has grown past its size. */
  async #append(): Promise<void> {
    const journal = this.#journalFile!
    if (this.#cutUpTo !== null) {
      const upTo = this.#cutUpTo
      this.#cutUpTo = null
      // A cut that fails is tried with the next compaction: replay skips what the snapshot holds.
      await journal.dropUpTo(upTo).catch(() => undefined)
    }
    const sets = this.#journal.handOver()
    if (!sets.length) return
    const commit = this.#committed + 1
    // Captured now, when memory holds exactly the commits up to this one: a compaction writes what landed, nothing more.
    const compactAt =
      !this.#compacting && journal.bytes >= this.journalBytes && performance.now() >= this.#compactAfter
        ? this.#capture()
        : null
    await journal.append(commit, sets)
    this.#committed = commit
    if (compactAt) {
      this.#compacting = this.#compact(compactAt, commit).finally(() => (this.#compacting = null))
    }
  }

  /** Writes the snapshot `captured` at commit `commit` in the background; the journal is cut by the next append. */
  async #compact(captured: Snapshot, commit: number): Promise<void> {
    try {
      await this.#writeSnapshot(captured, commit)
      this.#cutUpTo = commit
      this.onSnapshot?.(null)
    } catch (error) {
      // The journal holds every commit still: the snapshot is tried again a while later.
      this.#compactAfter = performance.now() + COMPACTION_RETRY_MS
      this.onSnapshot?.(error instanceof Error ? error : new Error(String(error)))
    }
  }

  /** Writes the whole directory as it is now, with the writes waiting: the snapshot holds them, and the journal is emptied. */
  async #writeWhole(): Promise<void> {
    await this.#compacting
    this.#whole = false
    this.#journal.handOver()
    await this.#writeSnapshot(this.#capture(), this.#committed)
    // The snapshot has landed with every write waiting: they are durable, so a journal that cannot
    // be cut or made now refuses none of them. Replay skips the entries the snapshot holds; a
    // journal not made yet is made by the next whole write, or at the next start.
    await this.#emptyJournal().catch(() => undefined)
  }

  /** Empties the journal after a whole write: the entries it holds are cut, or, for a data file without one yet, it is made. */
  async #emptyJournal(): Promise<void> {
    if (this.#journalFile) await this.#journalFile.dropUpTo(this.#committed)
    else {
      const path = journalFileOf(this.file)
      await writeJournal(path, this.journalId, [])
      this.#journalFile = (await JournalFile.open(path, { id: this.journalId, holds: 0, writable: true })).file
    }
  }

  /** Writes `snapshot` as the data file, holding the journal's commits up to `commit`; its events go to the change log's file first. */
  async #writeSnapshot(snapshot: Snapshot, commit: number): Promise<void> {
    const db = this.db!
    const upTo = snapshot.changes_seq ?? 0
    await this.#logUpTo(upTo)
    await this.#keepPrevious()
    db.data = { ...snapshot, journal_id: this.journalId, journal_commits: commit }
    await db.write()
    // The files were synced before their rename; the folder makes the renames themselves durable.
    await fsync(dirname(this.file))
    // The snapshot has landed: a compaction that fails now is tried again after the next write.
    await this.#compactLog(upTo).catch(() => undefined)
  }

  /** Puts the change log's events up to `seq` in its file (the journal held them until now): appended, or, when the log has dropped some since, written anew. */
  async #logUpTo(seq: number): Promise<void> {
    const file = this.#changeFile
    const log = this.#log
    if (!file || !log || seq <= file.last) return
    const kept = log.keptUpTo(seq)
    if (log.trimmedUpTo > file.last) await file.rewrite(kept, log.trimmedUpTo)
    else await file.append(kept.filter((line) => line.seq > file.last))
  }

  /** Keeps the snapshot about to be replaced as `<file>.bak`: a hard link, so nothing is copied. */
  async #keepPrevious(): Promise<void> {
    const backup = backupFileOf(this.file)
    const staging = `${backup}.tmp`
    await rm(staging, { force: true })
    try {
      await link(this.file, staging)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return
      throw e
    }
    await rename(staging, backup)
    // When the backup already is the current file (a failed write left it so), rename does nothing.
    await rm(staging, { force: true })
  }

  /** Rewrites the change log with the newest events kept once it holds twice as many. */
  async #compactLog(upTo: number): Promise<void> {
    const file = this.#changeFile
    const log = this.#log
    if (!file || !log || file.lines <= 2 * log.keep) return
    const kept = log.keptUpTo(upTo).slice(-log.keep)
    await file.rewrite(kept, kept[0]!.seq - 1)
  }
}

/** A fresh number naming a data file, which its journal names too. */
const newJournalId = () => randomInt(1, 2 ** 47)

/** Whether the journal at `path` holds any entry (a line after its header). */
async function holdsEntries(path: string): Promise<boolean> {
  const file = Bun.file(path)
  if (!(await file.exists())) return false
  const text = await file.text()
  const header = text.indexOf('\n')
  return header >= 0 && header + 1 < text.length
}

/**
 * The snapshot `data` with its journal's entries after it applied, record by record; the journal,
 * opened for appending when `writable`; the newest commit; and the events the entries numbered.
 */
async function replayJournal<Snapshot extends SnapshotShape>(
  dataFile: string,
  data: Snapshot & JournalFields,
  keys: RecordKeys,
  writable: boolean,
): Promise<{ data: Snapshot; file: JournalFile | null; committed: number; events: LogLine[] }> {
  const path = journalFileOf(dataFile)
  const holds = data.journal_commits ?? 0
  let opened: Awaited<ReturnType<typeof JournalFile.open>>
  try {
    opened = await JournalFile.open(path, { id: data.journal_id!, holds, writable })
  } catch (e) {
    if (e instanceof JournalError) throw new StoreError(path, e.message)
    throw new StoreError(path, `it cannot be used (${(e as NodeJS.ErrnoException).code ?? e})`)
  }
  const { file, entries } = opened
  const events = entries.flatMap((entry) => entry.events)
  const replayed = withRecords(
    data,
    entries.flatMap((entry) => entry.records),
    keys,
  )
  const seq = events.at(-1)?.seq
  return {
    data: seq !== undefined && seq > (data.changes_seq ?? 0) ? { ...replayed, changes_seq: seq } : replayed,
    file,
    committed: entries.at(-1)?.commit ?? holds,
    events,
  }
}

/** `data` with `rows` put in place in order, each collection's records by their keys: a record under a key is replaced, a new key added last. */
export function withRecords<Snapshot extends SnapshotShape>(
  data: Snapshot,
  rows: readonly RecordRow[],
  keys: RecordKeys,
): Snapshot {
  if (!rows.length) return data
  const byCollection = new Map<string, Map<string, object>>()
  for (const [collection, key, record] of rows) {
    let records = byCollection.get(collection)
    if (!records) {
      const list = ((data as Record<string, unknown>)[collection] ?? []) as object[]
      const named = keys(collection, list)
      byCollection.set(collection, (records = new Map(list.map((record, i) => [named[i]!, record]))))
    }
    if (record) records.set(key, record)
    else records.delete(key)
  }
  const out: Record<string, unknown> = { ...data }
  for (const [collection, records] of byCollection) out[collection] = [...records.values()]
  return out as Snapshot
}

/**
 * The change log of a data file: its file, kept up to the changes its snapshot holds, and then
 * the events of the journal's commits after it (which the file gets at the next snapshot).
 */
async function openLog(dataFile: string, data: SnapshotShape, journaled: readonly LogLine[], writable: boolean) {
  let opened: Awaited<ReturnType<typeof ChangeFile.open>>
  try {
    opened = await ChangeFile.open(changeFileOf(dataFile), data.changes_seq ?? 0, writable)
  } catch (e) {
    if (e instanceof ChangeFileError) throw new StoreError(changeFileOf(dataFile), e.message)
    throw new StoreError(changeFileOf(dataFile), `it cannot be used (${(e as NodeJS.ErrnoException).code ?? e})`)
  }
  const { file, log } = opened
  const last = log.lines.at(-1)?.seq ?? log.trimmedUpTo
  const later = journaled.filter((line) => line.seq > last)
  return { file, log: later.length ? { ...log, lines: [...log.lines, ...later] } : log }
}

/** A store without a log file (in memory, or a read-only seed): every number it handed out is gone. */
const noLog = (data: SnapshotShape): ReadLog => ({ lines: [], trimmedUpTo: data.changes_seq ?? 0 })

const FAILURE_WORDS: Record<string, string> = {
  ENOSPC: 'no space left on the disk (ENOSPC)',
  EDQUOT: 'the disk quota is used up (EDQUOT)',
  EROFS: 'the file system is read-only (EROFS)',
  EACCES: 'permission denied (EACCES)',
  EPERM: 'permission denied (EPERM)',
  EIO: 'an input/output error (EIO)',
}

/** A file system error in words that name no path (readiness answers are public). */
export function failureWords(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code
  return code === undefined ? 'an unexpected error' : (FAILURE_WORDS[code] ?? code)
}

/** The backup a data file's previous snapshot is kept in. */
const backupFileOf = (dataFile: string) => `${dataFile}.bak`

/** The file that tells other processes a data file is in use. */
export const lockFileOf = (dataFile: string) => `${dataFile}.lock`

/** The snapshot in `file`, or null when there is no such file. */
async function readSnapshotIfAny<Snapshot>(file: string, check: SnapshotCheck): Promise<Snapshot | null> {
  const data = await parseFileIfAny(file)
  if (data === undefined) return null
  const problem = check(data)
  if (problem)
    throw new StoreError(file, `it is not a club directory snapshot (${problem}); fix or move it, then start again`)
  shareStrings(data as object)
  // The copies of the strings shared are garbage now: collected before the directory is built,
  // its indexes take their place instead of new pages (RSS idle at 100,000 clubs, issue 40).
  Bun.gc(true)
  return data as Snapshot
}

/** The JSON in `file`, or undefined when there is no such file; its text is gone once this returns. */
async function parseFileIfAny(file: string): Promise<unknown> {
  let text: string
  try {
    text = await Bun.file(file).text()
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return undefined
    throw new StoreError(file, `it cannot be read (${code ?? String(e)})`)
  }
  try {
    return JSON.parse(text)
  } catch (e) {
    throw new StoreError(file, `it is not valid JSON (${(e as Error).message}); fix or move it, then start again`)
  }
}
