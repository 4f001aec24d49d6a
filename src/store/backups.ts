import { copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { fsync } from './fsync'
import { linkFiles } from './link-files'
import { logoDirOf } from './logo-store'
import { journalFileOf } from './journal-file'
import { ShortWrite } from './write-all'

export interface BackupPolicy {
  readonly dir: string
  readonly intervalMs: number
  /** How many periodic backups to keep; the oldest go first. */
  readonly keep: number
}

/** `2026-11-23T20:41:05.123Z` as a file name part: `2026-11-23T20-41-05.123Z` (sorts by time). */
export const stamp = (date: Date) => date.toISOString().replaceAll(':', '-')

/**
 * Copies `file` into `dir` as `<name>-<kind>-<stamp>.json` (`withJournal`: and its journal, as
 * `<that>.journal`, a data file at rest being the two), the way the data file itself is written:
 * a temp file, checked whole, fsynced, renamed into place, the folder fsynced. The data file is
 * always a complete snapshot (it is replaced atomically), so a copy of it is one too. A copy that
 * fails (a full disk) leaves no temp file behind.
 */
export async function copySnapshot(
  file: string,
  dir: string,
  kind: string,
  now = new Date(),
  { withJournal = false } = {},
): Promise<string> {
  await mkdir(dir, { recursive: true })
  const target = join(dir, `${basename(file, '.json')}-${kind}-${stamp(now)}.json`)
  if (withJournal && (await Bun.file(journalFileOf(file)).exists()))
    await copyWhole(journalFileOf(file), journalFileOf(target))
  await copyWhole(file, target)
  await fsync(dir)
  return target
}

/** Copies `file` to `target` durably: a temp file, checked whole, synced, renamed. */
async function copyWhole(file: string, target: string): Promise<void> {
  const temp = `${target}.tmp`
  try {
    const { size } = await stat(file)
    await copyFile(file, temp)
    const copied = (await stat(temp)).size
    if (copied !== size) throw new ShortWrite(temp, copied, size)
    await fsync(temp)
    await rename(temp, target)
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined)
    throw error
  }
}

/**
 * Puts in folder `to` the logo files of folder `from` it lacks (only those of `only`, when given).
 * Logo files never change (a name is the hash of its content), so one missing is linked (or,
 * across file systems, copied the durable way) and one there is kept: the backups share them,
 * and a snapshot's logos are there with it.
 */
export async function copyLogos(from: string, to: string, only?: ReadonlySet<string>): Promise<void> {
  let names: string[]
  try {
    names = (await readdir(from)).filter((name) => name.endsWith('.webp') && (!only || only.has(name)))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  await mkdir(to, { recursive: true })
  const present = new Set(await readdir(to))
  const missing = names.filter((name) => !present.has(name))
  await linkFiles(from, to, missing)
  if (missing.length) await fsync(to)
}

/**
 * Periodic backups of the data file (docs/reference.md §17): a copy every interval, the newest
 * `keep` kept. The snapshot is written whole first (`writeWhole`), so the copy holds every write
 * made before it, with no journal.
 */
export class Backups {
  #timer: ReturnType<typeof setInterval> | null = null
  #running: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly file: string,
    private readonly policy: BackupPolicy,
    private readonly told: { readonly written: (path: string) => void; readonly failed: (error: unknown) => void },
    private readonly writeWhole: () => Promise<void> = async () => {},
  ) {}

  start(): void {
    this.#timer = setInterval(() => void this.take(), this.policy.intervalMs)
  }

  /** Takes a backup now and removes those past `keep`; returns its path. */
  take(now = new Date()): Promise<string | null> {
    const next = this.#running.then(async () => {
      try {
        // The logos first: a backup's snapshot never names a logo its folder lacks.
        await copyLogos(logoDirOf(this.file), join(this.policy.dir, 'logos'))
        await this.writeWhole()
        const path = await copySnapshot(this.file, this.policy.dir, 'backup', now)
        this.told.written(path)
        await this.#prune()
        return path
      } catch (error) {
        this.told.failed(error)
        return null
      }
    })
    this.#running = next
    return next
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer)
    await this.#running
  }

  async #prune(): Promise<void> {
    const prefix = `${basename(this.file, '.json')}-backup-`
    const ours = (await readdir(this.policy.dir)).filter((name) => name.startsWith(prefix) && name.endsWith('.json'))
    ours.sort()
    for (const name of ours.slice(0, Math.max(0, ours.length - this.policy.keep)))
      await rm(join(this.policy.dir, name), { force: true })
  }
}
