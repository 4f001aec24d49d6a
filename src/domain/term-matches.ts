/** How many search terms' matches are kept at once; the least recently used one goes first. */
const TERMS_KEPT = 16

/** A term's matches as of one version: 1 at the position of each entry whose text holds it. */
interface Kept {
  version: number
  matched: Uint8Array
}

/**
 * Which entries hold a search term (docs/reference.md §16), by entry position, kept from one search
 * to the next: after a write, only the positions it changed are read again. Read whole each time
 * the data moved, a search of ten thousand clubs took 6.7 ms (their folded texts lie all over the
 * heap), and in a mix of reads and writes it was made again after every write.
 */
export class TermMatches {
  /** The version at which each position last changed. */
  #stamps = new Uint32Array(256)
  readonly #terms = new Map<string, Kept>()

  /** `holds(position, term)`: whether the entry at that position holds the term (false where there is none). */
  constructor(private readonly holds: (position: number, term: string) => boolean) {}

  /** Notes that the entry at `position` changed (or went) at `version`. */
  changed(position: number, version: number): void {
    if (position >= this.#stamps.length) {
      const grown = new Uint32Array(Math.max(2 * this.#stamps.length, position + 1))
      grown.set(this.#stamps)
      this.#stamps = grown
    }
    this.#stamps[position] = version
  }

  /** The entries holding `term` at `version`, the latest: 1 at each one's position, for `positions` positions at least. */
  of(term: string, version: number, positions: number): Uint8Array {
    let kept = this.#terms.get(term)
    if (kept)
      this.#terms.delete(term) // re-inserted below: most recently used last
    else if (this.#terms.size >= TERMS_KEPT) this.#terms.delete(this.#terms.keys().next().value!)
    if (!kept) {
      const matched = new Uint8Array(Math.max(positions, this.#stamps.length))
      for (let p = 0; p < positions; p++) matched[p] = this.holds(p, term) ? 1 : 0
      kept = { version, matched }
    } else if (kept.version !== version) {
      // Positions made since are stamped later than the kept version too: they are read here.
      if (kept.matched.length < positions) {
        const grown = new Uint8Array(Math.max(positions, this.#stamps.length))
        grown.set(kept.matched)
        kept.matched = grown
      }
      const { matched } = kept
      const stamps = this.#stamps
      for (let p = 0; p < positions; p++) if (stamps[p]! > kept.version) matched[p] = this.holds(p, term) ? 1 : 0
      kept.version = version
    }
    this.#terms.set(term, kept)
    return kept.matched
  }
}
