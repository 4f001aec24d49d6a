import { BadRequest, ApiError } from './errors'
import type { Undo } from './undo'
import type { ChangeType } from '../model/change'

/** How many of the newest events are kept at least (docs/reference.md §18). */
export const KEPT_CHANGES = 10_000

/** An event as the log keeps it: its number and type, and its JSON text, made once and sent as it is. */
export interface LoggedChange {
  readonly seq: number
  readonly type: ChangeType
  readonly text: string
}

/** What the public saw of one club before a write, and sees after it (JSON text of the detail; null: not public). */
export interface PublicChange {
  readonly code: string
  readonly before: string | null
  readonly after: string | null
}

/** A `since` this log can no longer answer from: what it kept was trimmed past it, or it names a future. */
export class ChangesGone extends ApiError {
  constructor(oldestSeq: number) {
    super(410, {
      detail:
        'The changes after this point are no longer kept, or never were: list the clubs again and follow from the X-Changes-Seq of that answer.',
      oldest_seq: oldestSeq,
    })
  }
}

type Listener = (events: readonly LoggedChange[]) => void

/**
 * The ordered log of changes to what the public sees (docs/reference.md §18). A write's effect on the
 * public's clubs becomes events numbered at once (numbers never reused, even when the write is
 * refused and taken back); they are published — to `since` readers, streams and webhooks — only
 * once the write is on disk, oldest first.
 */
export class ChangeLog {
  #kept: LoggedChange[]
  /** The highest number handed out. */
  #issued: number
  /** The highest number on disk and announced; readers never see past it. */
  #published: number
  /** Every event at or below this number is no longer kept. */
  #trimmedUpTo: number
  #listeners = new Set<Listener>()

  constructor(
    kept: readonly LoggedChange[],
    { issued, trimmedUpTo, keep = KEPT_CHANGES }: { issued: number; trimmedUpTo: number; keep?: number },
  ) {
    this.#kept = [...kept]
    this.#issued = Math.max(issued, trimmedUpTo, kept.at(-1)?.seq ?? 0)
    this.#published = kept.at(-1)?.seq ?? trimmedUpTo
    this.#trimmedUpTo = trimmedUpTo
    this.keep = keep
  }

  /** How many of the newest events are kept at least. */
  readonly keep: number

  /** The newest number readers may see (X-Changes-Seq, `last_seq`). */
  get lastSeq(): number {
    return this.#published
  }

  /** The highest number handed out, published or not: the data file keeps it so that none is used twice. */
  get issued(): number {
    return this.#issued
  }

  /** Numbers the public changes among `changes`, stamped `at`; returns those events, and how to take them back. */
  record(changes: readonly PublicChange[], at: string): { events: readonly LoggedChange[]; undo: Undo } {
    const added: LoggedChange[] = []
    for (const { code, before, after } of changes) {
      if (before === after) continue
      const type: ChangeType = before === null ? 'club.added' : after === null ? 'club.removed' : 'club.changed'
      const seq = ++this.#issued
      const text = `{"seq":${seq},"type":"${type}","code":${JSON.stringify(code)},"at":"${at}","club":${after ?? 'null'}}`
      added.push({ seq, type, text })
    }
    this.#kept.push(...added)
    return {
      events: added,
      undo: () => {
        for (const event of [...added].reverse()) if (this.#kept.at(-1) === event) this.#kept.pop()
      },
    }
  }

  /**
   * Takes in events another instance numbered and committed (docs/reference.md §19), oldest first; the
   * next `publish` announces them. Only events past every number known here are taken.
   */
  adopt(events: readonly LoggedChange[]): void {
    for (const event of events) {
      if (event.seq <= this.#issued) continue
      this.#kept.push(event)
      this.#issued = event.seq
    }
  }

  /**
   * Numbers on from `seq`, the highest the database committed: numbers this instance burnt in
   * writes the database refused were never seen, and the shared sequence has no gaps.
   */
  resumeAt(seq: number): void {
    this.#issued = seq
  }

  /**
   * Announces the events numbered up to `upTo` (all those kept when not said), which are on disk.
   * A write that landed publishes up to its own events: those numbered after them belong to
   * writes still waiting for a snapshot, which may never land.
   */
  publish(upTo = this.#kept.at(-1)?.seq ?? this.#published): void {
    const from = this.#published
    const end = this.#indexAfter(upTo)
    const last = this.#kept[end - 1]?.seq ?? from
    if (last <= from) return
    this.#published = last
    const fresh = this.#kept.slice(this.#indexAfter(from), end)
    this.#trim()
    for (const listener of this.#listeners) listener(fresh)
  }

  /**
   * Up to `limit` published events after `since`, oldest first. Throws ChangesGone when some
   * event after `since` is no longer kept, or `since` is past the newest (a data file restored
   * from a backup: the follower saw a history that is gone).
   */
  since(since: number, limit: number): readonly LoggedChange[] {
    if (since < this.#trimmedUpTo || since > this.#published) throw new ChangesGone(this.oldestSeq)
    const start = this.#indexAfter(since)
    const out: LoggedChange[] = []
    for (let i = start; i < this.#kept.length && out.length < limit; i++) {
      const event = this.#kept[i]!
      if (event.seq > this.#published) break
      out.push(event)
    }
    return out
  }

  /** The published events kept, newest first (the Atom feed's, docs/reference.md §24). */
  *newestFirst(): Generator<LoggedChange> {
    for (let i = this.#indexAfter(this.#published) - 1; i >= 0; i--) yield this.#kept[i]!
  }

  /** The oldest number still kept (the next one when none is). */
  get oldestSeq(): number {
    return this.#kept[0]?.seq ?? this.#published + 1
  }

  /** Calls `listener` with each batch of newly published events; returns how to stop. */
  follow(listener: Listener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** Every event at or below this number is no longer kept. */
  get trimmedUpTo(): number {
    return this.#trimmedUpTo
  }

  /** The events kept, up to `seq`: what a log file rewritten now holds. */
  keptUpTo(seq: number): readonly LoggedChange[] {
    return this.#kept.slice(0, this.#indexAfter(seq))
  }

  /** Keeps twice the retention at most, then the newest `keep`: trimming is rare and the log never drops below `keep`. */
  #trim(): void {
    if (this.#kept.length <= 2 * this.keep) return
    const drop = this.#kept.length - this.keep
    this.#trimmedUpTo = this.#kept[drop - 1]!.seq
    this.#kept = this.#kept.slice(drop)
  }

  /** The index of the first kept event with a number above `seq`. */
  #indexAfter(seq: number): number {
    let low = 0
    let high = this.#kept.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if (this.#kept[mid]!.seq <= seq) low = mid + 1
      else high = mid
    }
    return low
  }
}

/** `since`, `limit` or `Last-Event-ID` as a number, or a 400 naming it. */
export function changeNumber(name: string, value: string, { min, max }: { min: number; max: number }): number {
  if (!/^\d{1,16}$/.test(value) || Number(value) < min || Number(value) > max)
    throw new BadRequest(`${name} must be a whole number from ${min} to ${max}.`)
  return Number(value)
}
