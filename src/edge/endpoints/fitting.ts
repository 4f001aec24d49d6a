import { Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { ClubListItem, Meeting } from '../../model/club'
import { headerRefs } from '../docs/components'
import { json } from '../docs/openapi'
import { endpoint } from '../endpoint'
import { busyTimes, MAX_OCCURRENCES, MAX_TIMETABLE_BYTES, readTimetableBody } from '../timetable'
import { FILTER_PARAMETERS, listHeaders, listJson, PAGE_PARAMETERS } from './clubs'

// Clubs that fit a student's week (docs/reference.md §24 "By time"): a timetable in, the public clubs
// with a meeting that clashes with none of it out. It reads public data only, so anyone may ask;
// the service's rate limit per caller holds it like every request.

/** The list's query parameter this does not take: each club that fits is answered whole. */
const NOT_TAKEN = ['fields']

const FITTING_CLUB = t.Object(
  {
    ...ClubListItem.properties,
    fitting_meetings: t.Array(Meeting, {
      description: 'The meetings of the club that clash with nothing in the timetable, in the four weeks checked.',
    }),
  },
  { additionalProperties: false, description: 'A club in a list (the 23 list fields), with its meetings that fit.' },
)

const TIMETABLE_EXAMPLE = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Example//Timetable//EN',
  'BEGIN:VEVENT',
  'UID:calculus@example.edu',
  'DTSTART:20260907T180000',
  'DTEND:20260907T200000',
  'RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR',
  'SUMMARY:Calculus',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n')

export const clubFitting = endpoint({
  path: '/api/clubs/fitting/',
  name: 'Clubs That Fit',
  description:
    'POST a timetable (iCalendar) to find the public clubs with a meeting that clashes with nothing in it over the next four weeks.',
  tag: 'clubs',
  actions: {
    POST: {
      summary: 'Clubs that fit a timetable',
      description: `The body is a timetable: an iCalendar file (Content-Type text/calendar, at most 1 MiB), as calendar apps and student systems export them. Its events are expanded over the next four weeks from today in the campus time zone (CLUBS_TIMEZONE): weekly and other rules (RRULE, RDATE, EXDATE, changed occurrences), times in their own time zones; all-day and floating events on the campus clock; cancelled and transparent (free) events left out. The answer is every public club with at least one meeting none of whose four weekly occurrences overlaps an event, with those meetings as fitting_meetings, in the list's order. The list's filters, ordering and paging apply (search, tags, meets_on, free, ..., page and page_size: with page, the answer is {count, next, previous, results}, next and previous being where to POST the same timetable for the other pages); fields does not. A body that is not iCalendar, or that expands into more than ${MAX_OCCURRENCES.toLocaleString('en')} occurrences in the four weeks, is a 400; over 1 MiB a 413. Anonymous callers may ask.`,
      access: 'anyone',
      readsOnly: true,
      query: [...FILTER_PARAMETERS, ...PAGE_PARAMETERS],
      body: {
        schema: t.String({ description: 'The timetable: an iCalendar file.' }),
        example: TIMETABLE_EXAMPLE,
        read: readTimetableBody,
        mediaOnly: true,
        media: {
          'text/calendar': {
            schema: t.String({
              description: `An iCalendar file (RFC 5545), at most ${MAX_TIMETABLE_BYTES} bytes.`,
            }),
            example: TIMETABLE_EXAMPLE,
          },
        },
      },
      responses: {
        200: {
          ...json(
            t.Union([
              t.Array(FITTING_CLUB),
              t.Object(
                {
                  count: Type.Integer({ minimum: 0, description: 'How many clubs fit, on every page.' }),
                  next: t.Union([t.String({ format: 'uri' }), t.Null()], {
                    description: 'The next page (POST the timetable to it again), or null.',
                  }),
                  previous: t.Union([t.String({ format: 'uri' }), t.Null()], {
                    description: 'The previous page, or null.',
                  }),
                  results: t.Array(FITTING_CLUB),
                },
                { additionalProperties: false, description: 'A page of the clubs that fit (?page=).' },
              ),
            ]),
            'The clubs that fit, each with its meetings that do: a bare array, or a page with ?page=.',
          ),
          headers: headerRefs('X-Total-Count', 'Link'),
        },
      },
      errors: [400, 401, 404, 413, 415],
      handle({ ex, services, body }) {
        const params = new URLSearchParams(ex.query)
        for (const name of NOT_TAKEN) params.delete(name)
        const query = services.clubs.parseQuery(params)
        const window = services.fitting.window()
        const busy = busyTimes(body as string, window)
        const { listItems } = services.answers
        const found = services.fitting.fitting(query, window, busy)
        const items = found.clubs.map(
          ({ record, meetings }) =>
            `${listItems.of(record).slice(0, -1)},"fitting_meetings":${JSON.stringify(meetings)}}`,
        )
        const page = { ...found, records: [] }
        return { status: 200, body: listJson(page, ex, items), headers: listHeaders(page, ex) }
      },
    },
  },
})
