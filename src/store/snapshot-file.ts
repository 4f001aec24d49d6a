import { basename, dirname, join } from 'node:path'
import type { Adapter } from 'lowdb'
import { replaceFile } from './replace-file'
import { snapshotChunks, type SnapshotShape } from './snapshot-text'

/**
 * lowdb's adapter for the data file, in place of its JSONFile: a snapshot is written to a temp
 * file beside it (`.<name>.tmp`, as lowdb's steno names it) a chunk at a time, synced, and
 * renamed over the file, so the file is always one whole snapshot. JSONFile wrote one string of
 * the whole state and then its bytes: at 100,000 clubs that held the data file three times over
 * in memory for each write. A write that fails (a full disk) removes its temp file, so the space
 * it took is free again, and leaves the data file as it was.
 */
export class SnapshotFile<Snapshot extends SnapshotShape> implements Adapter<Snapshot> {
  readonly #temp: string

  constructor(private readonly file: string) {
    this.#temp = join(dirname(file), `.${basename(file)}.tmp`)
  }

  async read(): Promise<Snapshot | null> {
    const file = Bun.file(this.file)
    return (await file.exists()) ? ((await file.json()) as Snapshot) : null
  }

  async write(snapshot: Snapshot): Promise<void> {
    await replaceFile(this.file, this.#temp, snapshotChunks(snapshot))
  }
}
