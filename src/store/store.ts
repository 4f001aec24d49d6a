import { link, mkdir, rename, rm } from 'node:fs/promises'
import { dirname } from 'node:path'
import { Low } from 'lowdb'
import { fsync } from './fsync'
import { GroupCommit } from './group-commit'
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

/** Why `data` is not a snapshot this service can use, or null when it is one. */
export type SnapshotCheck = (data: unknown) => string | null

export interface OpenedStore<Snapshot extends SnapshotShape> {
  readonly store: Store<Snapshot>
  readonly data: Snapshot
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
  readonly #commits: GroupCommit
  #lastWriteFailure: Error | null = null
  /** Told of each snapshot write: how long it took (seconds), and why it failed (null when it landed). */
  onWrite: ((seconds: number, failure: Error | null) => void) | null = null

  private constructor(
    readonly file: string,
    private readonly db: Low<Snapshot> | null,
    private readonly unlock: () => void = () => {},
  ) {
    this.#commits = new GroupCommit(() => this.#write())
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
    { fromSeed = false, readOnly = false } = {},
  ): Promise<OpenedStore<Snapshot>> {
    if (dataFile === IN_MEMORY) {
      return { store: new Store<Snapshot>(IN_MEMORY, null), data: await seed(), source: 'seed' }
    }
    if (readOnly) {
      const existing = await readSnapshotIfAny<Snapshot>(dataFile, check)
      const store = new Store<Snapshot>(dataFile, null)
      return existing ? { store, data: existing, source: 'file' } : { store, data: await seed(), source: 'seed' }
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
    const store = new Store<Snapshot>(dataFile, db, lock.release)
    try {
      const existing = fromSeed ? null : await readSnapshotIfAny<Snapshot>(dataFile, check)
      if (existing) return { store, data: existing, source: 'file' }
      const seeded = await seed()
      store.track(() => seeded)
      await store.save().catch(fail('write it'))
      return { store, data: seeded, source: 'seed' }
    } catch (e) {
      lock.release()
      throw e
    }
  }

  /** Names the function that captures the current state whenever a snapshot is written. */
  track(capture: () => Snapshot): void {
    this.#capture = capture
  }

  /** Resolves once a snapshot holding every change made before the call is on disk. */
  save(): Promise<void> {
    return this.db ? this.#commits.commit() : Promise.resolve()
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

  /** Why the last snapshot write failed, in words, until one lands again (readiness, CONTRACT §17); null when it landed. */
  get writeProblem(): string | null {
    return this.#lastWriteFailure && `the last snapshot write failed: ${failureWords(this.#lastWriteFailure)}`
  }

  async #write(): Promise<void> {
    const started = performance.now()
    try {
      const db = this.db!
      db.data = this.#capture()
      await this.#keepPrevious()
      await db.write()
      // The file was synced before its rename; the folder makes the rename itself durable.
      await fsync(dirname(this.file))
      this.#lastWriteFailure = null
    } catch (error) {
      this.#lastWriteFailure = error instanceof Error ? error : new Error(String(error))
      throw error
    } finally {
      this.onWrite?.((performance.now() - started) / 1000, this.#lastWriteFailure)
    }
  }
}

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
