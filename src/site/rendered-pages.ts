import type { Prepared } from '../edge/prepared'

/** How many distinct anonymous pages (URL: host, path and query) are kept for one data version. */
const MAX_PAGES = 500

/**
 * Pages for nobody in particular, rendered once per data version (as the list's JSON is): the
 * directory's first page is served from here as cheaply as the list. A new version empties it.
 */
export class RenderedPages {
  #version = ''
  readonly #pages = new Map<string, Prepared>()

  constructor(private readonly version: () => string) {}

  get(key: string, render: () => Prepared): Prepared {
    const version = this.version()
    if (version !== this.#version) {
      this.#pages.clear()
      this.#version = version
    }
    let page = this.#pages.get(key)
    if (!page) {
      if (this.#pages.size >= MAX_PAGES) this.#pages.clear()
      page = render()
      this.#pages.set(key, page)
    }
    return page
  }
}
