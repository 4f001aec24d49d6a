import { t } from 'elysia'
// Elysia's t.Integer documents "an integer or a numeric string"; answers hold integers only.
import { Type } from '@sinclair/typebox'
import type { ClubPage } from '../../domain/clubs'
import { NotFound } from '../../domain/errors'
import {
  BOOLEAN_FILTERS,
  CODED_FILTERS,
  DEFAULT_ORDERING,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  ORDERING_FIELDS,
  parseFieldSelection,
} from '../../domain/list-query'
import { rowsOf } from '../../domain/cells'
import { MAX_FREE_SLOTS } from '../../domain/week-slots'
import {
  CLUB_DEFAULTS,
  DETAIL_FIELDS,
  LIST_FIELDS,
  acceptingReadOnly,
  ClubCreate,
  ClubPatch,
  ClubReplace,
  ClubWrite,
  type ClubRecord,
} from '../../model/club'
import { HistoryEntry } from '../../model/history'
import type { ListAnswer } from '../answer-cache'
import { headerRefs, schemaRef } from '../docs/components'
import { choice, FIELDS, FIELDS_ANSWER, json, labels, query, WRITE_ERRORS } from '../docs/openapi'
import { endpoint, type Call } from '../endpoint'
import type { Exchange } from '../exchange'
import { Prepared } from '../prepared'
import { ROWS_PER_CHUNK, SPREADSHEET_TYPES, spreadsheet } from '../spreadsheets'

const BIG_ANSWER = 1 << 20
const clubUrl = (ex: Exchange, code: string) => `${ex.url.origin}/api/clubs/${code}/`

/** What each true/false filter keeps: `true` the clubs with the flag, `false` those without. */
const BOOLEAN_FILTER_MEANINGS: Record<(typeof BOOLEAN_FILTERS)[number], string> = {
  accepting_members: 'true: clubs taking new members now; false: those that are not.',
  appointment_needed: 'true: clubs that need an appointment; false: those that do not.',
  available_virtually: 'true: clubs available virtually; false: those that are not.',
  enables_subscription: 'true: clubs whose news one may subscribe to; false: those without.',
  is_school_unit: 'true: clubs that belong to the school the directory marks; false: the others.',
  approved:
    "true: approved clubs; false: new or changed clubs awaiting approval, and rejected ones (the admins' approval queue). Callers other than admins only see approved clubs, besides their own clubs as owners and officers.",
  active:
    'true: active clubs; false: clubs set inactive (active is the gentle alternative to deleting). Callers other than admins only see active clubs, besides their own clubs as owners and officers.',
}

/** The list's filters and order: what the club list and the timetable match both take. */
export const FILTER_PARAMETERS = [
  query(
    'ordering',
    `Comma-separated fields, "-" for descending: ${ORDERING_FIELDS.join(', ')}. Default ${DEFAULT_ORDERING} (with a search: the most relevant first); ties are broken by code.`,
    t.String({ examples: ['-favorite_count', 'name', 'size,-name'] }),
  ),
  query(
    'search',
    'Whitespace-separated terms; each must match the name, subtitle, code, a tag name or the description (case and accents ignored). Without ordering, clubs whose name or code holds every term come first, then those matching in subtitle or tag names, then in the description.',
    t.String(),
  ),
  query(
    'code',
    'Club codes, comma-separated: only those clubs (a code that matches nothing is no error).',
    t.String({ examples: ['penn-chess-society,robotics-collective'] }),
  ),
  query(
    'updated_since',
    'A date (YYYY-MM-DD, from its first moment UTC) or a date-time (UTC unless it names an offset): clubs updated at or after it.',
    t.String({ examples: ['2026-09-01', '2026-09-01T12:00:00Z'] }),
  ),
  query(
    'tags',
    'Tag ids or names, comma-separated; a club must carry all of them.',
    t.String({ examples: ['Games,Social'] }),
  ),
  query(
    'meets_on',
    'Days, comma-separated (mon, tue, wed, thu, fri, sat, sun, or in full): clubs with a meeting on any of them.',
    t.String({ examples: ['mon,wed'] }),
  ),
  query(
    'free',
    `Free slots, comma-separated, each a day and a 24-hour time range (24:00 ends the day): clubs with at least one meeting lying wholly inside one of them, in the campus time zone. At most ${MAX_FREE_SLOTS} slots.`,
    t.String({ examples: ['mon 18:00-21:00,wed 12:00-14:00'] }),
  ),
  ...BOOLEAN_FILTERS.map((name) => query(name, BOOLEAN_FILTER_MEANINGS[name], t.Boolean())),
  ...Object.entries(CODED_FILTERS).map(([name, codes]) => {
    const digit = `[${Object.keys(codes).join('')}]`
    return query(
      name,
      `One value or several, comma-separated: ${labels(codes)}.`,
      t.String({ pattern: `^${digit}(,${digit})*$`, examples: ['1,2'] }),
    )
  }),
]

/** Paging, as the list and the timetable match take it. */
export const PAGE_PARAMETERS = [
  query(
    'page',
    'Ask for a page (1-based): the answer becomes {count, next, previous, results}. Without it, a bare array.',
    Type.Integer({ minimum: 1 }),
  ),
  query(
    'page_size',
    `Clubs per page, default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE} (a larger number counts as ${MAX_PAGE_SIZE}).`,
    Type.Integer({ minimum: 1 }),
  ),
]

const LIST_PARAMETERS = [
  ...FILTER_PARAMETERS,
  ...PAGE_PARAMETERS,
  query(
    'fields',
    `Comma-separated fields to keep in each club, e.g. code,name; a field of the detail representation may be named too. ${FIELDS_ANSWER} In a spreadsheet: its columns, in the order given.`,
    t.String({ examples: ['code,name'] }),
  ),
  query(
    'format',
    '"json" (default), "api" for the browsable HTML view, or a spreadsheet of the same clubs: "csv" or "xlsx".',
    choice(['json', 'api', 'csv', 'xlsx']),
  ),
]

const SPREADSHEET = (kind: string) =>
  t.String({
    format: 'binary',
    description: `The same clubs as ${kind}: a header row naming the columns (the list fields, or ?fields= in order), then one row per club. Sent as an attachment (clubs.csv, clubs.xlsx).`,
  })

/** A club as answered: every field (with ?fields=, only those it names: see FIELDS). */
export const DETAIL = schemaRef('ClubDetail')

const CLUB_EXAMPLE = { name: 'Go Club', subtitle: 'Stones on a grid', size: 1, tags: [{ name: 'Games' }] }
/** Every writable field, at its default unless the short example sets it. */
const FULL_EXAMPLE = { ...CLUB_DEFAULTS, ...CLUB_EXAMPLE }

/** A club's writable fields as the detail shows them: the start of a PUT or PATCH. */
function clubTemplate(shown: unknown): Record<string, unknown> {
  const club = (shown ?? {}) as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const field of Object.keys(ClubWrite.properties)) {
    if (field === 'code' || !(field in club)) continue
    out[field] = field === 'tags' ? (club.tags as { id: number }[]).map(({ id }) => ({ id })) : club[field]
  }
  return out
}

const UNKNOWN_CLUB = Prepared.repeated(new NotFound().body)

/** A club's detail answer; as the public sees it, made once per record. */
export function detailAnswer({ ex, caller, services }: Call<unknown>, record: ClubRecord): Prepared {
  const { clubs, answers } = services
  const fields = parseFieldSelection(ex.query)
  if (fields || !clubs.seesAsPublic(caller, record)) return Prepared.of(clubs.detail(caller, record, fields))
  return answers.details.of(record)
}

/** The list answer for a request: its body (JSON or a spreadsheet), X-Total-Count, and Link when paged. */
function listAnswer(call: Call<unknown>): ListAnswer | Promise<ListAnswer> {
  const { ex, caller, services } = call
  const query = services.clubs.parseQuery(ex.query)
  const page = services.clubs.list(caller, query)
  const headers = listHeaders(page, ex)
  if (ex.format === 'csv' || ex.format === 'xlsx') {
    const columns = query.fields ?? LIST_FIELDS
    return spreadsheet(ex.format, clubTable(call, page, columns), 'clubs').then((file) => ({
      body: file.body,
      headers: { ...headers, ...file.headers },
    }))
  }
  return { body: listBody(call, page, query.fields), headers }
}

function listBody({ ex, caller, services }: Call<unknown>, page: ClubPage, fields: readonly string[] | null) {
  const { clubs, answers } = services
  if (fields) {
    // A detail field named (docs/reference.md §6: list and detail fields) takes the detail representation.
    const asDetail = fields.some((field) => DETAIL_ONLY.has(field))
    const items = page.records.map((record) =>
      asDetail ? clubs.detail(caller, record, fields) : clubs.listItem(caller, record, fields),
    )
    return Prepared.of(page.page ? { ...pageLinks(page, ex), results: items } : items)
  }
  const items = page.records.map((record) =>
    clubs.seesAsPublic(caller, record) ? answers.listItems.of(record) : JSON.stringify(clubs.listItem(caller, record)),
  )
  return listJson(page, ex, items)
}

/** A list answer's body from its items' JSON texts: the array, or on a page, the page's links with the array as its results. */
export function listJson(page: Pick<ClubPage, 'total' | 'page'>, ex: Exchange, items: readonly string[]): Prepared {
  if (!page.page) return Prepared.fromJsonItems('[', items, ']')
  return Prepared.fromJsonItems(`${JSON.stringify(pageLinks(page, ex)).slice(0, -1)},"results":[`, items, ']}')
}

const DETAIL_ONLY: ReadonlySet<string> = new Set(DETAIL_FIELDS)

/** The clubs of a page as a table of `columns` (docs/reference.md §15), header first, in chunks of rows; detail fields may be among them. */
function* clubTable({ caller, services }: Call<unknown>, page: ClubPage, columns: readonly string[]) {
  const { clubs } = services
  const asDetail = columns.some((column) => DETAIL_ONLY.has(column))
  yield [columns.slice()]
  for (let at = 0; at < page.records.length; at += ROWS_PER_CHUNK) {
    const records = page.records.slice(at, at + ROWS_PER_CHUNK)
    yield rowsOf(
      columns,
      records.map((record) => (asDetail ? clubs.detail(caller, record) : clubs.listItem(caller, record))),
    )
  }
}

/** X-Total-Count on every list answer; Link, with absolute URLs, on a page (docs/reference.md §16). */
export function listHeaders({ total, page }: ClubPage, ex: Exchange): Record<string, string> {
  if (!page) return { 'X-Total-Count': String(total) }
  const rels: [string, number][] = [
    ['first', 1],
    ['prev', page.number - 1],
    ['next', page.number + 1],
    ['last', page.last],
  ]
  const links = rels.filter(([, n]) => n >= 1 && n <= page.last).map(([rel, n]) => `<${pageUrl(ex, n)}>; rel="${rel}"`)
  return { 'X-Total-Count': String(total), Link: links.join(', ') }
}

/** For the browsable list: which of the listed clubs await review, and as what. */
function reviewNotes({ ex, caller, services }: Call<unknown>) {
  const { clubs } = services
  const review = new Map<string, 'new club' | 'change to an approved club'>()
  for (const record of clubs.list(caller, clubs.parseQuery(ex.query)).records) {
    const state = clubs.reviewState(record)
    if (state) review.set(record.code, state)
  }
  return { review }
}

/**
 * The browsable list shows one page at a time, whatever the JSON answer is: without ?page=, the
 * answer for page 1 (the same bytes, and the same cache entry, a program gets for ?page=1).
 */
function pagedForBrowsers<P>(call: Call<P>): Call<P> {
  if (call.ex.format !== 'api' || call.ex.query.has('page')) return call
  const url = new URL(call.ex.url)
  url.searchParams.set('page', '1')
  return { ...call, ex: call.ex.at(url) }
}

/** The same list URL at page `n`. */
function pageUrl(ex: Exchange, n: number): string {
  const url = new URL(ex.url)
  url.searchParams.set('page', String(n))
  return url.toString()
}

export function pageLinks({ total, page }: Pick<ClubPage, 'total' | 'page'>, ex: Exchange) {
  const { number, last } = page!
  return {
    count: total,
    next: number < last ? pageUrl(ex, number + 1) : null,
    previous: number > 1 ? pageUrl(ex, number - 1) : null,
  }
}

/** `PUT` (every writable field) and `PATCH` of one club. */
async function update(call: Call<{ readonly code: string }>, partial: boolean) {
  const club = await call.services.clubs.update(call.caller, call.params.code, call.body, partial)
  return { status: 200, body: detailAnswer(call, club) }
}

export const clubList = endpoint({
  path: '/api/clubs/',
  name: 'Club List',
  description:
    'Student clubs, with partial information for each. Sort with ?ordering=, narrow with ?search= and filters, page with ?page=. POST creates a club, which then awaits approval.',
  tag: 'clubs',
  template: () => ({ name: '', ...CLUB_DEFAULTS }),
  actions: {
    GET: {
      summary: 'List clubs',
      description:
        'Clubs with partial information (the 23 list fields). Anonymous answers are served from a cache per data version.',
      access: 'anyone',
      query: LIST_PARAMETERS,
      spreadsheets: ['csv', 'xlsx'],
      responses: {
        200: {
          description: 'A bare array, or a page when ?page= is given; a spreadsheet with ?format=csv or xlsx.',
          headers: headerRefs('X-Total-Count', 'X-Changes-Seq', 'Link', 'Content-Disposition'),
          content: {
            ...json(t.Union([t.Array(schemaRef('ClubListItem')), schemaRef('ClubPage')]), '').content,
            'text/csv': { schema: SPREADSHEET('CSV (RFC 4180, UTF-8)') },
            [SPREADSHEET_TYPES.xlsx]: { schema: SPREADSHEET('an Excel workbook') },
          },
        },
        304: {
          description: 'Not modified (If-None-Match named the current ETag).',
          headers: headerRefs('X-Total-Count', 'X-Changes-Seq', 'Link'),
        },
      },
      errors: [400, 401, 404],
      handle(asked) {
        const call = pagedForBrowsers(asked)
        const { ex, caller, services } = call
        const { lists } = services.answers
        // Keyed by the whole URL: paging links are absolute URLs built from the request's host. And by
        // role: a campus user is an admin only in requests whose token carries the admin group.
        const key = `${caller.isAdmin ? 'admin:' : ''}${caller.username ?? ''} ${ex.href}`
        const version = services.clubs.dataVersion
        const send = ({ body, headers }: ListAnswer) => ({
          status: 200,
          body,
          // Read at each answer: a list kept for this data version reflects every change published by now.
          headers: { ...headers, 'X-Changes-Seq': String(services.changes.lastSeq) },
          notes: ex.format === 'api' ? reviewNotes(call) : undefined,
        })
        const cached = lists.get(version, key)
        if (cached) return send(cached)
        const keep = (answer: ListAnswer) => {
          lists.set(version, key, answer)
          // Building a multi-megabyte answer leaves as much garbage: ask for a collection now
          // (without waiting for it), rather than let the heap grow under load.
          if (answer.body.body.size > BIG_ANSWER) Bun.gc(false)
          return send(answer)
        }
        const made = listAnswer(call)
        return made instanceof Promise ? made.then(keep) : keep(made)
      },
    },
    POST: {
      summary: 'Create a club',
      description:
        'Only name is required; code is derived from it when absent. The club starts pending approval (unless CLUBS_AUTO_APPROVE), and its creator becomes its owner.',
      access: 'user',
      query: [FIELDS],
      body: { schema: acceptingReadOnly(ClubCreate), example: CLUB_EXAMPLE },
      responses: {
        201: { ...json(DETAIL, 'The new club; Location names it.'), headers: headerRefs('Location') },
      },
      errors: WRITE_ERRORS,
      async handle(call) {
        const club = await call.services.clubs.create(call.caller, call.body)
        return { status: 201, body: detailAnswer(call, club), headers: { Location: clubUrl(call.ex, club.code) } }
      },
    },
  },
})

export const clubDetail = endpoint({
  path: '/api/clubs/:code/',
  name: 'Club Instance',
  description:
    'One club with every field. PUT replaces every writable field, PATCH changes the fields sent, DELETE archives the club (setting active to false is the gentler choice).',
  tag: 'clubs',
  template: clubTemplate,
  actions: {
    GET: {
      summary: 'Retrieve a club',
      description: 'Every field of one club. Clubs the caller may not see are 404.',
      access: 'anyone',
      query: [FIELDS],
      responses: { 200: json(DETAIL, 'The club.') },
      errors: [400, 401, 404],
      handle(call) {
        const record = call.services.clubs.shownTo(call.caller, call.params.code)
        // An unknown code (a typo, a stale link) is answered without a throw: throwing, catching and
        // serialising the error again cost more than the rest of the 404.
        return record ? { status: 200, body: detailAnswer(call, record) } : { status: 404, body: UNKNOWN_CLUB }
      },
    },
    PUT: {
      summary: 'Replace every writable field of a club',
      description:
        'Every writable field is required; read-only fields sent back are ignored; nothing changes unless all are valid. Owners, officers and admins.',
      access: 'user',
      query: [FIELDS],
      body: { schema: acceptingReadOnly(ClubReplace), example: FULL_EXAMPLE },
      responses: { 200: json(DETAIL, 'The updated club.') },
      errors: WRITE_ERRORS,
      handle: (call) => update(call, false),
    },
    PATCH: {
      summary: 'Change some fields of a club',
      description:
        'Only the fields sent change. Admins approve or reject with {"approved": true|false, "approved_comment": "..."}. A non-admin change of name, subtitle, description or image_url sends an approved club back to pending.',
      access: 'user',
      query: [FIELDS],
      body: { schema: acceptingReadOnly(ClubPatch), example: { accepting_members: true } },
      responses: { 200: json(DETAIL, 'The updated club.') },
      errors: WRITE_ERRORS,
      handle: (call) => update(call, true),
    },
    DELETE: {
      summary: 'Delete (archive) a club',
      description:
        'The club disappears from every endpoint but is archived in the data file and its code stays reserved. Setting active to false is the gentler choice. Owners and admins.',
      access: 'user',
      responses: { 204: { description: 'Deleted.' } },
      errors: [401, 403, 404, 405, 503],
      async handle({ services, caller, params }) {
        await services.clubs.destroy(caller, params.code)
        return { status: 204 }
      },
    },
  },
})

export const clubHistory = endpoint({
  path: '/api/clubs/:code/history/',
  name: 'Club History',
  description:
    "A club's approval history, newest first: its creation, each change of reviewed fields sent for review, each resubmission of a rejected club, each approval, rejection and revocation, its archiving. Owners, officers and admins.",
  tag: 'clubs',
  actions: {
    GET: {
      summary: "A club's approval history",
      description:
        'Newest first. `submitted` names the reviewed fields a change sent for review; `resubmitted` a rejected club sent again (by a change, whose reviewed fields it names, or by POST resubmit/); `approved`, `rejected` and `revoked` carry the reviewer and their comment.',
      access: 'user',
      responses: { 200: json(t.Array(HistoryEntry), 'The events, newest first.') },
      errors: [401, 403, 404],
      handle: ({ services, caller, params }) => ({ status: 200, body: services.clubs.history(caller, params.code) }),
    },
  },
})

export const clubResubmit = endpoint({
  path: '/api/clubs/:code/resubmit/',
  name: 'Club Resubmission',
  description:
    'POST sends a rejected club back for review as it stands: it awaits the activities office again, and its history records resubmitted. A change to its reviewed fields by an owner or officer does the same. Owners and officers.',
  tag: 'clubs',
  actions: {
    POST: {
      summary: 'Send a rejected club for review again',
      description:
        "Nothing changes but its approval: pending again (approved false, approved_on null), in the admins' queue. The latest decision stays readable in last_decision and the history. 409 for a club that is not rejected (awaiting review, approved, or revoked: only an admin's approval brings a revoked club back).",
      access: 'user',
      query: [FIELDS],
      responses: { 200: json(DETAIL, 'The club, awaiting review.') },
      errors: [401, 403, 404, 405, 409, 503],
      async handle(call) {
        const club = await call.services.clubs.resubmit(call.caller, call.params.code)
        return { status: 200, body: detailAnswer(call, club) }
      },
    },
  },
})
