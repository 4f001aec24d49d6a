import { t } from 'elysia'
import type { Site } from '../../domain/calendars'
import { json, query, type ResponseDoc } from '../docs/openapi'
import { endpoint, type Answer, type Call } from '../endpoint'
import type { Exchange } from '../exchange'
import { Prepared } from '../prepared'

// Meetings as iCalendar feeds that calendar apps subscribe to (docs/reference.md §21): a club's, the
// directory's, and a user's favorites' at a secret address. Each feed is made once per data
// version and URL, like the list, and answered with its ETag (304 when unchanged).

const CALENDAR_TYPE = 'text/calendar; charset=utf-8'
/** Answers that show a secret address are never kept by a cache. */
const NO_STORE = { 'Cache-Control': 'no-store' }

const CALENDAR: ResponseDoc = {
  description:
    'iCalendar (RFC 5545): one weekly recurring event (RRULE:FREQ=WEEKLY) per meeting, in the campus time zone (CLUBS_TIMEZONE) with its VTIMEZONE; summary the club name, its location, a description with the club page URL.',
  content: {
    'text/calendar': {
      schema: t.String({ examples: ['BEGIN:VCALENDAR\r\nVERSION:2.0\r\n...\r\nEND:VCALENDAR\r\n'] }),
    },
  },
}

const siteOf = (ex: Exchange): Site => ({ origin: ex.url.origin, host: ex.url.host })

/** A calendar answer, made by `make` once per data version and `key` (which names the URL, and whose view). */
function calendarAnswer({ ex, services }: Call<unknown>, key: string, make: (site: Site) => string): Answer {
  const { lists } = services.answers
  const version = services.clubs.dataVersion
  const cacheKey = `calendar ${key} ${ex.href}`
  let kept = lists.get(version, cacheKey)
  if (!kept)
    lists.set(version, cacheKey, (kept = { body: Prepared.file(make(siteOf(ex)), CALENDAR_TYPE), headers: {} }))
  return { status: 200, body: kept.body }
}

/** The secret address of a user's calendar (docs/reference.md §21) on the service at `origin`, holding `token`. */
export const calendarAddress = (origin: string, token: string) => `${origin}/api/calendars/${token}/meetings.ics`
const secretUrl = (ex: Exchange, token: string) => calendarAddress(ex.url.origin, token)

export const clubCalendar = endpoint({
  path: '/api/clubs/:code/calendar.ics',
  name: 'Club Calendar',
  description: "A club's weekly meetings as a calendar to subscribe to.",
  tag: 'calendars',
  actions: {
    GET: {
      summary: "A club's meetings as a calendar",
      description:
        'iCalendar for calendar apps: each meeting a weekly event. Anyone who may see the club; a club they may not see is a 404.',
      access: 'anyone',
      fileOnly: true,
      responses: { 200: CALENDAR },
      errors: [401, 404],
      handle(call) {
        const { caller, params, services } = call
        const viewer = `${caller.isAdmin ? 'admin:' : ''}${caller.username ?? ''}`
        return calendarAnswer(call, viewer, (site) => services.calendars.ofClub(caller, params.code, site))
      },
    },
  },
})

export const directoryCalendar = endpoint({
  path: '/api/calendar.ics',
  name: 'Directory Calendar',
  description: "Every public club's weekly meetings as one calendar to subscribe to.",
  tag: 'calendars',
  actions: {
    GET: {
      summary: "Every public club's meetings as a calendar",
      description:
        'iCalendar for calendar apps: each meeting of each public club a weekly event, clubs by code. Narrow with ?tags= and ?code= as on the club list.',
      access: 'anyone',
      fileOnly: true,
      query: [
        query(
          'tags',
          'Tag ids or names, comma-separated; a club must carry all of them.',
          t.String({ examples: ['Games'] }),
        ),
        query(
          'code',
          'Club codes, comma-separated: only those clubs.',
          t.String({ examples: ['penn-chess-society,robotics-collective'] }),
        ),
      ],
      responses: { 200: CALENDAR },
      errors: [401, 404],
      // Every caller gets the public directory's calendar: one answer for all.
      handle: (call) =>
        calendarAnswer(call, 'public', (site) => call.services.calendars.ofDirectory(call.ex.query, site)),
    },
  },
})

export const userCalendar = endpoint({
  path: '/api/calendars/:token/meetings.ics',
  name: 'My Calendar',
  description:
    "The weekly meetings of a user's favorite clubs, at the secret address GET /api/users/me/calendar-url/ shows: no credentials needed.",
  tag: 'calendars',
  actions: {
    GET: {
      summary: "A user's favorite clubs' meetings, at their secret address",
      description:
        'iCalendar for calendar apps, which send no credentials: the address is the credential. A replaced address, an unknown one, and that of a disabled user are 404.',
      access: 'anyone',
      fileOnly: true,
      responses: { 200: CALENDAR },
      errors: [401, 404],
      handle(call) {
        const { calendars } = call.services
        const user = calendars.holderOf(call.params.token)
        return calendarAnswer(call, `user:${user.username}`, (site) => calendars.ofFavorites(user, site))
      },
    },
  },
})

const SECRET_URL = t.String({
  format: 'uri',
  description: 'The secret address of your calendar: anyone who has it can read it.',
  examples: ['https://clubs.example.edu/api/calendars/q3ZfJx0y8Vw2nQm5KkT1bA7sLrE9uHcD4pGiWoYvNz0/meetings.ics'],
})

export const calendarUrl = endpoint({
  path: '/api/users/me/calendar-url/',
  name: 'My Calendar Address',
  description:
    'The secret address of a calendar of your favorite clubs’ meetings, for calendar apps (which send no credentials). The data file keeps only its hash.',
  tag: 'calendars',
  actions: {
    GET: {
      summary: 'The secret address of your calendar',
      description:
        'Your calendar’s secret address, made the first time you ask. The data file keeps only the hash of its token, which is derived again from the service’s secret key (kept apart from the data file) to show it. POST makes a new one (the old one stops working).',
      access: 'user',
      responses: { 200: json(t.Object({ url: SECRET_URL }), 'Your address.') },
      errors: [401, 403, 503],
      async handle({ ex, caller, services }) {
        const token = await services.calendars.token(caller)
        return { status: 200, body: { url: secretUrl(ex, token) }, headers: NO_STORE }
      },
    },
    POST: {
      summary: 'Replace the secret address of your calendar',
      description: 'Makes a new secret address; the previous address answers 404 from now on.',
      access: 'user',
      responses: { 201: json(t.Object({ url: SECRET_URL }), 'The new address.') },
      errors: [401, 403, 405, 503],
      async handle({ ex, caller, services }) {
        const token = await services.calendars.replace(caller)
        return { status: 201, body: { url: secretUrl(ex, token) }, headers: NO_STORE }
      },
    },
  },
})
