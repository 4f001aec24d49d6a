import { t } from 'elysia'
import { roundClubTable } from '../../domain/cells'
import {
  ClosedRound,
  CurrentRound,
  ROUND_CLUB_COLUMNS,
  RoundClub,
  RoundRecord,
  RoundWrite,
} from '../../model/registration-round'
import { headerRefs } from '../docs/components'
import { choice, FIELDS, json, query } from '../docs/openapi'
import { endpoint } from '../endpoint'
import { spreadsheet } from '../spreadsheets'
import { DETAIL, detailAnswer } from './clubs'

// Re-registration rounds (docs/reference.md §23): the office opens one with a deadline, owners and officers
// confirm their club, and its close makes every active club not confirmed in it inactive.

const ROUNDS =
  'While a round is open, owners and officers see "Re-register by <deadline>" and confirm their club (POST /api/clubs/{code}/registration/). Closing it makes every active club not confirmed in it inactive (history lapsed): the public no longer sees them, and the change log names each as removed. An admin makes a lapsed club active again with PATCH {"active": true}.'

export const roundList = endpoint({
  path: '/api/registration-rounds/',
  name: 'Re-registration Rounds',
  description: `Admins open a re-registration round here, one at a time. ${ROUNDS}`,
  tag: 'registration',
  template: () => ({ deadline: '', message: '' }),
  actions: {
    POST: {
      summary: 'Open a re-registration round (admins)',
      description:
        'deadline: YYYY-MM-DD, today or later in the campus time zone (a 400 otherwise); message: shown to owners and officers beside the deadline. A 409 while another round is open.',
      access: 'user',
      body: {
        schema: RoundWrite,
        example: { deadline: '2026-12-15', message: 'Check your officers and contact details, then confirm.' },
      },
      responses: { 201: { ...json(RoundRecord, 'The round, open.'), headers: headerRefs('Location') } },
      errors: [400, 401, 403, 405, 409, 413, 415, 503],
      async handle({ services, caller, body, ex }) {
        const round = await services.rounds.open(caller, body)
        return { status: 201, body: round, headers: { Location: `${ex.url.origin}/api/registration-rounds/current/` } }
      },
    },
  },
})

export const currentRound = endpoint({
  path: '/api/registration-rounds/current/',
  name: 'Current Re-registration Round',
  description: 'The open round and how far it has come: how many clubs are active, how many confirmed (admins).',
  tag: 'registration',
  actions: {
    GET: {
      summary: 'The open re-registration round (admins)',
      description:
        'Its deadline and message, the active clubs and how many of them are confirmed. 404 when none is open.',
      access: 'user',
      responses: { 200: json(CurrentRound, 'The open round.') },
      errors: [401, 403, 404],
      handle: ({ services, caller }) => ({ status: 200, body: services.rounds.current(caller) }),
    },
  },
})

export const currentRoundClubs = endpoint({
  path: '/api/registration-rounds/current/clubs/',
  name: 'Clubs of the Current Round',
  description: 'Every active club, by name, with who confirmed it in the open round and when (admins).',
  tag: 'registration',
  actions: {
    GET: {
      summary: 'The clubs of the open round and their confirmations (admins)',
      description:
        "Every active club by name; confirmed_at and confirmed_by are null for one not confirmed yet. ?format=csv gives the same as a CSV file (text cells a spreadsheet would take for a formula get a leading '). 404 when no round is open.",
      access: 'user',
      query: [
        query(
          'format',
          '"json" (default), "api" for the browsable HTML view, or "csv" for a spreadsheet of the same clubs.',
          choice(['json', 'api', 'csv']),
        ),
      ],
      spreadsheets: ['csv'],
      responses: {
        200: {
          description: 'The active clubs, by name; a CSV file with ?format=csv.',
          headers: headerRefs('Content-Disposition'),
          content: {
            ...json(t.Array(RoundClub), '').content,
            'text/csv': {
              schema: t.String({
                format: 'binary',
                description: `A header row (${ROUND_CLUB_COLUMNS.join(',')}), then one row per club; sent as an attachment (re-registration.csv).`,
              }),
            },
          },
        },
      },
      errors: [401, 403, 404],
      handle({ ex, services, caller }) {
        const clubs = services.rounds.clubsOf(caller)
        if (ex.format !== 'csv') return { status: 200, body: clubs }
        return spreadsheet('csv', roundClubTable(clubs), 're-registration').then((file) => ({
          status: 200,
          body: file.body,
          headers: file.headers,
        }))
      },
    },
  },
})

export const closeRound = endpoint({
  path: '/api/registration-rounds/current/close/',
  name: 'Close the Current Round',
  description:
    'POST closes the open round: every active club not confirmed in it becomes inactive (history lapsed), in one write (admins).',
  tag: 'registration',
  actions: {
    POST: {
      summary: 'Close the open re-registration round (admins)',
      description:
        'Every active club not confirmed in the round becomes inactive, its history records lapsed, and the public no longer sees it (the change log names it removed); all of them or none. 404 when no round is open.',
      access: 'user',
      responses: { 200: json(ClosedRound, 'The clubs that lapsed, by code.') },
      errors: [401, 403, 404, 405, 503],
      handle: async ({ services, caller }) => ({ status: 200, body: await services.rounds.close(caller) }),
    },
  },
})

export const clubRegistration = endpoint({
  path: '/api/clubs/:code/registration/',
  name: 'Club Re-registration',
  description:
    "POST confirms the club in the open re-registration round: its last_confirmed_on becomes today. Its owners, officers and admins; remove departed officers first (the site's Confirm sits beside the officer list).",
  tag: 'registration',
  actions: {
    POST: {
      summary: 'Confirm a club in the open re-registration round',
      description:
        'No body. The club, its last_confirmed_on today (the campus day); confirming again moves it to today. A 409 when no round is open. Owners, officers and admins.',
      access: 'user',
      query: [FIELDS],
      responses: { 200: json(DETAIL, 'The club, confirmed.') },
      errors: [401, 403, 404, 405, 409, 503],
      async handle(call) {
        const club = await call.services.rounds.confirm(call.caller, call.params.code)
        return { status: 200, body: detailAnswer(call, club) }
      },
    },
  },
})
