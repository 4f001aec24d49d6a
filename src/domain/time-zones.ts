// A VTIMEZONE (RFC 5545 §3.6.5) for an IANA zone, from the platform's own time zone data
// (Intl): the zone's offset changes found year by year, each written with its own DTSTART, but
// where the years up to the last all follow the same yearly rules ("the second Sunday of March
// at 02:00") for RULED_YEARS years at least: then as those rules from the first year that does.

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE
const BYDAY = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'] as const
/**
 * How many years in a row, up to the last one written, must follow the same yearly rules before
 * they are written as rules (which go on past that year). A zone whose changes move from year to
 * year, as Casablanca's follow Ramadan, never does so long: its changes of 2027 taken as yearly
 * rules put 87 of the 730 meetings of a Tuesday and a Saturday in 2028-2032 an hour off.
 */
const RULED_YEARS = 5

/** One change of a zone's offset: the first instant of the new one, and both offsets in minutes east of UTC. */
interface Transition {
  readonly at: number
  readonly from: number
  readonly to: number
}

const formatters = new Map<string, Intl.DateTimeFormat>()

/** The zone's offset from UTC at `at`, in minutes east. */
export function offsetAt(zone: string, at: number): number {
  let format = formatters.get(zone)
  if (!format)
    formatters.set(zone, (format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })))
  const name = format.formatToParts(at).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT'
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name)
  if (!match) return 0
  return (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]))
}

const transitionsByYear = new Map<string, readonly Transition[]>()

/** The zone's offset changes in `year` (UTC), each found to the minute. */
function transitionsIn(zone: string, year: number): readonly Transition[] {
  const key = `${zone} ${year}`
  const known = transitionsByYear.get(key)
  if (known) return known
  const found: Transition[] = []
  const end = Date.UTC(year + 1, 0, 1)
  let at = Date.UTC(year, 0, 1)
  let offset = offsetAt(zone, at)
  while (at < end) {
    const next = Math.min(at + DAY, end)
    const nextOffset = offsetAt(zone, next)
    if (nextOffset !== offset) {
      // The offset is `offset` at lo and `nextOffset` at hi: halve the gap down to a minute.
      let lo = at
      let hi = next
      while (hi - lo > MINUTE) {
        const mid = lo + Math.floor((hi - lo) / MINUTE / 2) * MINUTE
        if (offsetAt(zone, mid) === offset) lo = mid
        else hi = mid
      }
      found.push({ at: hi, from: offset, to: nextOffset })
      offset = nextOffset
    }
    at = next
  }
  transitionsByYear.set(key, found)
  return found
}

/** The wall-clock time a transition starts at, in the offset it ends: its DTSTART. */
const onsetOf = ({ at, from }: Transition) => new Date(at + from * MINUTE)

const basic = (date: Date) => `${date.toISOString().slice(0, 19).replace(/[-:]/g, '')}`

/** -0500, +0530. */
function utcOffset(minutes: number): string {
  const abs = Math.abs(minutes)
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`
}

/** A yearly rule: the nth (or, -1, the last) weekday of a month, at a wall-clock time. */
interface YearlyRule {
  readonly month: number
  readonly nth: number
  readonly weekday: number
  readonly time: string
  readonly from: number
  readonly to: number
}

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month + 1, 0)).getUTCDate()

function ruleOf(transition: Transition): YearlyRule {
  const onset = onsetOf(transition)
  const day = onset.getUTCDate()
  const month = onset.getUTCMonth()
  const last = day + 7 > daysIn(onset.getUTCFullYear(), month)
  return {
    month,
    nth: last ? -1 : Math.ceil(day / 7),
    weekday: onset.getUTCDay(),
    time: onset.toISOString().slice(11, 19),
    from: transition.from,
    to: transition.to,
  }
}

/** Whether `rule` gives exactly `transition` in its year. */
function follows(rule: YearlyRule, transition: Transition): boolean {
  const again = ruleOf(transition)
  return (
    again.month === rule.month &&
    again.nth === rule.nth &&
    again.weekday === rule.weekday &&
    again.time === rule.time &&
    again.from === rule.from &&
    again.to === rule.to
  )
}

function observance(
  transition: Pick<Transition, 'from' | 'to'>,
  onset: Date,
  rule: YearlyRule | null = null,
): string[] {
  const kind = transition.to > transition.from ? 'DAYLIGHT' : 'STANDARD'
  return [
    `BEGIN:${kind}`,
    `DTSTART:${basic(onset)}`,
    `TZOFFSETFROM:${utcOffset(transition.from)}`,
    `TZOFFSETTO:${utcOffset(transition.to)}`,
    ...(rule ? [`RRULE:FREQ=YEARLY;BYMONTH=${rule.month + 1};BYDAY=${rule.nth}${BYDAY[rule.weekday]}`] : []),
    `END:${kind}`,
  ]
}

/**
 * The VTIMEZONE of `zone` for the years `from` to `to`: the offset it starts with, each change
 * in years that follow no rule, and, when the last RULED_YEARS years at least follow the rules of
 * the last, those rules from the first year that does (every later year is taken to follow them
 * too, as the tz data itself says of such zones). A zone with changes that follow no rule keeps,
 * after `to`, the offset of its last change.
 */
export function timeZoneLines(zone: string, from: number, to: number): string[] {
  const years: (readonly Transition[])[] = []
  for (let year = from; year <= to; year++) years.push(transitionsIn(zone, year))
  const rules = (years.at(-1) ?? []).map(ruleOf)
  let ruled = years.length
  const followsRules = (transitions: readonly Transition[]) =>
    rules.length > 0 &&
    transitions.length === rules.length &&
    transitions.every((transition, i) => follows(rules[i]!, transition))
  while (ruled > 0 && followsRules(years[ruled - 1]!)) ruled--
  if (years.length - ruled < RULED_YEARS) ruled = years.length

  const initial = offsetAt(zone, Date.UTC(from, 0, 1))
  return [
    'BEGIN:VTIMEZONE',
    `TZID:${zone}`,
    ...observance({ from: initial, to: initial }, new Date(Date.UTC(1970, 0, 1))),
    ...years.slice(0, ruled).flatMap((transitions) => transitions.flatMap((t) => observance(t, onsetOf(t)))),
    ...(ruled < years.length ? years[ruled]!.flatMap((t, i) => observance(t, onsetOf(t), rules[i]!)) : []),
    'END:VTIMEZONE',
  ]
}

const yearStarts = new Map<string, number>()

/**
 * offsetAt from the zone's changes in the year, found once per zone and year (a timetable reads
 * thousands of wall-clock times; each of offsetAt's readings asks Intl).
 */
function knownOffsetAt(zone: string, at: number): number {
  const year = new Date(at).getUTCFullYear()
  const key = `${zone} ${year}`
  let offset = yearStarts.get(key)
  if (offset === undefined) yearStarts.set(key, (offset = offsetAt(zone, Date.UTC(year, 0, 1))))
  for (const transition of transitionsIn(zone, year)) {
    if (transition.at > at) break
    offset = transition.to
  }
  return offset
}

/**
 * The instant (ms) at which the wall clock of `zone` shows `minutes` past midnight of the date
 * `year`-`month`(1–12)-`day` (the day may run past the month's end: Date.UTC carries it). A time
 * the clocks skip (spring forward) is read with the offset before the change, as calendar apps do;
 * a time they show twice, at its first showing.
 */
export function wallClockInstant(zone: string, year: number, month: number, day: number, minutes: number): number {
  const wall = Date.UTC(year, month - 1, day, 0, minutes)
  const before = knownOffsetAt(zone, wall - DAY)
  const after = knownOffsetAt(zone, wall + DAY)
  const first = wall - before * MINUTE
  if (before === after) return first
  const second = wall - after * MINUTE
  const shows = (at: number, offset: number) => knownOffsetAt(zone, at) === offset
  if (shows(first, before)) return shows(second, after) ? Math.min(first, second) : first
  // Shown only after the change, or (in a gap the clocks skip) never: the offset before it then.
  return shows(second, after) ? second : first
}

/** Formats a moment as its day (YYYY-MM-DD) in one time zone; one per zone, made once. */
const DAY_FORMATS = new Map<string, Intl.DateTimeFormat>()

/** The day `at` falls on in `timeZone`, as YYYY-MM-DD: the campus's "today" (CLUBS_TIMEZONE). */
export function dayIn(timeZone: string, at: Date): string {
  let format = DAY_FORMATS.get(timeZone)
  if (!format)
    DAY_FORMATS.set(
      timeZone,
      (format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })),
    )
  return format.format(at)
}
