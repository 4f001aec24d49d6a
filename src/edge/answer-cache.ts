import type { ClubRecord } from '../model/club'
import { Prepared } from './prepared'
import { VersionKeyedCache } from './version-keyed-cache'

// Every answer cache of the service lives here, and each is correct for one reason: records
// never change in place. A change stores a new record object and moves the data version, so
// an answer kept per record object, or per data version, can never be stale. An answer also
// shows its tags' names, which live apart from the record: a tag renamed or deleted therefore
// stores a new record of every club carrying it (Catalog.changeTag), in the same commit. (The
// store keeps each record's serialised text on the same ground: src/store/snapshot-text.ts.)

const LIST_ANSWERS = 512

/** A list answer as it is kept: its body, and the headers that belong to it (X-Total-Count, Link, ...). */
export interface ListAnswer {
  readonly body: Prepared
  readonly headers: Readonly<Record<string, string>>
}

/** Something made once per record, as the public sees it. */
class PerRecord<T> {
  #made = new WeakMap<ClubRecord, T>()

  constructor(private readonly make: (record: ClubRecord) => T) {}

  of(record: ClubRecord): T {
    let made = this.#made.get(record)
    if (made === undefined) this.#made.set(record, (made = this.make(record)))
    return made
  }
}

/** The caches of one app: list answers, and each club's public detail answer and list item text. */
export class AnswerCaches {
  /** List answers, made once per data version, caller and URL. */
  readonly lists = new VersionKeyedCache<ListAnswer>(LIST_ANSWERS)
  readonly details: PerRecord<Prepared>
  readonly listItems: PerRecord<string>

  constructor(publicDetail: (record: ClubRecord) => unknown, publicListItem: (record: ClubRecord) => unknown) {
    this.details = new PerRecord((record) => Prepared.of(publicDetail(record)))
    this.listItems = new PerRecord((record) => JSON.stringify(publicListItem(record)))
  }
}
