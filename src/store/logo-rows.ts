import type { SQL } from 'bun'
import { mkdir, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { fsync } from './fsync'
import type { MadeLogo } from './logo-images'
import { fileName, filesOf, madeFrom, SIZES, type Made } from './logo-store'
import { replaceFile } from './replace-file'

type Size = keyof MadeLogo['files']

/**
 * A logo no club points to is removed only once it is this old: another instance may have kept it
 * for a change it has committed and this one has not applied yet (docs/reference.md §19: within a second).
 */
const SWEEP_AFTER_MINUTES = 10

/**
 * Club logos in the database (`club_directory_logos`), so that every instance serves the same
 * ones: each size a row, all three kept in one transaction. Logos never change once kept (their
 * name is their content's hash), so what one instance read it keeps in memory.
 */
export class LogoRows {
  readonly #read = new Map<string, Uint8Array>()

  constructor(private readonly sql: () => SQL) {}

  make(bytes: Uint8Array): Promise<Made> {
    return madeFrom(bytes, (made) => this.#keep(made))
  }

  async #keep(made: MadeLogo): Promise<void> {
    const sizes = Object.keys(made.files) as Size[]
    await this.sql()`
      INSERT INTO club_directory_logos (name, size, bytes)
      SELECT ${made.name}, s, b FROM unnest(${sizes}::text[], ${sizes.map((size) => made.files[size])}::bytea[]) AS t(s, b)
      ON CONFLICT (name, size) DO UPDATE SET kept_at = now()`
  }

  async read(name: string, size: Size): Promise<Uint8Array | null> {
    const key = `${name}-${size}`
    const held = this.#read.get(key)
    if (held) return held
    const [row] = await this.sql()`SELECT bytes FROM club_directory_logos WHERE name = ${name} AND size = ${size}`
    if (!row) return null
    const bytes = new Uint8Array(row.bytes)
    if (this.#read.size >= 512) this.#read.delete(this.#read.keys().next().value!)
    this.#read.set(key, bytes)
    return bytes
  }

  async names(): Promise<readonly string[]> {
    const rows = await this.sql()`SELECT DISTINCT name FROM club_directory_logos`
    return rows.map((row: { name: string }) => row.name)
  }

  async remove(name: string): Promise<void> {
    for (const key of this.#read.keys()) if (key.startsWith(name)) this.#read.delete(key)
    await this.sql()`
      DELETE FROM club_directory_logos WHERE name = ${name} AND kept_at < now() - make_interval(mins => ${SWEEP_AFTER_MINUTES})`
  }

  /** Writes every logo kept here as files in `dir` (a data file's own folder), the way the data file's own are written. */
  async exportTo(dir: string): Promise<number> {
    const rows = await this.sql()`SELECT name, size, bytes FROM club_directory_logos ORDER BY name`
    await mkdir(dir, { recursive: true })
    for (const { name, size, bytes } of rows) {
      const file = join(dir, fileName(name, size))
      await replaceFile(file, `${file}.tmp`, [new Uint8Array(bytes)])
    }
    await fsync(dir)
    return new Set(rows.map((row: { name: string }) => row.name)).size
  }

  /** Keeps every whole logo of `names` in `dir` (a data file's folder: each with both thumbnails) as it is. */
  async importFrom(dir: string, names: ReadonlySet<string>): Promise<number> {
    let entries: Set<string>
    try {
      entries = new Set(await readdir(dir))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0
      throw error
    }
    let kept = 0
    for (const name of names) {
      if (!filesOf(name).every((file) => entries.has(file))) continue
      const files = await Promise.all(filesOf(name).map((file) => Bun.file(join(dir, file)).bytes()))
      await this.sql()`
        INSERT INTO club_directory_logos (name, size, bytes)
        SELECT ${name}, s, b FROM unnest(${SIZES}::text[], ${files}::bytea[]) AS t(s, b)
        ON CONFLICT (name, size) DO NOTHING`
      kept++
    }
    return kept
  }
}
