import { Value } from '@sinclair/typebox/value'
import { Elysia, type TSchema } from 'elysia'
import { requireUser, type Caller } from '../domain/caller'
import type { openDirectory } from '../domain/directory'
import { NotFound } from '../domain/errors'
import type { AnswerCaches } from './answer-cache'
import { readJsonBody } from './body'
import {
  edgeErrors,
  endpointResponse,
  ERRORS,
  ENDPOINT_METADATA,
  FORMAT,
  json,
  OPTIONALLY_SECURED,
  PATH_PARAMETERS,
  SECURED,
  withEdgeResponses,
  type ErrorStatus,
  type Parameter,
  type ResponseDoc,
} from './docs/openapi'
import type { Edge } from './edge'
import { errorAnswer } from './error-answer'
import { MethodNotAllowed } from './errors'
import { Exchange, exchangeForError, offering, type BrowsableNotes, type PageInfo } from './exchange'
import type { SpreadsheetFormat } from './negotiate'
import { Prepared } from './prepared'
import { noteRoute, urlOf } from './request-facts'
import { reply, replyError, replyJson, replyStream } from './respond'
import type { ChangeStreams } from './change-streams'

/** The methods an endpoint may serve, in the order `Allow` lists them (HEAD and OPTIONS come free). */
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
export type Method = (typeof METHODS)[number]

/** `{ code: string }` for '/api/clubs/:code/'. */
type ParamsOf<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? { readonly [K in Name]: string } & ParamsOf<Rest>
  : Path extends `${string}:${infer Name}`
    ? { readonly [K in Name]: string }
    : {}

/** What every handler may use: the directory's services, the edge's answer caches and its change streams. */
export type Services = ReturnType<typeof openDirectory> & {
  readonly answers: AnswerCaches
  readonly streams: ChangeStreams
}

/** One request as a handler sees it: authenticated, its body read and parsed when the action takes one. */
export interface Call<Params> {
  readonly ex: Exchange
  readonly caller: Caller
  readonly params: Params
  readonly body: unknown
  readonly services: Services
}

export interface Answer {
  readonly status: number
  /** A value to send as JSON, a prepared body, or nothing (204). */
  readonly body?: unknown
  readonly headers?: Record<string, string>
  /** A body that goes on being written (a stream of events), in place of `body`. */
  readonly stream?: ReadableStream<Uint8Array>
  /** What the browsable view shows beside the body. */
  readonly notes?: BrowsableNotes
}

/** One method of an endpoint: who may call it, what it takes, what it answers, and what it does. */
export interface Action<Params> {
  readonly summary: string
  readonly description: string
  /** `user`: a token is needed (401 otherwise). `anyone`: none is, but a wrong one is still a 401. */
  readonly access: 'anyone' | 'user'
  /** The body it takes; OPTIONS and the OpenAPI document show this same schema. */
  readonly body?: BodySpec
  readonly query?: readonly Parameter[]
  /** The spreadsheets `?format=` may ask it for, besides JSON and the browsable view. */
  readonly spreadsheets?: readonly SpreadsheetFormat[]
  /**
   * It answers a file of its own type (a calendar) whatever the request's Accept says: no
   * browsable view, and no ?format= (a 404); its errors are JSON.
   */
  readonly fileOnly?: boolean
  /**
   * A POST that changes nothing (a timetable matched against the clubs, docs/reference.md §24): a
   * read-only directory serves it, and it takes no turn among the writes.
   */
  readonly readsOnly?: true
  /** Its successful answers, as OpenAPI responses. */
  readonly responses: Readonly<Record<number, ResponseDoc>>
  readonly errors: readonly ErrorStatus[]
  /**
   * Work on the body before a write takes its turn among the others (docs/reference.md §19 holds every
   * instance's writes meanwhile): long work no other write should wait for, such as making an
   * image. What it answers is the body `handle` gets.
   */
  prepare?(call: Call<Params>): Promise<unknown>
  handle(call: Call<Params>): Answer | Promise<Answer>
}

/** A JSON body, read by `readJsonBody`; or, with `read`, a body of its own media types. */
export interface BodySpec {
  readonly schema: TSchema
  readonly example: unknown
  /** Reads the body instead of `readJsonBody`: its own media types, size limit and parsing. */
  readonly read?: (request: Request) => Promise<unknown>
  /** The media types `read` takes besides JSON, as the OpenAPI document and OPTIONS show them. */
  readonly media?: Readonly<Record<string, { readonly schema: TSchema; readonly example?: unknown }>>
  /** It takes only the `media` types, no JSON (an image's bytes). */
  readonly mediaOnly?: true
}

export interface EndpointSpec<Path extends string> {
  readonly path: Path
  /** The browsable view's title and the OPTIONS name. */
  readonly name: string
  readonly description: string
  /** The OpenAPI tag it is listed under. */
  readonly tag: string
  readonly template?: (shown: unknown) => Record<string, unknown>
  readonly actions: { readonly [M in Method]?: Action<ParamsOf<Path>> }
}

/** Everything said about one path: its route, OPTIONS, 405 and `Allow`, browsable page and OpenAPI operations. */
export type Endpoint<Path extends string = string> = EndpointSpec<Path> & PageInfo

export function endpoint<const Path extends string>(spec: EndpointSpec<Path>): Endpoint<Path> {
  return {
    ...spec,
    allow: METHODS.filter((method) => spec.actions[method]).join(', '),
    query: spec.actions.GET?.query,
  }
}

/** An action that answers a file: JSON for its errors, whatever Accept says, and no ?format=. */
const FILE_ONLY = (format: string | null) => {
  if (format !== null) throw new NotFound()
  return 'json' as const
}

/** Kept out of the OpenAPI document: a catch-all there would overwrite the real operations. */
const HIDDEN = { detail: { hide: true } }

/** The Elysia routes of `endpoints`, each a closure over its declaration. */
export function mount(endpoints: readonly Endpoint[], services: Services, edge: Edge) {
  const app = new Elysia({ name: 'endpoints' })
  for (const page of endpoints) {
    for (const method of METHODS) {
      const action = page.actions[method]
      if (!action) continue
      // Bound: Elysia reads a handler's source to guess whether it is async, and awaits whatever it
      // guesses may be, delaying every answer a turn. A bound function shows no source; its answer,
      // a Response or a promise of one that never rejects, is right either way.
      app.route(method, page.path, handlerOf(page, method, action, services, edge).bind(null), {
        // A GET has no body to leave unread; declaring a parser would make Elysia await it.
        ...(method === 'GET' ? {} : { parse: 'none' as const }),
        detail: operationOf(page, method, action),
      })
    }
    app
      .options(page.path, ({ request }) => options(page, request), { detail: optionsOperation(page) })
      .all(
        page.path,
        ({ request }) => {
          noteRoute(request, page.path)
          throw new MethodNotAllowed(request.method, page.allow)
        },
        HIDDEN,
      )
  }
  return app
}

type Handler = (context: { request: Request; params: Record<string, string> }) => Response | Promise<Response>

function handlerOf(page: Endpoint, method: Method, action: Action<{}>, services: Services, edge: Edge): Handler {
  const writes = method !== 'GET' && !action.readsOnly
  const negotiation = action.fileOnly ? FILE_ONLY : offering(action.spreadsheets)
  // No closure is made per request on the way to a synchronous answer: they add up in small ones.
  // Every error is answered here, so the answer is a Response or a promise that never rejects.
  // Ours answer in the reference's shape with the endpoint's Allow; anything else is a fault.
  const fail = (request: Request, negotiated: Exchange | null, error: unknown) => {
    const ex = negotiated ?? exchangeForError(request, page)
    const answer = errorAnswer(edge.explain(error))
    return answer ? replyError(ex, answer) : edge.fault(ex, error)
  }
  // A write's work is ordered with every other instance's (docs/reference.md §19), its body read first.
  const run = writes
    ? (ex: Exchange, caller: Caller, params: {}, body: unknown) =>
        services.exclusive(async () => action.handle({ ex, caller, params, body, services }))
    : (ex: Exchange, caller: Caller, params: {}, body: unknown) => action.handle({ ex, caller, params, body, services })
  const prepared = action.prepare
    ? (ex: Exchange, caller: Caller, params: {}, body: unknown) =>
        action.prepare!({ ex, caller, params, body, services }).then((made) => run(ex, caller, params, made))
    : run
  const serve = (ex: Exchange, caller: Caller, params: {}) => {
    try {
      if (action.access === 'user') requireUser(caller)
      const answer = action.body
        ? (action.body.read ?? readJsonBody)(ex.request).then((body) => prepared(ex, caller, params, body))
        : run(ex, caller, params, undefined)
      const sent = answer instanceof Promise ? answer.then((done) => send(ex, done)) : send(ex, answer)
      return sent instanceof Promise ? sent.catch((error) => fail(ex.request, ex, error)) : sent
    } catch (error) {
      return fail(ex.request, ex, error)
    }
  }
  return ({ request, params }) => {
    noteRoute(request, page.path)
    let ex: Exchange | null = null
    try {
      ex = new Exchange(request, page, urlOf(request), negotiation)
      if (writes) edge.guardWrite(page)
      // Service tokens are resolved at once; only a campus JWT is checked asynchronously.
      const caller = edge.callerOf(request)
      if (!(caller instanceof Promise)) return serve(ex, caller, params)
      const negotiated = ex
      return caller.then(
        (known) => serve(negotiated, known, params),
        (error) => fail(request, negotiated, error),
      )
    } catch (error) {
      return fail(request, ex, error)
    }
  }
}

function send(ex: Exchange, { status, body = null, headers, notes, stream }: Answer): Response | Promise<Response> {
  if (stream) return replyStream(ex, status, stream, headers ?? {})
  return reply(ex, status, body === null || body instanceof Prepared ? body : Prepared.of(body), headers, notes)
}

/** OPTIONS: the endpoint's metadata, with the schema of each body it takes; also a CORS preflight answer. */
function options(page: Endpoint, request: Request) {
  noteRoute(request, page.path)
  const actions = Object.fromEntries(
    METHODS.flatMap((method) => {
      const body = page.actions[method]?.body
      // A body of bytes (an image) has no JSON schema to show: `parses` names its media types.
      return body && !body.mediaOnly ? [[method, body.schema]] : []
    }),
  )
  const metadata = {
    name: page.name,
    description: page.description,
    renders: ['application/json', 'text/html'],
    parses: [
      ...(METHODS.every((method) => !page.actions[method]?.body?.mediaOnly) ? ['application/json'] : []),
      ...METHODS.flatMap((method) => Object.keys(page.actions[method]?.body?.media ?? {})),
    ],
    allowed_methods: page.allow.split(', '),
    ...(Object.keys(actions).length ? { actions } : {}),
  }
  return replyJson(exchangeForError(request, page), 200, metadata, {
    'Access-Control-Allow-Methods': `${page.allow}, HEAD, OPTIONS`,
    'Access-Control-Allow-Headers': 'Authorization, Content-Type, If-None-Match',
    'Access-Control-Max-Age': '86400',
  })
}

/** The parameters of an endpoint's path, as the document describes them. */
const pathParametersOf = (page: Endpoint) =>
  [...page.path.matchAll(/:(\w+)/g)].map(([, name]) => PATH_PARAMETERS[name!]!)

/** The OpenAPI operation of an endpoint's OPTIONS (`options` above). */
function optionsOperation(page: Endpoint) {
  return {
    tags: [page.tag],
    summary: `The metadata of ${page.name}`,
    description:
      'The methods this path serves, the media types it renders and parses, and the JSON schema of each body it takes. Also the answer to a CORS preflight.',
    parameters: pathParametersOf(page),
    security: [],
    responses: {
      200: endpointResponse(200, json(ENDPOINT_METADATA, 'The metadata.'), 'OPTIONS', false),
      429: endpointResponse(429, ERRORS[429], 'OPTIONS', false),
    },
  }
}

/**
 * The OpenAPI operation of one action: parameters from the path, body and answers from the
 * declaration, and what the edge adds to every action (?format=, its errors, the browsable view,
 * the headers every answer carries).
 */
function operationOf(page: Endpoint, method: Method, action: Action<{}>) {
  const pathParameters = pathParametersOf(page)
  const query = action.query ?? []
  const errors = new Set([...action.errors, ...edgeErrors(method, action.body !== undefined)])
  const responses: Record<number, ResponseDoc> = withEdgeResponses(method, action.responses)
  for (const status of errors) responses[status] ??= ERRORS[status]
  return {
    tags: [page.tag],
    summary: action.summary,
    description: action.description,
    parameters: [
      ...pathParameters,
      ...query,
      ...(action.fileOnly || query.some(({ name }) => name === 'format') ? [] : [FORMAT]),
    ],
    ...(action.body
      ? {
          requestBody: {
            // No body at all reads as {}: required when {} is not enough.
            required: !Value.Check(action.body.schema, {}),
            content: {
              ...(action.body.mediaOnly
                ? {}
                : { 'application/json': { schema: action.body.schema, example: action.body.example } }),
              ...action.body.media,
            },
          },
        }
      : {}),
    security: action.access === 'user' ? SECURED : OPTIONALLY_SECURED,
    responses: Object.fromEntries(
      Object.entries(responses).map(([status, response]) => [
        status,
        endpointResponse(Number(status), response, method, !(action.fileOnly && Number(status) < 300)),
      ]),
    ),
  }
}
