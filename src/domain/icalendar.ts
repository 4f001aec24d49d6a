import { timeZoneLines } from './time-zones'

// iCalendar text (RFC 5545), as much of it as weekly meetings need: content lines folded at 75
// octets and ended by CRLF, TEXT values escaped, a VTIMEZONE for the zone the times are in; the
// calendar named and its refresh interval given as RFC 7986 says (docs/reference.md §24).

/** One weekly recurring event. Dates and times are the zone's wall-clock ones. */
export interface WeeklyEvent {
  readonly uid: string
  /** When the event's text last changed, as an ISO date-time (DTSTAMP). */
  readonly stamp: string
  /** The first occurrence's date, YYYY-MM-DD, and its times, HH:MM. */
  readonly date: string
  readonly start: string
  readonly end: string
  readonly summary: string
  readonly location: string
  readonly description: string
  readonly url: string
}

export interface Calendar {
  readonly name: string
  readonly timeZone: string
  readonly events: readonly WeeklyEvent[]
  /** The years the time zone's changes are written out for: those of the events, and years ahead. */
  readonly years: { readonly from: number; readonly to: number }
}

export const PRODUCT_ID = '-//Club Directory//Meetings//EN'
const MAX_OCTETS = 75
const BYDAY = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'] as const
/**
 * How often a subscribed calendar app should read the feed again (RFC 7986 REFRESH-INTERVAL, and
 * Outlook's X-PUBLISHED-TTL): meetings change by the term, not by the hour.
 */
export const REFRESH_INTERVAL = 'PT12H'

/**
 * A TEXT value (RFC 5545 §3.3.11): backslash, semicolon and comma escaped, each line break as
 * `\n`; other control characters, which TEXT may not hold, dropped.
 */
export const escapeText = (text: string): string =>
  text
    .replace(/[\\;,]/g, (char) => `\\${char}`)
    .replace(/\r\n|\r|\n/g, '\\n')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')

const octets = (codePoint: number) => (codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4)

/**
 * A content line folded (RFC 5545 §3.1): no line longer than 75 octets of UTF-8, each
 * continuation line starting with one space, and never a character cut in two.
 */
export function fold(line: string): string {
  const parts: string[] = []
  let part = ''
  let size = 0
  for (const char of line) {
    const length = octets(char.codePointAt(0)!)
    // A continuation line's leading space is one of its 75 octets.
    if (size + length > (parts.length ? MAX_OCTETS - 1 : MAX_OCTETS)) {
      parts.push(part)
      part = ''
      size = 0
    }
    part += char
    size += length
  }
  parts.push(part)
  return parts.join('\r\n ')
}

/** 2026-09-07 and 18:30 as 20260907T183000. */
const localDateTime = (date: string, time: string) => `${date.replaceAll('-', '')}T${time.replace(':', '')}00`
/** An ISO date-time as a UTC DATE-TIME: 20260907T183000Z. */
export const utcDateTime = (iso: string) => `${iso.slice(0, 19).replace(/[-:]/g, '')}Z`

function eventLines(event: WeeklyEvent, zone: string): string[] {
  const weekday = BYDAY[new Date(`${event.date}T00:00:00Z`).getUTCDay()]
  return [
    'BEGIN:VEVENT',
    `UID:${escapeText(event.uid)}`,
    `DTSTAMP:${utcDateTime(event.stamp)}`,
    `DTSTART;TZID=${zone}:${localDateTime(event.date, event.start)}`,
    `DTEND;TZID=${zone}:${localDateTime(event.date, event.end)}`,
    `RRULE:FREQ=WEEKLY;BYDAY=${weekday}`,
    `SUMMARY:${escapeText(event.summary)}`,
    ...(event.location ? [`LOCATION:${escapeText(event.location)}`] : []),
    `DESCRIPTION:${escapeText(event.description)}`,
    `URL:${event.url}`,
    'END:VEVENT',
  ]
}

/** The whole calendar as iCalendar text: CRLF line ends, every line folded. */
export function calendarText({ name, timeZone, events, years }: Calendar): string {
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    `PRODID:${PRODUCT_ID}`,
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    `NAME:${escapeText(name)}`,
    `X-WR-CALNAME:${escapeText(name)}`,
    `REFRESH-INTERVAL;VALUE=DURATION:${REFRESH_INTERVAL}`,
    `X-PUBLISHED-TTL:${REFRESH_INTERVAL}`,
    `X-WR-TIMEZONE:${timeZone}`,
    ...timeZoneLines(timeZone, years.from, years.to),
    ...events.flatMap((event) => eventLines(event, timeZone)),
    'END:VCALENDAR',
  ]
  return lines.map(fold).join('\r\n') + '\r\n'
}
