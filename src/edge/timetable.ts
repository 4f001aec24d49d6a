import ICAL from 'ical.js'
import { BadRequest } from '../domain/errors'
import type { FitWindow, Interval } from '../domain/fitting'
import { wallClockInstant } from '../domain/time-zones'
import { readCapped } from './body'
import { UnsupportedMediaType } from './errors'

// A student's timetable (docs/reference.md §24 "By time"): an iCalendar file read with ical.js, whose
// recurrence expansion (RRULE, RDATE, EXDATE, RECURRENCE-ID overrides) and VTIMEZONEs we rely on,
// into the busy times of a window of the campus calendar. An all-day or floating time is read on
// the campus wall clock; a TZID the file defines no VTIMEZONE for, as that IANA zone when it is one.

/** The most bytes a timetable may have. */
export const MAX_TIMETABLE_BYTES = 1024 * 1024
/** The most occurrences a timetable may have in the window. */
export const MAX_OCCURRENCES = 10_000
/** The most occurrences the expansion may walk through, before the window too (a rule every minute since 1970). */
const MAX_STEPS = 50_000

const TOO_MANY = `The timetable has too many events to expand: at most ${MAX_OCCURRENCES.toLocaleString('en')} occurrences in the four weeks checked.`

/** The body of a timetable upload: `text/calendar` (415 otherwise), at most 1 MiB (413). */
export async function readTimetableBody(request: Request): Promise<string> {
  const type = request.headers.get('content-type')
  const mediaType = (type ?? '').split(';')[0]!.trim().toLowerCase()
  if (mediaType !== 'text/calendar') throw new UnsupportedMediaType(type ?? '')
  return new TextDecoder('utf-8', { fatal: false }).decode(await readCapped(request, MAX_TIMETABLE_BYTES))
}

const validZones = new Map<string, boolean>()

/** Whether `zone` is an IANA time zone the platform knows. */
function knownZone(zone: string): boolean {
  let known = validZones.get(zone)
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat('en', { timeZone: zone })
      known = true
    } catch {
      known = false
    }
    if (validZones.size < 1000) validZones.set(zone, known)
  }
  return known
}

/** The zone wall-clock times of an event are read in when the file does not place them: its TZID when an IANA name, else the campus zone. */
function wallZoneOf(component: ICAL.Component, campus: string): string {
  const tzid = component.getFirstProperty('dtstart')?.getParameter('tzid')
  return typeof tzid === 'string' && knownZone(tzid) ? tzid : campus
}

/** The instant (ms) of a time: as ical.js places it (UTC, a VTIMEZONE of the file), else on the wall clock of `zone`. */
function instantOf(time: ICAL.Time, zone: string): number {
  if (!time.isDate && time.zone && time.zone.tzid !== 'floating') return time.toUnixTime() * 1000
  return wallClockInstant(zone, time.year, time.month, time.day, time.hour * 60 + time.minute) + time.second * 1000
}

/** Whether an occurrence keeps its time free: cancelled, or marked transparent (RFC 5545 TRANSP). */
function keepsFree(component: ICAL.Component): boolean {
  const transparency = String(component.getFirstPropertyValue('transp') ?? '').toUpperCase()
  const status = String(component.getFirstPropertyValue('status') ?? '').toUpperCase()
  return transparency === 'TRANSPARENT' || status === 'CANCELLED'
}

function parseCalendar(text: string): ICAL.Component {
  let parsed: unknown
  try {
    parsed = ICAL.parse(text)
  } catch (error) {
    throw new BadRequest(`This is not an iCalendar file (.ics): ${(error as Error).message}`)
  }
  if (!Array.isArray(parsed) || parsed[0] !== 'vcalendar')
    throw new BadRequest('This is not an iCalendar file (.ics): it holds no VCALENDAR.')
  return new ICAL.Component(parsed as never)
}

/**
 * The busy times of the timetable `text` in `window`: every occurrence of every event that
 * overlaps it, recurrences expanded by ical.js. 400 for a file that is not iCalendar or cannot be
 * read, and for one with more than MAX_OCCURRENCES occurrences in the window.
 */
export function busyTimes(text: string, window: FitWindow): Interval[] {
  const calendar = parseCalendar(text)
  try {
    return expand(calendar, window)
  } catch (error) {
    if (error instanceof BadRequest) throw error
    throw new BadRequest(`The timetable could not be read: ${(error as Error).message}`)
  }
}

function expand(calendar: ICAL.Component, window: FitWindow): Interval[] {
  const events: ICAL.Event[] = []
  const byUid = new Map<string, ICAL.Event>()
  const overrides: ICAL.Component[] = []
  for (const vevent of calendar.getAllSubcomponents('vevent')) {
    if (!vevent.hasProperty('dtstart')) continue
    if (vevent.hasProperty('recurrence-id')) {
      overrides.push(vevent)
      continue
    }
    const event = new ICAL.Event(vevent)
    events.push(event)
    if (!byUid.has(event.uid)) byUid.set(event.uid, event)
  }
  for (const vevent of overrides) {
    const master = byUid.get(String(vevent.getFirstPropertyValue('uid')))
    if (master) master.relateException(vevent)
    else events.push(new ICAL.Event(vevent)) // an override of nothing in the file: an event of its own
  }

  const busy: Interval[] = []
  let steps = 0
  /** Its free-or-busy and wall-clock zone, read once per event (an occurrence changed by an override has its own). */
  const readings = new Map<ICAL.Component, { free: boolean; zone: string }>()
  const readingOf = (component: ICAL.Component) => {
    let reading = readings.get(component)
    if (!reading)
      readings.set(component, (reading = { free: keepsFree(component), zone: wallZoneOf(component, window.zone) }))
    return reading
  }
  const add = (item: ICAL.Event, start: ICAL.Time, end: ICAL.Time) => {
    const { free, zone } = readingOf(item.component)
    if (free) return
    const from = instantOf(start, zone)
    const to = instantOf(end, zone)
    if (to <= window.start || from >= window.end) return
    if (busy.push({ start: from, end: Math.max(to, from) }) > MAX_OCCURRENCES) throw new BadRequest(TOO_MANY)
  }
  for (const event of events) {
    if (!event.isRecurring()) {
      add(event, event.startDate, event.endDate)
      continue
    }
    const { zone } = readingOf(event.component)
    // Without overrides an occurrence lasts as the event does: ical.js's details of each (made
    // through its text) are needed only for the overridden ones.
    const overridden = Object.keys(event.exceptions).length > 0
    const duration = event.duration
    const iterator = event.iterator()
    for (let next = iterator.next(); next; next = iterator.next()) {
      if (++steps > MAX_STEPS) throw new BadRequest(TOO_MANY)
      if (instantOf(next, zone) >= window.end) break
      if (overridden) {
        const occurrence = event.getOccurrenceDetails(next)
        add(occurrence.item, occurrence.startDate, occurrence.endDate)
      } else {
        const end = next.clone()
        end.addDuration(duration)
        add(event, next, end)
      }
    }
  }
  return busy
}
