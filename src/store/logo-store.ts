import { mkdir, readdir, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fsync } from './fsync'
import { makeLogo, type MadeLogo } from './logo-images'
import { replaceFile } from './replace-file'
import { IN_MEMORY } from './store'

type Size = keyof MadeLogo['files']
/** A logo made, to keep; or why the upload is refused. */
export type Made = { readonly name: string; keep(): Promise<void> } | { readonly problem: string }

/** Makes an upload's logo (the processor's work), to be kept by `keep` when its maker says so. */
export async function madeFrom(bytes: Uint8Array, keep: (made: MadeLogo) => Promise<void>): Promise<Made> {
  const made = await makeLogo(bytes)
  return 'problem' in made ? made : { name: made.name, keep: () => keep(made) }
}

/** `<name>.webp`, the logo as sent; `<name>-64.webp` and `<name>-256.webp`, its thumbnails. */
export const fileName = (name: string, size: Size) => (size === 'full' ? `${name}.webp` : `${name}-${size}.webp`)
export const SIZES: readonly Size[] = ['64', '256', 'full']
const LOGO_FILE = /^([0-9a-f]{64})\.webp$/
const THUMBNAIL_FILE = /^([0-9a-f]{64})-(?:64|256)\.webp$/

/**
 * Club logos as files in `dir` (`logos/` beside the data file), by content: each written the way
 * the data file is (a temp file, every byte checked, synced, renamed), thumbnails first, so a logo's
 * own file is there only once its thumbnails are. Files never change once written. At the first
 * look, what a crash left half-done (temp files, thumbnails without their logo) is removed.
 */
export class LogoFiles {
  #names: Promise<Set<string>> | null = null

  constructor(
    readonly dir: string,
    private readonly readOnly = false,
  ) {}

  make(bytes: Uint8Array): Promise<Made> {
    return madeFrom(bytes, (made) => this.#keep(made))
  }

  async #keep(made: MadeLogo): Promise<void> {
    const names = await this.#known()
    if (names.has(made.name)) return
    await mkdir(this.dir, { recursive: true })
    try {
      for (const size of SIZES) {
        const file = join(this.dir, fileName(made.name, size))
        await replaceFile(file, `${file}.tmp`, [made.files[size]])
      }
      await fsync(this.dir)
    } catch (error) {
      await this.#removeFiles(made.name).catch(() => undefined)
      throw error
    }
    names.add(made.name)
  }

  async read(name: string, size: Size): Promise<Uint8Array | null> {
    if (!(await this.#known()).has(name)) return null
    try {
      return await Bun.file(join(this.dir, fileName(name, size))).bytes()
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw error
    }
  }

  async names(): Promise<readonly string[]> {
    return [...(await this.#known())]
  }

  async remove(name: string): Promise<void> {
    ;(await this.#known()).delete(name)
    await this.#removeFiles(name)
  }

  /** The logo first: thumbnails left by a failure are removed at the next start. */
  async #removeFiles(name: string): Promise<void> {
    for (const size of [...SIZES].reverse()) await rm(join(this.dir, fileName(name, size)), { force: true })
  }

  #known(): Promise<Set<string>> {
    this.#names ??= this.#look().catch((error) => {
      this.#names = null
      throw error
    })
    return this.#names
  }

  async #look(): Promise<Set<string>> {
    let entries: string[]
    try {
      entries = await readdir(this.dir)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Set()
      throw error
    }
    const names = new Set(entries.flatMap((entry) => LOGO_FILE.exec(entry)?.[1] ?? []))
    if (this.readOnly) return names
    for (const entry of entries) {
      const thumbnailOf = THUMBNAIL_FILE.exec(entry)?.[1]
      if (entry.endsWith('.tmp') || (thumbnailOf && !names.has(thumbnailOf)))
        await rm(join(this.dir, entry), { force: true })
    }
    return names
  }
}

/** Club logos in memory, for a directory kept in memory. */
export class LogoMemory {
  readonly #logos = new Map<string, MadeLogo['files']>()

  make(bytes: Uint8Array): Promise<Made> {
    return madeFrom(bytes, async (made) => void this.#logos.set(made.name, made.files))
  }

  async read(name: string, size: Size): Promise<Uint8Array | null> {
    return this.#logos.get(name)?.[size] ?? null
  }

  async names(): Promise<readonly string[]> {
    return [...this.#logos.keys()]
  }

  async remove(name: string): Promise<void> {
    this.#logos.delete(name)
  }
}

/** The folder a data file's logos are kept in. */
export const logoDirOf = (dataFile: string) => join(dirname(dataFile), 'logos')

/** The logos of a data file: in `logos/` beside it, or in memory for `:memory:`. */
export function openLogos(dataFile: string, { readOnly = false } = {}): LogoFiles | LogoMemory {
  return dataFile === IN_MEMORY ? new LogoMemory() : new LogoFiles(logoDirOf(dataFile), readOnly)
}
