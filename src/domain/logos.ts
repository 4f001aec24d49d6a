import { availableParallelism } from 'node:os'
import { requireUser, type Caller } from './caller'
import type { Catalog } from './catalog'
import type { ClubService } from './clubs'
import { ApiError, StorageUnavailable, ValidationFailed } from './errors'
import { FairPool } from './fair-pool'
import type { ClubRecord } from '../model/club'

/** The sizes a logo is served in: as sent (at most 4,096 px a side), and two square thumbnails. */
export const LOGO_SIZES = ['full', '64', '256'] as const
export type LogoSize = (typeof LOGO_SIZES)[number]

/** A logo's name: the SHA-256 of its stored WebP bytes, in hex. */
export const LOGO_NAME = /^[0-9a-f]{64}$/

/** The path a logo is served at; `image_url` is this path on the service's own origin. */
export const logoPath = (name: string) => `/api/logos/${name}.webp`

const LOGO_URL_PATH = /\/api\/logos\/([0-9a-f]{64})\.webp$/

/** The path of the logo `url` names on this service (whatever origin it was set on), or null. */
export function ownLogoPath(url: string): string | null {
  const name = LOGO_URL_PATH.exec(url)?.[1]
  return name ? logoPath(name) : null
}

/** Whether `url` is a logo this service keeps, on the origin `origin` it is reached at. */
export const isOwnLogo = (url: string, origin: string) =>
  url.startsWith(`${origin}/`) && LOGO_URL_PATH.test(url.slice(origin.length))

/** A logo made from an upload, not kept yet: its name, and how to keep it. */
export interface MadeLogo {
  readonly name: string
  /** Keeps it, its thumbnails too; written again when its files are gone, whatever was kept before. */
  keep(): Promise<void>
}

/**
 * Where logos are kept, by content: the wiring hands one in (files beside the data file, or memory).
 * `make` checks the image (PNG, JPEG or WebP by its bytes, within the limits) before making anything.
 */
export interface LogoStore {
  /** Makes an image's logo as WebP with its thumbnails (the work of the processor, nothing kept yet), or says in words why it is refused. */
  make(bytes: Uint8Array): Promise<MadeLogo | { readonly problem: string }>
  /** A kept logo's WebP bytes in `size`, or null when none is kept by that name. */
  read(name: string, size: LogoSize): Promise<Uint8Array | null>
  /** The names of the logos kept. */
  names(): Promise<readonly string[]>
  /** Removes a logo with its thumbnails (nothing when none is kept by that name). */
  remove(name: string): Promise<void>
}

/** A logo as the edge read it: its bytes, or why they were not read (too big). */
export type LogoUpload = { readonly bytes: Uint8Array } | { readonly problem: string }

/** An upload made into a logo, not set yet; or why it is refused. */
export type PreparedLogo = { readonly made: MadeLogo } | { readonly problem: string }

/** The logo name an `image_url` points to, or null when it points to no logo of ours. */
export function logoNameOf(url: string | null | undefined): string | null {
  if (!url) return null
  try {
    return LOGO_URL_PATH.exec(new URL(url).pathname)?.[1] ?? null
  } catch {
    return null
  }
}

/** The logos `records` point to: each one's `image_url`, and its approved version's. */
export function logoNamesOf(records: Iterable<ClubRecord>): Set<string> {
  const names = new Set<string>()
  for (const record of records) {
    for (const url of [record.image_url, record.approved_version?.image_url]) {
      const name = logoNameOf(url)
      if (name) names.add(name)
    }
  }
  return names
}

const imageError = (problem: string) => new ValidationFailed({ image: [problem] })
/** A failure of the store or the image library is the service's: a 503, the answers the pool gives as they are. */
const unavailable = (error: unknown): never => {
  throw error instanceof ApiError ? error : new StorageUnavailable()
}

/**
 * Where every upload's image is made, for the whole process: two at once (one on a single core),
 * one of each caller's at a time, the next slot going round the callers with uploads waiting. A
 * logo is made one size after another, so two take two of libuv's four threads, which the data
 * file's writes share; libvips spreads each size over the cores on threads of its own. A caller
 * may have 8 uploads waiting (a 429 past that), and 64 may wait in all (a 503).
 */
const IMAGE_POOL = new FairPool({
  slots: Math.max(1, Math.min(2, availableParallelism())),
  perCaller: 1,
  waitingPerCaller: 8,
  waiting: 64,
})

/**
 * Club logos (docs/reference.md §21): a new logo is kept, then set as `image_url` through the same update
 * path as a PATCH by the same caller (so it is reviewed like one); a logo no club version points
 * to any more is swept from the store. Images are made in the process's fair pool (each caller's
 * uploads wait only behind their own and one turn of each other caller's); keeping one (writing
 * its files) and sweeping take turns, so a sweep never removes a logo kept for a change not yet made.
 */
export class LogoService {
  /** Logos kept for changes under way, by how many: a sweep leaves them. */
  readonly #held = new Map<string, number>()
  #turn: Promise<unknown> = Promise.resolve()
  #queuedSweep: Promise<void> | null = null
  /** The catalog version last swept at, and whether a logo was kept since: a sweep with neither moved has nothing to do. */
  #sweptAt = -1
  #keptSince = true

  constructor(
    private readonly clubs: ClubService,
    private readonly catalog: Catalog,
    private readonly store: LogoStore,
  ) {}

  /**
   * Makes club `code`'s logo from an upload, for its owners, officers and admins: in the image
   * pool, before the write that sets it takes its turn (no other write waits for an image). The
   * logo made, or why the upload is refused (the write says it, in its turn).
   */
  async prepare(caller: Caller, code: string, upload: LogoUpload): Promise<PreparedLogo> {
    const user = requireUser(caller)
    this.clubs.editable(user, code)
    if ('problem' in upload) return upload
    const made = await IMAGE_POOL.run(user.username, () => this.store.make(upload.bytes)).catch(unavailable)
    return 'problem' in made ? made : { made }
  }

  /** Sets club `code`'s logo to one `prepare` made; `origin` is the service's as the client reached it. */
  async put(caller: Caller, code: string, logo: PreparedLogo, origin: string): Promise<ClubRecord> {
    const user = requireUser(caller)
    this.clubs.editable(user, code)
    if ('problem' in logo) throw imageError(logo.problem)
    const { made } = logo
    await this.#inTurn(async () => {
      await made.keep().catch(unavailable)
      this.#hold(made.name)
    })
    try {
      return await this.clubs.update(user, code, { image_url: `${origin}${logoPath(made.name)}` }, true)
    } finally {
      this.#release(made.name)
      await this.sweep()
    }
  }

  /** Takes club `code`'s logo away (`image_url` null), as a PATCH by the same caller would. */
  async remove(caller: Caller, code: string): Promise<void> {
    await this.clubs.update(caller, code, { image_url: null }, true)
    await this.sweep()
  }

  /** A kept logo's bytes, or null (a name that is no logo's is none). */
  read(name: string, size: LogoSize): Promise<Uint8Array | null> {
    return LOGO_NAME.test(name) ? this.store.read(name, size) : Promise.resolve(null)
  }

  /**
   * Removes the logos no club version (a record, archived ones too, or its approved version)
   * points to. Calls made while one waits share it; a store that fails is tried again next time.
   */
  sweep(): Promise<void> {
    this.#queuedSweep ??= this.#inTurn(async () => {
      this.#queuedSweep = null
      const version = this.catalog.version
      if (version === this.#sweptAt && !this.#keptSince) return
      this.#keptSince = false
      try {
        const kept = await this.store.names()
        if (kept.length === 0) return void (this.#sweptAt = version)
        const referenced = this.#referenced()
        for (const name of kept) if (!referenced.has(name)) await this.store.remove(name)
        this.#sweptAt = version
      } catch {
        this.#keptSince = true
      }
    })
    return this.#queuedSweep
  }

  #referenced(): Set<string> {
    const names = logoNamesOf(this.catalog.records())
    for (const name of this.#held.keys()) names.add(name)
    return names
  }

  #inTurn<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#turn.then(work)
    this.#turn = run.catch(() => undefined)
    return run
  }

  #hold(name: string): void {
    this.#held.set(name, (this.#held.get(name) ?? 0) + 1)
    this.#keptSince = true
  }

  #release(name: string): void {
    const count = (this.#held.get(name) ?? 1) - 1
    if (count > 0) this.#held.set(name, count)
    else this.#held.delete(name)
  }
}
