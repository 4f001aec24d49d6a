import { link, mkdir, rename, rm } from 'node:fs/promises'
import { dirname } from 'node:path'
import { Low } from 'lowdb'
import { fsync } from './fsync'
import { GroupCommit } from './group-commit'
import { ChangeFile, ChangeFileError, changeFileOf, type LogLine, type ReadLog } from './change-file'
import { acquireLock } from './lock'
import { SnapshotFile } from './snapshot-file'
import type { SnapshotShape } from './snapshot-text'

export const IN_MEMORY = ':memory:'

/** A data or seed file the service will not start from; the file is left as it is. */
export class StoreError extends Error {
  constructor(file: string, reason: string) {
    super(`store: cannot use ${file}: ${reason}`)
  }
}

/** Takes back one in-memory change. */
export type Undo = () => void

/** Applies a change in memory and resolves once it is durable; refused (the change taken back) when it cannot be. */
export type StoreCommit = (apply: () => Undo | Undo[]) => Promise<void>

/**
 * How a data file's writes are committed over its `save`: each change applied in memory at once
 * and refused, taken back, when the snapshot holding it fails (the domain's Journal). The wiring
 * (src/data-file.ts) names it; a store opened without one refuses every commit.
 */
export type Journaling = (save: () => Promise<void>) => StoreCommit

const NOT_JOURNALED: Journaling = () => () =>
  Promise.reject(new Error('store: this data file was opened without a journal (open it with openDataFile)'))

/** Why `data` is not a snapshot this service can use, or null when it is one. */
export type SnapshotCheck = (data: unknown) => string | null

/** The change log as the store sees it: events to append with each snapshot, and the newest to keep when compacting. */
export interface LogSource {
  /** The events numbered since the last call, which the write under way now appends. */
  handOver(): readonly LogLine[]
  /** The events kept up to `seq`, newest last. */
  keptUpTo(seq: number): readonly LogLine[]
  /** How many events are kept at least. */
  readonly keep: number
}

export interface OpenedStore<Snapshot extends SnapshotShape> {
  readonly store: Store<Snapshot>
  readonly data: Snapshot
  /** The change log beside the data file, as far as the data file vouches for it. */
  readonly log: ReadLog
  /** Where the data came from: the data file, or the seed (copied to a new data file, or kept in memory). */
  readonly source: 'file' | 'seed'
}

/**
 * With its lowdb adapter (SnapshotFile), all that touches lowdb: loads the snapshot, and saves
 * whole snapshots (temp file + rename, so the file is always complete), fsynced, with concurrent
 * saves grouped into one write and unchanged records not serialised again.
 */
export class Store<Snapshot extends SnapshotShape = SnapshotShape> {
  #capture: () => Snapshot = () => {
    throw new Error('store: nothing to save; call track() first')
  }
  #log: LogSource | null = null
  #changeFile: ChangeFile | null = null
  readonly #commits: GroupCommit
  #lastWriteFailure: Error | null = null
  /** Told of each snapshot write: how long it took (seconds), and why it failed (null when it landed). */
  onWrite: ((seconds: number, failure: Error | null) => void) | null = null
  /** Applies a change in memory and resolves once a snapshot holding it is on disk: the journal over `save`. */
  readonly commit: StoreCommit

  private constructor(
    readonly file: string,
    private readonly db: Low<Snapshot> | null,
    journal: Journaling,
    private readonly unlock: () => void = () => {},
  ) {
    this.#commits = new GroupCommit(() => this.#write())
    this.commit = journal(() => this.save())
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
   * what a snapshot is. `readOnly` reads the file (or, missing, the seed) and never writes: no
   * lock, no write access needed, and any number of read-only processes may share the file.
   */
  static async open<Snapshot extends SnapshotShape>(
    dataFile: string,
    seed: () => Promise<Snapshot>,
    check: SnapshotCheck,
    {
      fromSeed = false,
      readOnly = false,
      journal = NOT_JOURNALED,
    }: { fromSeed?: boolean; readOnly?: boolean; journal?: Journaling } = {},
  ): Promise<OpenedStore<Snapshot>> {
    if (dataFile === IN_MEMORY) {
      const data = await seed()
      return { store: new Store<Snapshot>(IN_MEMORY, null, journal), data, source: 'seed', log: noLog(data) }
    }
    if (readOnly) {
      const existing = await readSnapshotIfAny<Snapshot>(dataFile, check)
      const store = new Store<Snapshot>(dataFile, null, journal)
      const data = existing ?? (await seed())
      const { log } = existing ? await openLog(dataFile, data, false) : { log: noLog(data) }
      return { store, data, source: existing ? 'file' : 'seed', log }
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
    const store = new Store<Snapshot>(dataFile, db, journal, lock.release)
    try {
      const existing = fromSeed ? null : await readSnapshotIfAny<Snapshot>(dataFile, check)
      const data = existing ?? (await seed())
      const { file, log } = await openLog(dataFile, data, true)
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

  /** Resolves once a snapshot holding every change made before the call is on disk. */
  save(): Promise<void> {
    return this.db ? this.#commits.commit() : Promise.resolve()
  }

  /**
   * Empties the change log, every event up to `trimmedUpTo` dropped, once the writes under way
   * have landed: the directory it logged is being replaced whole (the sandbox's reset).
   */
  async restartLog(trimmedUpTo: number): Promise<void> {
    await this.#commits.idle()
    await this.#changeFile?.rewrite([], trimmedUpTo)
  }

  /** Waits for the writes under way, then lets other processes use the file. */
  async close(): Promise<void> {
    await this.#commits.idle()
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

  /** Why the last snapshot write failed, in words, until one lands again (readiness, docs/reference.md §17); null when it landed. */
  get writeProblem(): string | null {
    return this.#lastWriteFailure && `the last snapshot write failed: ${failureWords(this.#lastWriteFailure)}`
  }

  async #write(): Promise<void> {
    const started = performance.now()
    try {
      const db = this.db!
      db.data = this.#capture()
      // Captured at the same moment: the events of exactly the changes this snapshot holds.
      const events = this.#log?.handOver() ?? []
      const takeBack = (await this.#changeFile?.append(events)) ?? null
      try {
        await this.#keepPrevious()
        await db.write()
      } catch (error) {
        await takeBack?.()
        throw error
      }
      // The files were synced before their rename; the folder makes the renames themselves durable.
      await fsync(dirname(this.file))
      this.#lastWriteFailure = null
      // The snapshot has landed: a compaction that fails now is tried again after the next write.
      await this.#compactLog(db.data.changes_seq ?? 0).catch(() => undefined)
    } catch (error) {
      this.#lastWriteFailure = error instanceof Error ? error : new Error(String(error))
      throw error
    } finally {
      this.onWrite?.((performance.now() - started) / 1000, this.#lastWriteFailure)
    }
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

/** The change log of a data file, kept up to the changes its snapshot holds. */
async function openLog(dataFile: string, data: SnapshotShape, writable: boolean) {
  try {
    return await ChangeFile.open(changeFileOf(dataFile), data.changes_seq ?? 0, writable)
  } catch (e) {
    if (e instanceof ChangeFileError) throw new StoreError(changeFileOf(dataFile), e.message)
    throw new StoreError(changeFileOf(dataFile), `it cannot be used (${(e as NodeJS.ErrnoException).code ?? e})`)
  }
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
  let text: string
  try {
    text = await Bun.file(file).text()
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return null
    throw new StoreError(file, `it cannot be read (${code ?? String(e)})`)
  }
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (e) {
    throw new StoreError(file, `it is not valid JSON (${(e as Error).message}); fix or move it, then start again`)
  }
  const problem = check(data)
  if (problem)
    throw new StoreError(file, `it is not a club directory snapshot (${problem}); fix or move it, then start again`)
  return data as Snapshot
}
