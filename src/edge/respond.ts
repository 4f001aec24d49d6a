import { sized } from './answer-sizes'
import { HTML_HEADERS, renderBrowsable } from './browsable/render'
import { acceptsGzip, matchesEtag } from './conditional'
import type { ErrorAnswer } from './error-answer'
import type { BrowsableNotes, Exchange } from './exchange'
import { Prepared } from './prepared'

/**
 * Browsers must take every answer's Content-Type as given. Set per answer: a global hook
 * setting it cost a quarter of the throughput of small answers.
 */
export const NOSNIFF = { 'X-Content-Type-Options': 'nosniff' } as const

const BASE_HEADERS = {
  ...NOSNIFF,
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers':
    'Allow, Content-Disposition, ETag, Link, Location, Retry-After, WWW-Authenticate, X-Changes-Seq, X-Request-Id, X-Total-Count',
} as const

const NO_HEADERS: Readonly<Record<string, string>> = {}

/**
 * The one place that turns a status and a prepared body into a response: the body (JSON, or a
 * spreadsheet the endpoint made) or the browsable view, ETag and 304 on reads, gzip when the
 * client takes it, and the headers every answer carries.
 */
export function reply(
  ex: Exchange,
  status: number,
  body: Prepared | null,
  extra: Readonly<Record<string, string>> = NO_HEADERS,
  notes: BrowsableNotes = {},
): Response | Promise<Response> {
  const answer = replyToAnyone(ex, status, body, extra, notes)
  if (!ex.request.headers.has('authorization')) return answer
  // An answer to credentials may be that caller's alone: no shared cache keeps it for another
  // (and a browsable page, which shows who is signed in, is kept nowhere).
  const mark = (response: Response) => {
    if (response.headers.get('cache-control') !== 'no-store')
      response.headers.set('Cache-Control', ex.format === 'api' ? 'no-store' : 'private')
    return response
  }
  return answer instanceof Promise ? answer.then(mark) : mark(answer)
}

function replyToAnyone(
  ex: Exchange,
  status: number,
  body: Prepared | null,
  extra: Readonly<Record<string, string>>,
  notes: BrowsableNotes,
): Response | Promise<Response> {
  const method = ex.request.method
  const shape = {
    status,
    allow: ex.page?.allow,
    extra,
    read: status === 200 && (method === 'GET' || method === 'HEAD'),
  }
  if (ex.format === 'api') return browsable(ex, status, body, headersOf(shape, null, 'plain'), notes)
  if (!body) return new Response(null, { status, headers: headersOf(shape, null, 'plain') })
  const headers = answerHeaders(body, shape)
  if (shape.read && matchesEtag(ex.request.headers.get('if-none-match'), body.etag))
    return new Response(null, { status: 304, headers: headers.of('unchanged') })
  if (body.compressible && acceptsGzip(ex.request.headers.get('accept-encoding'))) {
    const gzip = body.gzip()
    return gzip instanceof Blob
      ? sized(new Response(gzip, { status, headers: headers.of('gzip') }), gzip.size)
      : gzip.then((made) => sized(new Response(made, { status, headers: headers.of('gzip') }), made.size))
  }
  return sized(new Response(body.body, { status, headers: headers.of('plain') }), body.body.size)
}

/** What an answer's headers depend on besides its body. */
interface Shape {
  readonly status: number
  readonly allow: string | undefined
  readonly extra: Readonly<Record<string, string>>
  /** A successful GET or HEAD: it carries an ETag, and may be a 304. */
  readonly read: boolean
}

/**
 * How the body goes out: as it is, gzipped, or not at all for a 304, which carries the validators
 * (ETag, Vary) and none of the body's metadata (RFC 9110 §15.4.5: no Content-Type).
 */
type Form = 'plain' | 'gzip' | 'unchanged'

function headersOf({ allow, extra, read }: Shape, body: Prepared | null, form: Form): Record<string, string> {
  const headers: Record<string, string> = { ...BASE_HEADERS, Vary: 'Accept', ...extra }
  if (allow) headers.Allow ??= allow
  if (!body) return headers
  if (form !== 'unchanged') headers['Content-Type'] = body.type
  if (body.compressible) headers.Vary = 'Accept, Accept-Encoding'
  if (read) headers.ETag = body.etag
  if (form === 'gzip') headers['Content-Encoding'] = 'gzip'
  return headers
}

/**
 * A cached answer's headers, built once per form and copied into each response: building them
 * per answer cost more than the rest of a small answer's own work. Kept while the body is
 * answered in the same shape.
 */
class AnswerHeaders {
  readonly #forms = new Map<Form, Headers>()

  constructor(
    readonly body: Prepared,
    readonly shape: Shape,
  ) {}

  fits({ status, allow, extra, read }: Shape): boolean {
    const kept = this.shape
    return kept.status === status && kept.allow === allow && kept.read === read && sameHeaders(kept.extra, extra)
  }

  of(form: Form): Headers {
    let headers = this.#forms.get(form)
    if (!headers) this.#forms.set(form, (headers = new Headers(headersOf(this.shape, this.body, form))))
    return headers
  }
}

function sameHeaders(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  if (a === b) return true
  const names = Object.keys(a)
  return names.length === Object.keys(b).length && names.every((name) => a[name] === b[name])
}

const keptHeaders = new WeakMap<Prepared, AnswerHeaders>()

function answerHeaders(body: Prepared, shape: Shape): AnswerHeaders {
  let kept = keptHeaders.get(body)
  if (!kept?.fits(shape)) keptHeaders.set(body, (kept = new AnswerHeaders(body, shape)))
  return kept
}

async function browsable(
  ex: Exchange,
  status: number,
  body: Prepared | null,
  headers: Record<string, string>,
  notes: BrowsableNotes,
) {
  const json = body ? await body.text() : null
  return new Response(renderBrowsable(ex, status, json, headers, notes), {
    // As DRF's browsable renderer does: a 204 can carry no page, so the page that shows it is a 200.
    status: status === 204 ? 200 : status,
    headers: { ...headers, 'Content-Type': 'text/html; charset=utf-8', ...HTML_HEADERS },
  })
}

/** An answer whose body goes on being written (a stream of events), with the headers every answer carries. */
export function replyStream(
  ex: Exchange,
  status: number,
  stream: ReadableStream,
  extra: Readonly<Record<string, string>>,
) {
  return new Response(stream, {
    status,
    headers: headersOf({ status, allow: ex.page?.allow, extra, read: false }, null, 'plain'),
  })
}

/** A JSON answer: errors and metadata, whose few distinct bodies are prepared once each. */
export function replyJson(ex: Exchange, status: number, value: unknown, extra?: Readonly<Record<string, string>>) {
  return reply(ex, status, Prepared.repeated(value), extra)
}

/** An error's answer (error-answer.ts) as the API gives it: JSON in the reference's shape, or its browsable view. */
export const replyError = (ex: Exchange, { status, body, headers }: ErrorAnswer) => replyJson(ex, status, body, headers)
