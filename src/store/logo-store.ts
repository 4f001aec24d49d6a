import { mkdir, readdir, rename, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fsync } from './fsync'
import { linkFiles } from './link-files'
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

/** The files of logo `name`, every size. */
export const filesOf = (name: string) => SIZES.map((size) => fileName(name, size))

/**
 * Logos kept the way of old in `logos/` beside the data file, a folder every data file there
 * shared: at the first start with a folder of its own, a data file takes in the logos its clubs
 * name (linked, so the folder and any other data file's logos stay as they are).
 */
export interface OldLogos {
  /** The old folder. */
  readonly from: string
  /** The names of the logos this data file's clubs point to. */
  readonly named: () => Iterable<string>
  /** Told once they are taken in: how many, and how many named were not in the old folder whole. */
  readonly told?: (taken: { readonly from: string; readonly to: string; logos: number; missing: number }) => void
}

/**
 * Club logos as files in `dir` (`<data file>.logos/`, the data file's alone), by content: each
 * written the way the data file is (a temp file, every byte checked, synced, renamed), thumbnails
 * first, so a logo's own file is there only once its thumbnails are. Files never change once
 * written; one to keep is written again when any of its files is gone, whatever was known. Only
 * files in `dir` are ever removed: at the first look, what a crash left half-done (temp files,
 * thumbnails without their logo), and then the logos swept. Without `dir` yet, the first look
 * takes in the logos this data file names from the old shared folder (`old`); read-only, it
 * serves them from there.
 */
export class LogoFiles {
  #names: Promise<Set<string>> | null = null
  /** Where logos are read from: `dir`, or the old folder for a read-only directory not moved yet. */
  #readFrom: string

  constructor(
    readonly dir: string,
    private readonly options: { readonly readOnly?: boolean; readonly old?: OldLogos } = {},
  ) {
    this.#readFrom = dir
  }

  make(bytes: Uint8Array): Promise<Made> {
    return madeFrom(bytes, (made) => this.#keep(made))
  }

  async #keep(made: MadeLogo): Promise<void> {
    const names = await this.#known()
    // Files, not what this process remembers: one removed behind its back is written again.
    if (await this.#whole(made.name)) return void names.add(made.name)
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

  async #whole(name: string): Promise<boolean> {
    const present = await Promise.all(filesOf(name).map((file) => Bun.file(join(this.dir, file)).exists()))
    return present.every(Boolean)
  }

  async read(name: string, size: Size): Promise<Uint8Array | null> {
    if (!(await this.#known()).has(name)) return null
    try {
      return await Bun.file(join(this.#readFrom, fileName(name, size))).bytes()
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw error
    }
  }

  async names(): Promise<readonly string[]> {
    return [...(await this.#known())]
  }

  async remove(name: string): Promise<void> {
    if (this.#readFrom !== this.dir) return
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
    let entries = await entriesOf(this.dir)
    const { readOnly = false, old } = this.options
    if (entries === null && old) {
      const listed = await entriesOf(old.from)
      if (listed === null) return new Set()
      const before = new Set(listed)
      const wanted = new Set(old.named())
      const named = [...wanted].filter((name) => filesOf(name).every((file) => before.has(file)))
      if (readOnly) {
        this.#readFrom = old.from
        return new Set(named)
      }
      await this.#takeIn(old, named)
      old.told?.({ from: old.from, to: this.dir, logos: named.length, missing: wanted.size - named.length })
      entries = (await entriesOf(this.dir)) ?? []
    }
    if (entries === null) return new Set()
    const names = new Set(entries.flatMap((entry) => LOGO_FILE.exec(entry)?.[1] ?? []))
    if (readOnly) return names
    for (const entry of entries) {
      const thumbnailOf = THUMBNAIL_FILE.exec(entry)?.[1]
      if (entry.endsWith('.tmp') || (thumbnailOf && !names.has(thumbnailOf)))
        await rm(join(this.dir, entry), { force: true })
    }
    return names
  }

  /**
   * Links the old folder's files of `names` into a folder of this data file's own, made whole
   * beside it and renamed into place: a start cut short leaves only that temp folder, made again
   * at the next one. Nothing of the old folder is changed.
   */
  async #takeIn(old: OldLogos, names: readonly string[]): Promise<void> {
    const temp = `${this.dir}.tmp`
    await rm(temp, { recursive: true, force: true })
    await mkdir(temp, { recursive: true })
    await linkFiles(old.from, temp, names.flatMap(filesOf))
    await fsync(temp)
    await rename(temp, this.dir)
    await fsync(dirname(this.dir))
  }
}

/** The names in folder `dir`, or null when there is none. */
async function entriesOf(dir: string): Promise<string[] | null> {
  try {
    return await readdir(dir)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
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

/** The folder a data file's logos are kept in: its own, `<data file>.logos/`. */
export const logoDirOf = (dataFile: string) => `${dataFile}.logos`

/** The folder every data file beside it shared for its logos before each had its own. */
export const oldLogoDirOf = (dataFile: string) => join(dirname(dataFile), 'logos')

/** Where a data file's logos are now: its own folder, or, before its first start since, the old shared one. */
export const logoSourceOf = async (dataFile: string) =>
  (await entriesOf(logoDirOf(dataFile))) !== null ? logoDirOf(dataFile) : oldLogoDirOf(dataFile)

/**
 * The logos of a data file: in its own folder, or in memory for `:memory:`. `named` says which
 * logos its clubs point to, for taking them in from the old shared `logos/` at the first start.
 */
export function openLogos(
  dataFile: string,
  { readOnly = false, old }: { readOnly?: boolean; old?: Omit<OldLogos, 'from'> } = {},
): LogoFiles | LogoMemory {
  if (dataFile === IN_MEMORY) return new LogoMemory()
  return new LogoFiles(logoDirOf(dataFile), { readOnly, old: old && { ...old, from: oldLogoDirOf(dataFile) } })
}
