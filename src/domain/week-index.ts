// The meetings of a whole directory indexed for `free=` (docs/reference.md §24), made once per state of
// the catalog rather than per request: every meeting span in one list ordered by day and start
// minute (a counting sort, the keys being minutes of the week), each with its end and its club's
// position. A query then reads, for each free slot, only the spans starting inside it, and marks
// the positions of the clubs with one that also ends inside it; filtering the directory is one
// typed-array read per club instead of comparing each club's meetings with each slot.
import type { MeetingWeek, WeekSpan } from './week-slots'

/** Start minutes of a day as keys: 0 to 1440 (a meeting may start at the day's end). */
const DAY_KEYS = 1441

/** The index of the weeks at positions 0 … size-1; see `weekIndex`. */
export interface WeekIndex {
  /** How many positions it spans: the length of the marks `fitting` gives. */
  readonly size: number
  /** Whether the week at a position is indexed; one that is not (malformed, absent) `fitting` never marks. */
  covers(position: number): boolean
  /**
   * 1 at the position of every indexed week with a span wholly inside one of `slots` (the same day,
   * starting no earlier and ending no later), 0 elsewhere: exactly what `freeSlotsTest(slots)` says
   * of each indexed week. `slots` as `parseSlots` gives them (days 0-6); a fresh array per call.
   */
  fitting(slots: readonly WeekSpan[]): Uint8Array
}

/**
 * A week the index can hold exactly: whole minutes, days 0-6, each span starting no later than it
 * ends, within 00:00-24:00, and its days mask the days of its spans. Any other week (none comes
 * from `meetingWeek` over checked meetings) is left to the straightforward test.
 */
function indexable({ spans, days }: MeetingWeek): boolean {
  let mask = 0
  for (let i = 0; i < spans.length; i++) {
    const { day, start, end } = spans[i]!
    if (!Number.isInteger(day) || day < 0 || day > 6) return false
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || start > end || end > 1440) return false
    mask |= 1 << day
  }
  return mask === days
}

/** Indexes `weeks`, the week at each position (none where there is no club). */
export function weekIndex(weeks: readonly (MeetingWeek | undefined)[]): WeekIndex {
  const size = weeks.length
  const covered = new Uint8Array(size)
  // first[key] … first[key + 1] - 1: the spans of key = day * DAY_KEYS + start, in position order.
  const first = new Int32Array(7 * DAY_KEYS + 1)
  let total = 0
  for (let p = 0; p < size; p++) {
    const week = weeks[p]
    if (!week || !indexable(week)) continue
    covered[p] = 1
    const { spans } = week
    for (let i = 0; i < spans.length; i++) first[spans[i]!.day * DAY_KEYS + spans[i]!.start + 1]!++
    total += spans.length
  }
  for (let key = 1; key < first.length; key++) first[key]! += first[key - 1]!
  const ends = new Int32Array(total)
  const owners = new Int32Array(total)
  const next = first.slice(0, -1)
  for (let p = 0; p < size; p++) {
    if (!covered[p]) continue
    const { spans } = weeks[p]!
    for (let i = 0; i < spans.length; i++) {
      const { day, start, end } = spans[i]!
      const at = next[day * DAY_KEYS + start]!++
      ends[at] = end
      owners[at] = p
    }
  }
  return {
    size,
    covers: (position) => covered[position] === 1,
    fitting(slots) {
      const marks = new Uint8Array(size)
      for (const { day, start, end } of slots) {
        // Spans starting from the slot's start to its end (an indexed span ends no earlier than it starts).
        const from = Math.max(0, Math.ceil(start))
        const to = Math.min(1440, Math.floor(end))
        if (from > to) continue
        const base = day * DAY_KEYS
        for (let at = first[base + from]!, stop = first[base + to + 1]!; at < stop; at++)
          if (ends[at]! <= end) marks[owners[at]!] = 1
      }
      return marks
    },
  }
}
