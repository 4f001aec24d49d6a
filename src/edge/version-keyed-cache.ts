/**
 * Values made from the directory at one data version, by key: a value is kept while the version
 * stands, and a new version empties the cache, so nothing kept is ever stale. At most `limit` are
 * kept: one more empties it (emptying costs less than keeping an order, and many keys at one
 * version only come from a crawl).
 */
export class VersionKeyedCache<V> {
  #version = ''
  readonly #values = new Map<string, V>()

  constructor(private readonly limit: number) {}

  /** The value kept under `key` at `version`, or undefined. */
  get(version: string, key: string): V | undefined {
    if (version !== this.#version) {
      this.#values.clear()
      this.#version = version
    }
    return this.#values.get(key)
  }

  /** Keeps `value`, made at `version`, unless the data has moved on while it was made. */
  set(version: string, key: string, value: V): void {
    if (version !== this.#version) return
    if (this.#values.size >= this.limit) this.#values.clear()
    this.#values.set(key, value)
  }
}
