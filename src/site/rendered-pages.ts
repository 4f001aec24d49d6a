import type { Prepared } from '../edge/prepared'
import { VersionKeyedCache } from '../edge/version-keyed-cache'

/** How many distinct anonymous pages (URL: host, path and query) are kept for one data version. */
const MAX_PAGES = 500

/**
 * Pages for nobody in particular (or the content of pages the same for everyone), rendered once per
 * data version (as the list's JSON is): the directory's first page is served from here as cheaply
 * as the list. A new version empties it.
 */
export class RenderedPages<T = Prepared> {
  readonly #pages = new VersionKeyedCache<T>(MAX_PAGES)

  constructor(private readonly version: () => string) {}

  get(key: string, render: () => T): T {
    const version = this.version()
    let page = this.#pages.get(version, key)
    if (!page) this.#pages.set(version, key, (page = render()))
    return page
  }
}

/** How many signed-in people's pages are kept at once (the oldest kept goes first). */
const MAX_PERSONAL_PAGES = 200

/**
 * Pages of one signed-in person (by session and URL), each kept with the version of everything it
 * was made from and served again while that version stands: My clubs is rendered once per change
 * of what it shows, not once per request.
 */
export class PersonalPages {
  readonly #pages = new Map<string, { readonly version: string; readonly page: Prepared }>()

  /** The page kept under `key` when it was made at `version`. */
  kept(key: string, version: string): Prepared | undefined {
    const kept = this.#pages.get(key)
    return kept?.version === version ? kept.page : undefined
  }

  keep(key: string, version: string, page: Prepared): void {
    this.#pages.delete(key)
    if (this.#pages.size >= MAX_PERSONAL_PAGES) this.#pages.delete(this.#pages.keys().next().value!)
    this.#pages.set(key, { version, page })
  }
}
