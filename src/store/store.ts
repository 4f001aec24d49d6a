import { mkdir, open } from 'node:fs/promises'
import { dirname } from 'node:path'
import { Low } from 'lowdb'
import { JSONFile } from 'lowdb/node'
import { GroupCommit } from './group-commit'
import { snapshotProblem, type Snapshot } from './snapshot'

export const IN_MEMORY = ':memory:'

/** A data or seed file the service will not start from; the file is left as it is. */
export class StoreError extends Error {
  constructor(file: string, reason: string) {
    super(`store: cannot use ${file}: ${reason}`)
  }
}

export interface OpenedStore {
  readonly store: Store
  readonly data: Snapshot
  /** Where the data came from: the data file, or the seed (copied to a new data file, or kept in memory). */
  readonly source: 'file' | 'seed'
}

/**
 * The only module that touches lowdb: loads the snapshot, and saves whole snapshots through
 * lowdb's JSONFile (temp file + rename, so the file is always complete), fsynced, with
 * concurrent saves grouped into one write.
 */
export class Store {
  #capture: () => Snapshot = () => {
    throw new Error('store: nothing to save; call track() first')
  }
  readonly #commits: GroupCommit

  private constructor(
    readonly file: string,
    private readonly db: Low<Snapshot> | null,
  ) {
    this.#commits = new GroupCommit(() => this.#write())
  }

  static async open(dataFile: string, seedFile: string): Promise<OpenedStore> {
    if (dataFile === IN_MEMORY) {
      return { store: new Store(IN_MEMORY, null), data: await readSnapshot(seedFile), source: 'seed' }
    }
    const db = new Low<Snapshot>(new JSONFile<Snapshot>(dataFile), null as unknown as Snapshot)
    const store = new Store(dataFile, db)
    const existing = await readSnapshotIfAny(dataFile)
    if (existing) return { store, data: existing, source: 'file' }
    const seed = await readSnapshot(seedFile)
    await mkdir(dirname(dataFile), { recursive: true }).catch((e) => {
      throw new StoreError(dataFile, `cannot create its folder (${e.code ?? e.message})`)
    })
    store.track(() => seed)
    await store.save().catch((e) => {
      throw new StoreError(dataFile, `cannot write it (${e.code ?? e.message})`)
    })
    return { store, data: seed, source: 'seed' }
  }

  /** Names the function that captures the current state whenever a snapshot is written. */
  track(capture: () => Snapshot): void {
    this.#capture = capture
  }

  /** Resolves once a snapshot holding every change made before the call is on disk. */
  save(): Promise<void> {
    return this.db ? this.#commits.commit() : Promise.resolve()
  }

  /** Waits for writes under way (graceful shutdown). */
  flush(): Promise<void> {
    return this.#commits.idle()
  }

  async #write(): Promise<void> {
    const db = this.db!
    db.data = this.#capture()
    await db.write()
    await fsync(this.file)
    await fsync(dirname(this.file))
  }
}

async function fsync(path: string): Promise<void> {
  const handle = await open(path, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

async function readSnapshot(file: string): Promise<Snapshot> {
  const snapshot = await readSnapshotIfAny(file)
  if (!snapshot) throw new StoreError(file, 'it does not exist')
  return snapshot
}

/** The snapshot in `file`, or null when there is no such file. */
async function readSnapshotIfAny(file: string): Promise<Snapshot | null> {
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
  const problem = snapshotProblem(data)
  if (problem)
    throw new StoreError(file, `it is not a club directory snapshot (${problem}); fix or move it, then start again`)
  return data as Snapshot
}
