// The sandbox for prototyping (docs/reference.md §25), at the edge: delays and faults on request, the
// request log, and the order writes and a reset take. Nothing of it reaches the domain; with
// CLUBS_SANDBOX off none of it is mounted and a request goes straight to the app.
import { t } from 'elysia'
import { ApiError, BadRequest, NotAuthenticated, PermissionDenied } from '../domain/errors'
import type { Caller } from '../domain/caller'
import { answerSizes } from './answer-sizes'
import { errorAnswer } from './error-answer'
import { exchangeForError } from './exchange'
import { urlOf } from './request-facts'
import { replyError } from './respond'
import { json, query } from './docs/openapi'
import { endpoint } from './endpoint'

/** The statuses `_fail` (or `Prefer: code=`) may ask for. */
export const FAIL_STATUSES = [400, 401, 403, 404, 409, 429, 500, 502, 503] as const
/** The longest `_delay` (or `Prefer: delay=`), in milliseconds. */
export const MAX_DELAY_MS = 10_000
/** How many requests the log keeps, the newest. */
export const KEPT_REQUESTS = 1_000

/** One request as the log keeps it. */
export interface LoggedRequest {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly duration_ms: number
  readonly request_bytes: number
  readonly response_bytes: number
  readonly at: string
}

/** A request as the ring holds it, raw: made into a LoggedRequest only when the log is read. */
class Entry {
  responseBytes = 0
  constructor(
    readonly method: string,
    readonly url: string,
    readonly status: number,
    readonly ms: number,
    readonly requestBytes: string | null,
    readonly at: number,
  ) {}

  shown(): LoggedRequest {
    const url = this.url
    return {
      method: this.method,
      path: url.slice(url.indexOf('/', url.indexOf('//') + 2)),
      status: this.status,
      duration_ms: Math.round(this.ms * 100) / 100,
      request_bytes: Number(this.requestBytes ?? 0),
      response_bytes: this.responseBytes,
      at: new Date(this.at).toISOString(),
    }
  }
}

/** What the sandbox's endpoints reach: the reset, and the log. */
export interface SandboxControls {
  /** The directory back to its seed in one write; how many clubs it has then. */
  reset(): Promise<{ clubs: number }>
  readonly requests: RequestLog
}

/** The newest requests, KEPT_REQUESTS at most, in a ring. */
export class RequestLog {
  #ring: (Entry | undefined)[] = new Array(KEPT_REQUESTS)
  #next = 0

  /**
   * Logs `request` (its URL read once) and its answer `response`, begun at `started`
   * (performance.now()); answers the response to send. An answer without Content-Length is read
   * whole and sent as read, measured without a copy (a body in memory at once: Bun.peek takes it
   * without waiting a turn); a stream of events is not read, it has no end, and counts 0.
   */
  add(request: Request, url: string, response: Response, started: number): Response | Promise<Response> {
    const method = request.method
    const entry = new Entry(
      method,
      url,
      response.status,
      performance.now() - started,
      // A GET has no body: its headers are not searched.
      method === 'GET' ? null : request.headers.get('content-length'),
      Date.now(),
    )
    this.#ring[this.#next++ % KEPT_REQUESTS] = entry
    // An answer made from a prepared body had its size noted (answer-sizes.ts); any other is measured.
    const noted = answerSizes.of.get(response)
    if (noted !== undefined) {
      entry.responseBytes = noted
      return response
    }
    const length = response.headers.get('content-length')
    if (length !== null) entry.responseBytes = Number(length)
    else if (response.body !== null && !response.headers.get('content-type')?.startsWith('text/event-stream')) {
      const read = response.blob()
      const blob = Bun.peek(read)
      if (blob instanceof Blob) return sized(entry, blob, response)
      return read.then((blob) => sized(entry, blob, response))
    }
    return response
  }

  /** The newest `limit`, newest first. */
  newest(limit: number): LoggedRequest[] {
    const out: LoggedRequest[] = []
    for (let i = this.#next - 1; i >= 0 && i >= this.#next - KEPT_REQUESTS && out.length < limit; i--)
      out.push(this.#ring[i % KEPT_REQUESTS]!.shown())
    return out
  }
}

/** The answer `response` was, its body read as `blob`: the entry takes its size. */
function sized(entry: Entry, blob: Blob, response: Response): Response {
  entry.responseBytes = blob.size
  return new Response(blob, { status: response.status, headers: response.headers })
}

/** Writes take turns with a reset: any number at once, none while a reset runs. */
export class WriteTurns {
  #writing = 0
  #resetting: Promise<void> | null = null
  #drained: (() => void) | null = null

  /** Runs a write once no reset runs; a reset waits for it. */
  async write<T>(work: () => T | Promise<T>): Promise<T> {
    while (this.#resetting) await this.#resetting
    this.#writing++
    try {
      return await work()
    } finally {
      if (--this.#writing === 0) this.#drained?.()
    }
  }

  /** Runs `work` alone: after the writes under way, before those that come meanwhile. */
  async alone<T>(work: () => Promise<T>): Promise<T> {
    while (this.#resetting) await this.#resetting
    let done!: () => void
    this.#resetting = new Promise<void>((resolve) => (done = resolve))
    try {
      if (this.#writing) await new Promise<void>((resolve) => (this.#drained = resolve))
      this.#drained = null
      return await work()
    } finally {
      this.#resetting = null
      done()
    }
  }
}

type Fetch = (request: Request) => Response | Promise<Response>

const READS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * The app's fetch in the sandbox: each request may ask to be answered later (`_delay`, `Prefer:
 * delay=`) or to fail (`_fail`, `Prefer: code=`) with nothing done; writes take turns with a
 * reset; every answer is logged. `app()` is the app of the moment (a reset makes a new one).
 */
export function sandboxFetch(app: () => Fetch, log: RequestLog, turns: WriteTurns): Fetch {
  answerSizes.measuring = true
  const answer = (request: Request, url: string) =>
    // A reset takes its own turn, after the writes under way (sandboxReset).
    READS.has(request.method) || url.includes('/api/_sandbox/') ? app()(request) : turns.write(() => app()(request))
  return (request) => {
    const started = performance.now()
    // No parameter, no Prefer: straight to the app (a string scan, no URL parse). The URL as
    // serve.ts read it: each read of request.url makes a new string.
    const url = urlOf(request)
    if (!url.includes('_delay=') && !url.includes('_fail=') && !request.headers.has('prefer')) {
      const response = answer(request, url)
      if (!(response instanceof Promise)) return log.add(request, url, response, started)
      return response.then((r) => log.add(request, url, r, started))
    }
    return (async () => {
      let response: Response
      try {
        const { delay, fail } = asked(request)
        if (delay) await Bun.sleep(delay)
        response = fail
          ? await replyError(exchangeForError(request), new AskedFailure(fail))
          : await answer(request, url)
      } catch (error) {
        const known = errorAnswer(error)
        if (!known) throw error
        response = await replyError(exchangeForError(request), known)
      }
      return log.add(request, url, response, started)
    })()
  }
}

/** The delay and fault a request asks for, by query parameter or Prefer header; a 400 naming a bad one. */
export function asked(request: Request): { delay: number; fail: number | null } {
  const url = request.url
  const search = url.includes('?_') || url.includes('&_') ? new URL(url).searchParams : null
  const prefer = request.headers.get('prefer')
  const preferred = (name: string) =>
    prefer
      ?.split(/[,;]/)
      .map((part) => part.trim().split('='))
      .find(([key]) => key?.toLowerCase() === name)?.[1]
      ?.trim() ?? null
  const delay = search?.get('_delay') ?? preferred('delay')
  const fail = search?.get('_fail') ?? preferred('code')
  const delayName = search?.has('_delay') ? '_delay' : 'Prefer: delay'
  const failName = search?.has('_fail') ? '_fail' : 'Prefer: code'
  if (delay !== null && (!/^\d{1,5}$/.test(delay) || Number(delay) > MAX_DELAY_MS))
    throw new BadRequest(`${delayName} must be a whole number of milliseconds from 0 to ${MAX_DELAY_MS}.`)
  if (fail !== null && !(FAIL_STATUSES as readonly number[]).includes(Number(fail)))
    throw new BadRequest(`${failName} must be one of ${FAIL_STATUSES.join(', ')}.`)
  return { delay: delay === null ? 0 : Number(delay), fail: fail === null ? null : Number(fail) }
}

/** The failure a request asks for: its status, the reference's error body and its headers, nothing done. */
class AskedFailure extends ApiError {
  constructor(status: number) {
    super(
      status,
      { detail: `A failure asked for (the sandbox's _fail=${status} or Prefer: code=${status}): nothing was done.` },
      status === 401 ? new NotAuthenticated().headers : status === 429 || status === 503 ? { 'Retry-After': '1' } : {},
    )
  }
}

const admin = (caller: Caller) => {
  if (!caller.isAdmin) throw new PermissionDenied('Only an admin may do this in the sandbox.')
}

const Reset = t.Object({ clubs: t.Integer({ description: 'How many clubs the directory has now.' }) })
const Logged = t.Object({
  method: t.String(),
  path: t.String({ description: 'The path with its query.' }),
  status: t.Integer(),
  duration_ms: t.Number(),
  request_bytes: t.Integer(),
  response_bytes: t.Integer(),
  at: t.String({ format: 'date-time' }),
})

export const sandboxReset = endpoint({
  path: '/api/_sandbox/reset',
  name: 'Sandbox Reset',
  description:
    'Only with CLUBS_SANDBOX=true (docs/reference.md §25): the directory back to its seed in one write, logos and sessions included.',
  tag: 'sandbox',
  actions: {
    POST: {
      summary: 'Put the directory back to its seed (admins, sandbox)',
      description:
        'Every club, tag, user, session, webhook and logo goes back to the seed (CLUBS_SEED_FILE, or the bundled sample); the admin keeps its token. Change numbers go on past every one used: a follower of /api/changes/ gets 410 and lists again. Writes under way finish first; those that come meanwhile wait for it.',
      access: 'user',
      responses: { 200: json(Reset, 'The directory is its seed again.') },
      errors: [401, 403, 409, 503],
      async handle({ services, caller }) {
        admin(caller)
        return { status: 200, body: await sandboxOf(services).reset() }
      },
    },
  },
})

export const sandboxRequests = endpoint({
  path: '/api/_sandbox/requests',
  name: 'Sandbox Requests',
  description: `Only with CLUBS_SANDBOX=true (docs/reference.md §25): the newest requests, ${KEPT_REQUESTS.toLocaleString('en-US')} kept.`,
  tag: 'sandbox',
  actions: {
    GET: {
      summary: 'The newest requests (admins, sandbox)',
      description:
        'Newest first: method, path with query, status, duration, request and answer size in bytes, time. limit: how many (1–1,000, 100 when not said).',
      access: 'user',
      query: [query('limit', 'How many, 1 to 1,000 (100).', t.Integer({ minimum: 1, maximum: KEPT_REQUESTS }))],
      responses: { 200: json(t.Array(Logged), 'The requests, newest first.') },
      errors: [400, 401, 403],
      handle({ services, caller, ex }) {
        admin(caller)
        const raw = ex.url.searchParams.get('limit') ?? '100'
        if (!/^\d{1,4}$/.test(raw) || +raw < 1 || +raw > KEPT_REQUESTS)
          throw new BadRequest(`limit must be a whole number from 1 to ${KEPT_REQUESTS}.`)
        return { status: 200, body: sandboxOf(services).requests.newest(Number(raw)) }
      },
    },
  },
})

/** The sandbox's endpoints, mounted only when it is on. */
export const SANDBOX_ENDPOINTS = [sandboxReset, sandboxRequests]

const sandboxOf = (services: object) => (services as { sandbox: SandboxControls }).sandbox
