// Clubs that fit a timetable (docs/reference.md §24 "By time"): the busy times of a student's timetable,
// over the next four weeks in the campus time zone, against each club's weekly meetings. A
// meeting fits when none of its four occurrences, each taken at its real instants (a week
// across a change of the clocks keeps its wall-clock hours), overlaps a busy time. Reading the
// timetable itself (iCalendar) is the edge's work; this takes the busy times as instants.
import { ANONYMOUS } from './caller'
import type { ClubPage, ClubService } from './clubs'
import type { ListQuery } from './list-query'
import { dayIn, wallClockInstant } from './time-zones'
import type { MeetingWeek, WeekSpan } from './week-slots'
import type { ClubRecord, Meeting } from '../model/club'

/** How many weeks from today a timetable is checked over. */
export const FIT_WEEKS = 4

/** A busy time: from `start` (ms) up to `end` (ms, not included). */
export interface Interval {
  readonly start: number
  readonly end: number
}

/** A date of the campus calendar, its weekday 0 (Monday) to 6 (Sunday). */
interface CampusDate {
  readonly year: number
  readonly month: number
  readonly day: number
  readonly weekday: number
}

/** The span checked: FIT_WEEKS weeks of campus dates from today, and the instants they begin and end at. */
export interface FitWindow {
  readonly zone: string
  readonly dates: readonly CampusDate[]
  readonly start: number
  readonly end: number
}

/** A public club that fits, with the meetings of it that do. */
export interface FittingClub {
  readonly record: ClubRecord
  readonly meetings: readonly Meeting[]
}

/** The FIT_WEEKS weeks from the campus date of `now` in `zone`, from its first moment. */
export function fitWindow(zone: string, now: Date): FitWindow {
  const [year, month, day] = dayIn(zone, now).split('-').map(Number) as [number, number, number]
  const dates = Array.from({ length: FIT_WEEKS * 7 }, (_, i) => {
    const date = new Date(Date.UTC(year, month - 1, day + i))
    return {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
      weekday: (date.getUTCDay() + 6) % 7,
    }
  })
  return {
    zone,
    dates,
    start: wallClockInstant(zone, year, month, day, 0),
    end: wallClockInstant(zone, year, month, day + FIT_WEEKS * 7, 0),
  }
}

/** Busy times sorted and merged, so that their ends rise with their starts. */
function merged(busy: readonly Interval[]): Interval[] {
  const sorted = busy.filter(({ start, end }) => end > start).sort((a, b) => a.start - b.start)
  const out: { start: number; end: number }[] = []
  for (const { start, end } of sorted) {
    const last = out.at(-1)
    if (last && start <= last.end) last.end = Math.max(last.end, end)
    else out.push({ start, end })
  }
  return out
}

/**
 * Whether weekly spans fit a set of busy times over a window: each span's occurrences in the
 * window at their real instants, checked against the busy times by binary search. Spans of the
 * same day and hours (many clubs share them) are checked once.
 */
export class FitChecker {
  readonly #busy: Interval[]
  readonly #known = new Map<number, boolean>()

  constructor(
    private readonly window: FitWindow,
    busy: readonly Interval[],
  ) {
    this.#busy = merged(busy)
  }

  /** Whether no occurrence of `span` in the window overlaps a busy time. */
  fits(span: WeekSpan): boolean {
    const key = (span.day * 1440 + span.start) * 1441 + span.end
    let fits = this.#known.get(key)
    if (fits === undefined) this.#known.set(key, (fits = this.#check(span)))
    return fits
  }

  /** The indexes of the spans of `week` that fit (its meetings' indexes). */
  fittingOf(week: MeetingWeek): number[] {
    const out: number[] = []
    week.spans.forEach((span, i) => {
      if (this.fits(span)) out.push(i)
    })
    return out
  }

  #check({ day, start, end }: WeekSpan): boolean {
    const { zone } = this.window
    for (const date of this.window.dates) {
      if (date.weekday !== day) continue
      const from = wallClockInstant(zone, date.year, date.month, date.day, start)
      const to = wallClockInstant(zone, date.year, date.month, date.day, end)
      if (this.#overlaps(from, to)) return false
    }
    return true
  }

  /** Whether a busy time overlaps [from, to): the first one ending after `from` starts before `to`. */
  #overlaps(from: number, to: number): boolean {
    const busy = this.#busy
    let low = 0
    let high = busy.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if (busy[mid]!.end <= from) low = mid + 1
      else high = mid
    }
    return low < busy.length && busy[low]!.start < to
  }
}

/** The clubs that fit, as the list pages them: `total` before paging, `page` when one was asked for. */
export interface FittingPage extends Omit<ClubPage, 'records'> {
  readonly clubs: readonly FittingClub[]
}

/**
 * The public clubs that `query` keeps (its filters, order and page) with at least one meeting
 * that clashes with none of `busy` in `window`, each with those meetings.
 */
export function fittingClubs(
  clubs: ClubService,
  query: ListQuery,
  window: FitWindow,
  busy: readonly Interval[],
): FittingPage {
  const checker = new FitChecker(window, busy)
  const fitting = new Map<ClubRecord, number[]>()
  const keeps: ListQuery = {
    ...query,
    predicates: [
      ...query.predicates,
      (entry) => {
        const found = checker.fittingOf(entry.week)
        if (found.length) fitting.set(entry.record, found)
        return found.length > 0
      },
    ],
  }
  const { records, total, page } = clubs.list(ANONYMOUS, keeps)
  return {
    clubs: records.map((record) => ({ record, meetings: fitting.get(record)!.map((i) => record.meetings[i]!) })),
    total,
    page,
  }
}

/** Timetables against the directory's clubs, in the campus time zone, by the directory's clock. */
export class FittingService {
  constructor(
    private readonly clubs: ClubService,
    private readonly options: { readonly timeZone: string; readonly now: () => Date },
  ) {}

  /** The weeks a timetable is checked over, from today. */
  window(): FitWindow {
    return fitWindow(this.options.timeZone, this.options.now())
  }

  /** The public clubs `query` keeps with a meeting that clashes with none of `busy` in `window`. */
  fitting(query: ListQuery, window: FitWindow, busy: readonly Interval[]): FittingPage {
    return fittingClubs(this.clubs, query, window, busy)
  }
}
