import { requireUser, type Caller } from './caller'
import type { Catalog } from './catalog'
import { BodyCheck, fieldsOrRefuse, type Checked } from './check'
import { tagNamed, type ClubService } from './clubs'
import { NotFound, PermissionDenied } from './errors'
import type { Commit } from './journal'
import type { Undo } from './undo'
import type { ClubRecord, Tag } from '../model/club'
import { TagCreate, TagPatch, type TagWithCount } from '../model/tag'

const NAME_A_TAG = 'Send an object: {"name": "..."}.'
const TAG_CREATE_BODY = new BodyCheck(TagCreate, { notAnObject: NAME_A_TAG, trimmed: ['name'] })
const TAG_PATCH_BODY = new BodyCheck(TagPatch, { notAnObject: NAME_A_TAG, trimmed: ['name'] })
const TAKEN = 'A tag with this name already exists.'
/** Tag ids in paths: a positive integer as written by this service. */
const TAG_ID = /^[1-9][0-9]{0,14}$/

/** The category labels clubs carry (docs/reference.md §1.3, §14): everyone reads them, admins manage them. */
export class TagService {
  constructor(
    private readonly catalog: Catalog,
    private readonly clubs: ClubService,
    private readonly commit: Commit,
    private readonly now: () => Date,
  ) {}

  /** Every tag by id, each with the number of clubs carrying it that `caller` may see (docs/reference.md §11, §14). */
  list(caller: Caller): TagWithCount[] {
    const counts = this.#counts(caller)
    return this.catalog
      .tags()
      .sort((a, b) => a.id - b.id)
      .map((tag) => withCount(tag, counts))
  }

  retrieve(caller: Caller, id: string): TagWithCount {
    return withCount(this.#tag(id), this.#counts(caller))
  }

  async create(caller: Caller, body: unknown): Promise<TagWithCount> {
    this.#admin(caller)
    const { name } = fieldsOrRefuse(this.#unique(TAG_CREATE_BODY.check(body), null))
    const tag: Tag = { id: this.#nextId(), name }
    await this.commit(() => this.catalog.changeTag(tag.id, tag, (record) => record))
    return { ...tag, clubs: 0 }
  }

  /** Renames a tag; every club carrying it shows the new name at once (and its `updated_at` moves). */
  async rename(caller: Caller, id: string, body: unknown): Promise<TagWithCount> {
    this.#admin(caller)
    const tag = this.#tag(id)
    const { name = tag.name } = fieldsOrRefuse(this.#unique(TAG_PATCH_BODY.check(body), tag))
    if (name !== tag.name) {
      const now = this.now().toISOString()
      await this.commit(() => this.catalog.changeTag(tag.id, { id: tag.id, name }, (record) => touched(record, now)))
    }
    return this.retrieve(caller, id)
  }

  /** Deletes a tag, and takes it off every club, in one change. */
  async destroy(caller: Caller, id: string): Promise<void> {
    this.#admin(caller)
    const tag = this.#tag(id)
    const now = this.now().toISOString()
    const untagged = (record: ClubRecord) => ({
      ...touched(record, now),
      tags: record.tags.filter((other) => other !== tag.id),
    })
    await this.commit(() => this.catalog.changeTag(tag.id, null, untagged))
  }

  /**
   * Makes the tags that `refs` (a club write's tags) name by a name no tag has, as an import
   * does: their names, and how to take them back. A name no tag may have is left for the club's
   * check to refuse.
   */
  makeMissing(refs: readonly unknown[]): { names: string[]; undo: Undo[] } {
    const names: string[] = []
    const undo: Undo[] = []
    for (const ref of refs) {
      const name = this.#missingName(ref)
      if (name === null) continue
      const tag: Tag = { id: this.#nextId(), name }
      undo.push(this.catalog.changeTag(tag.id, tag, (record) => record))
      names.push(tag.name)
    }
    return { names, undo }
  }

  /** Whether makeMissing would make a tag for `refs`. */
  makesAny(refs: readonly unknown[]): boolean {
    return refs.some((ref) => this.#missingName(ref) !== null)
  }

  /** The name of the tag `ref` names by a name no tag has, which a tag may have; otherwise null. */
  #missingName(ref: unknown): string | null {
    const named = tagNamed(ref)
    if (named === null || 'id' in named) return null
    const checked = this.#unique(TAG_CREATE_BODY.check({ name: named.name }), null)
    return Object.keys(checked.errors).length ? null : checked.fields.name!
  }

  #nextId(): number {
    return Math.max(0, ...this.catalog.tags().map((t) => t.id)) + 1
  }

  #admin(caller: Caller): void {
    if (!requireUser(caller).isAdmin) throw new PermissionDenied()
  }

  #tag(id: string): Tag {
    const tag = TAG_ID.test(id) ? this.catalog.tag(Number(id)) : undefined
    if (!tag) throw new NotFound()
    return tag
  }

  /** The check, with a name another tag holds (ignoring case) refused. */
  #unique<T extends { name?: string }>(checked: Checked<T>, self: Tag | null): Checked<T> {
    const name = checked.fields.name
    const holder = name === undefined ? undefined : this.catalog.tagByName(name)
    if (holder && holder.id !== self?.id) checked.errors.name = [TAKEN]
    return checked
  }

  /** Clubs carrying each tag, among those `caller` may see, as they see them. */
  #counts(caller: Caller): Map<number, number> {
    const counts = new Map<number, number>()
    for (const { record } of this.catalog.live()) {
      const shown = this.clubs.shownTo(caller, record.code)
      for (const id of shown?.tags ?? []) counts.set(id, (counts.get(id) ?? 0) + 1)
    }
    return counts
  }
}

const withCount = (tag: Tag, counts: ReadonlyMap<number, number>): TagWithCount => ({
  id: tag.id,
  name: tag.name,
  clubs: counts.get(tag.id) ?? 0,
})

/** A new record of a club whose tags changed: live clubs show the change in `updated_at`. */
const touched = (record: ClubRecord, now: string): ClubRecord =>
  record.archived_at === null ? { ...record, updated_at: now } : { ...record }
