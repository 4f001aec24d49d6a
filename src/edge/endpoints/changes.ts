import { t } from 'elysia'
import { Type } from '@sinclair/typebox'
import { changeNumber } from '../../domain/change-log'
import { schemaRef } from '../docs/components'
import { json, query, type ResponseDoc } from '../docs/openapi'
import { endpoint } from '../endpoint'
import { Prepared } from '../prepared'

// Following the directory's changes (docs/reference.md §18): a page of the log after a number, or a
// stream of Server-Sent Events that goes on as changes happen.

const MAX_SEQ = Number.MAX_SAFE_INTEGER
const NOTHING_MORE = () => new ReadableStream<Uint8Array>({ start: (stream) => stream.close() })
const MAX_LIMIT = 1000
const DEFAULT_LIMIT = 100

const SINCE = query(
  'since',
  'The last change number you have: from X-Changes-Seq of a list answer, last_seq of a page, or the last event. Default 0: from the oldest kept.',
  Type.Integer({ minimum: 0, examples: [41] }),
)

const GONE: ResponseDoc = json(
  t.Object({ detail: t.String(), oldest_seq: Type.Integer({ minimum: 0 }) }),
  'Some changes after since are no longer kept (the newest 10,000 are), or since is past the newest: list the clubs again and follow from the X-Changes-Seq of that answer.',
)

export const changeList = endpoint({
  path: '/api/changes/',
  name: 'Change List',
  description:
    'Every change to what the public sees of the directory, numbered: a club added (approved, or active again), changed, or removed (deleted, revoked, inactive). List the clubs, then follow from their X-Changes-Seq.',
  tag: 'changes',
  actions: {
    GET: {
      summary: 'Changes after a number',
      description: `The changes after since, oldest first, at most limit (1-${MAX_LIMIT}, default ${DEFAULT_LIMIT}); ask again from the last one's seq until results is empty.`,
      access: 'anyone',
      query: [
        SINCE,
        query(
          'limit',
          `Changes at most in one answer, 1-${MAX_LIMIT}.`,
          Type.Integer({ minimum: 1, maximum: MAX_LIMIT }),
        ),
      ],
      responses: { 200: json(schemaRef('ChangePage'), 'The changes after since, and the newest number.'), 410: GONE },
      errors: [400, 401, 404],
      handle({ ex, services }) {
        const { changes } = services
        const since = changeNumber('since', ex.query.get('since') ?? '0', { min: 0, max: MAX_SEQ })
        const limit = changeNumber('limit', ex.query.get('limit') ?? String(DEFAULT_LIMIT), { min: 1, max: MAX_LIMIT })
        const events = changes.since(since, limit)
        const texts = events.map((event) => event.text)
        return { status: 200, body: Prepared.fromJsonItems('{"results":[', texts, `],"last_seq":${changes.lastSeq}}`) }
      },
    },
  },
})

export const changeStream = endpoint({
  path: '/api/changes/stream',
  name: 'Change Stream',
  description: 'The same changes as Server-Sent Events, as they happen.',
  tag: 'changes',
  actions: {
    GET: {
      summary: 'Follow changes as they happen',
      description:
        'Server-Sent Events: the changes after since (or the Last-Event-ID header, which browsers send when they reconnect), then each new one, as "id: <seq>", "event: <type>", "data: <the change as JSON>"; a comment line every few seconds keeps proxies from closing it. Without either: from now. When since is no longer kept: one "event: reset" (list again), then the end. What was missed comes a piece at a time, as the client takes it; a client that takes nothing while more than 1 MiB waits for it is dropped, and one that falls behind what is kept gets the reset. At most CLUBS_MAX_STREAMS streams are open at once (503 past that).',
      access: 'anyone',
      fileOnly: true,
      query: [SINCE],
      responses: {
        200: {
          description: 'An endless text/event-stream.',
          content: {
            'text/event-stream': {
              schema: t.String({
                examples: [
                  'id: 42\nevent: club.changed\ndata: {"seq":42,"type":"club.changed","code":"go-club","at":"2026-11-26T12:00:00.000Z","club":{"code":"go-club","name":"Go Club"}}\n\n',
                ],
              }),
            },
          },
        },
      },
      errors: [400, 401, 404, 503],
      handle({ ex, services }) {
        const given = ex.query.get('since') ?? ex.request.headers.get('last-event-id')
        const name = ex.query.has('since') ? 'since' : 'Last-Event-ID'
        const since = given === null ? services.changes.lastSeq : changeNumber(name, given, { min: 0, max: MAX_SEQ })
        return {
          status: 200,
          // A HEAD asks what a stream would be, and opens none.
          stream: ex.request.method === 'HEAD' ? NOTHING_MORE() : services.streams.stream(since),
          headers: {
            'Content-Type': 'text/event-stream; charset=utf-8',
            'Cache-Control': 'no-cache',
            // nginx would otherwise buffer the stream and hold events back.
            'X-Accel-Buffering': 'no',
          },
        }
      },
    },
  },
})
