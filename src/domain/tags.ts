import type { Catalog } from './catalog'

export interface TagCount {
  readonly id: number
  readonly name: string
  /** How many clubs the public sees carry the tag. */
  readonly clubs: number
}

/** The category labels clubs carry (CONTRACT §1.3, §14). */
export class TagService {
  constructor(private readonly catalog: Catalog) {}

  /** Every tag by id, with the number of clubs the public sees (approved versions included, CONTRACT §11) carrying it. */
  list(): TagCount[] {
    const counts = new Map<number, number>()
    for (const { record } of this.catalog.live('public')) {
      if (!record.active) continue
      for (const id of record.tags) counts.set(id, (counts.get(id) ?? 0) + 1)
    }
    return this.catalog
      .tags()
      .sort((a, b) => a.id - b.id)
      .map((tag) => ({ id: tag.id, name: tag.name, clubs: counts.get(tag.id) ?? 0 }))
  }
}
