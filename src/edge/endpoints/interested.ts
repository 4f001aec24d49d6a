import { t } from 'elysia'
import { INTEREST_COLUMNS, interestTable } from '../../domain/cells'
import { MAX_INTEREST_EMAIL, MAX_INTEREST_NAME } from '../../model/interest'
import { endpoint } from '../endpoint'
import { csvListAnswer, csvListDoc } from './csv-lists'

const InterestedSchema = t.Object({
  id: t.String({ format: 'uuid', description: 'Names the entry, to delete it.' }),
  name: t.String({ minLength: 1, maxLength: MAX_INTEREST_NAME, examples: ['Ada Lovelace'] }),
  email: t.String({ maxLength: MAX_INTEREST_EMAIL, examples: ['ada@campus.example.edu'] }),
  created_at: t.String({
    format: 'date-time',
    description: 'When they consented (the latest time, when they gave the same address again); removed a year later.',
  }),
})

/** `/api/clubs/{code}/interested/`: the students who left their name and address on the club's page (docs/reference.md §23). */
export const interestedList = endpoint({
  path: '/api/clubs/:code/interested/',
  name: 'Club Interested Students',
  description:
    "People without an account who said on the club's page that they are interested, with their consent to be contacted: for its officers. Entries are removed a year after they were made.",
  tag: 'members',
  actions: {
    GET: {
      summary: 'List the students interested in a club',
      description:
        "Owners, officers and admins. Newest first; ?format=csv gives the same as a CSV file (id, name, email, created_at; text cells that a spreadsheet would take for a formula get a leading '). Entries are made on the club's page of the campus site, not through the API.",
      access: 'user',
      ...csvListDoc(InterestedSchema, {
        description: 'The entries, newest first; a CSV file with ?format=csv.',
        noun: 'entry',
        nouns: 'entries',
        columns: INTEREST_COLUMNS,
        file: 'interested',
      }),
      errors: [401, 403, 404],
      handle({ ex, services, caller, params }) {
        const entries = services.interests.list(caller, params.code)
        return csvListAnswer(ex, entries, () => interestTable(entries), params.code, 'interested')
      },
    },
  },
})

export const interestedDetail = endpoint({
  path: '/api/clubs/:code/interested/:entry/',
  name: 'Club Interested Student',
  description: 'DELETE removes the entry at once.',
  tag: 'members',
  actions: {
    DELETE: {
      summary: 'Delete an interested student',
      description: 'Owners, officers and admins of the club.',
      access: 'user',
      responses: { 204: { description: 'Deleted.' } },
      errors: [401, 403, 404, 405, 503],
      async handle({ services, caller, params }) {
        await services.interests.remove(caller, params.code, params.entry)
        return { status: 204 }
      },
    },
  },
})
