// Times of the week (docs/reference.md §24 "By time"): the days of `meets_on=`, the free slots of `free=`
// ("mon 18:00-21:00,wed 12:00-14:00"), and a club's meetings as minute ranges per weekday, made
// once per club (the catalog keeps them beside its other derived keys) so that a filter by time
// compares numbers rather than reading meetings per request.
import { WEEKDAYS, type Meeting } from '../model/club'

/** A stretch of one weekday: `day` 0 (Monday) to 6 (Sunday), `start` and `end` in minutes from midnight. */
export interface WeekSpan {
  readonly day: number
  readonly start: number
  readonly end: number
}

/** A club's meetings as spans (in the order of its meetings) and the days it meets on, as a bitmask (bit 0 Monday). */
export interface MeetingWeek {
  readonly spans: readonly WeekSpan[]
  readonly days: number
}

/** The most free slots one `free=` may name. */
export const MAX_FREE_SLOTS = 50

const DAY_NAMES = new Map<string, number>(
  WEEKDAYS.flatMap((day, i) => [
    [day, i],
    [day.slice(0, 3), i],
  ]),
)

const minutesOf = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5))

const NO_MEETINGS: MeetingWeek = { spans: [], days: 0 }

/** A club's meetings (times already checked "HH:MM", docs/reference.md §21) as spans of its week; none for a record without. */
export function meetingWeek(meetings: readonly Meeting[] | undefined): MeetingWeek {
  if (!meetings?.length) return NO_MEETINGS
  let days = 0
  const spans = meetings.map(({ day, start, end }) => {
    const index = WEEKDAYS.indexOf(day)
    days |= 1 << index
    return { day: index, start: minutesOf(start), end: minutesOf(end) }
  })
  return { spans, days }
}

/** A day's number (0 Monday … 6 Sunday) from its name or first three letters, any case; -1 for anything else. */
export function dayNumber(name: string): number {
  return DAY_NAMES.get(name.trim().toLowerCase()) ?? -1
}

const DAYS_HINT = 'Name days as mon, tue, wed, thu, fri, sat, sun (or in full), separated by commas.'

/** `meets_on=mon,wed`: the days as a bitmask (bit 0 Monday), or the problem with them. */
export function parseDays(raw: string): { days: number } | { problem: string } {
  let days = 0
  const parts = raw.split(',').map((part) => part.trim())
  for (const part of parts) {
    const day = dayNumber(part)
    if (day < 0) return { problem: part ? `"${part}" is not a day. ${DAYS_HINT}` : `A day is missing. ${DAYS_HINT}` }
    days |= 1 << day
  }
  return { days }
}

const TIME = /^([01]?\d|2[0-3]):([0-5]\d)$|^24:00$/
const SLOT = /^(\S+)\s+(\S+?)\s*-\s*(\S+)$/
const SLOT_HINT = 'Write each free slot as a day and a time range, e.g. "mon 18:00-21:00", separated by commas.'

/** "18:00" → 1080; "24:00" (the end of the day) → 1440; null for anything else. */
function parseTime(raw: string): number | null {
  if (!TIME.test(raw)) return null
  const [hours, minutes] = raw.split(':').map(Number)
  return hours! * 60 + minutes!
}

/**
 * `free=mon 18:00-21:00,wed 12:00-14:00`: the free slots, or the problem with them. Days as in
 * `meets_on`; times 24-hour HH:MM (H:MM too), the end after the start, "24:00" for midnight at
 * the end of the day; at most MAX_FREE_SLOTS slots.
 */
export function parseSlots(raw: string): { slots: WeekSpan[] } | { problem: string } {
  const parts = raw.split(',').map((part) => part.trim())
  if (parts.length > MAX_FREE_SLOTS) return { problem: `Name at most ${MAX_FREE_SLOTS} free slots.` }
  const slots: WeekSpan[] = []
  for (const part of parts) {
    const match = SLOT.exec(part)
    if (!match)
      return { problem: part ? `"${part}" is not a free slot. ${SLOT_HINT}` : `A free slot is missing. ${SLOT_HINT}` }
    const [, dayName, from, to] = match
    const day = dayNumber(dayName!)
    if (day < 0) return { problem: `"${dayName}" is not a day. ${DAYS_HINT}` }
    const start = parseTime(from!)
    const end = parseTime(to!)
    if (start === null || end === null || start === 1440)
      return { problem: `"${part}" has a time that is not a 24-hour HH:MM (00:00 to 24:00). ${SLOT_HINT}` }
    if (end <= start) return { problem: `In "${part}" the end must come after the start.` }
    slots.push({ day, start, end })
  }
  return { slots }
}

/**
 * Whether at least one of a club's meetings lies wholly inside one of the free slots (the same
 * day, starting no earlier and ending no later), as a test made once per request: the slots
 * sorted by day, so each meeting meets only its own day's, and a club meeting on none of their
 * days turned away by one AND. It runs for every club of the directory on each request with free=.
 */
export function freeSlotsTest(slots: readonly WeekSpan[]): (week: MeetingWeek) => boolean {
  const byDay: WeekSpan[][] = Array.from({ length: 7 }, () => [])
  let days = 0
  for (const slot of slots) {
    byDay[slot.day]!.push(slot)
    days |= 1 << slot.day
  }
  return ({ spans, days: meets }) => {
    if ((meets & days) === 0) return false
    for (let i = 0; i < spans.length; i++) {
      const { day, start, end } = spans[i]!
      const free = byDay[day]!
      for (let j = 0; j < free.length; j++) if (start >= free[j]!.start && end <= free[j]!.end) return true
    }
    return false
  }
}

/** The slots as `free=` writes them: "mon 18:00-21:00,wed 12:00-14:00". */
export function slotsText(slots: readonly WeekSpan[]): string {
  const time = (minutes: number) =>
    `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`
  return slots.map(({ day, start, end }) => `${WEEKDAYS[day]!.slice(0, 3)} ${time(start)}-${time(end)}`).join(',')
}
