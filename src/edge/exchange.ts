import type { Parameter } from './docs/openapi'
import { negotiate, type Format, type SpreadsheetFormat } from './negotiate'
import { queryParam } from './query-param'
import { urlOf } from './request-facts'

/** What the browsable view, OPTIONS and the Allow header say about the endpoint a request reached. */
export interface PageInfo {
  readonly name: string
  readonly description: string
  /** The methods it serves, in the reference's order ("GET, POST"). */
  readonly allow: string
  /** The JSON a write form starts from, given the body the page shows. */
  readonly template?: (shown: unknown) => Record<string, unknown>
  /** The query parameters its GET declares: the browsable view's search and filter form is made from them. */
  readonly query?: readonly Parameter[]
}

/** What the browsable view shows beside an answer's body: for each listed club awaiting review, whether it is new or a change. */
export interface BrowsableNotes {
  readonly review?: ReadonlyMap<string, 'new club' | 'change to an approved club'>
  /** On the API root: what each of the body's links leads to, in the body's order. */
  readonly directory?: readonly { readonly name: string; readonly title: string; readonly description: string }[]
}

const NO_QUERY: URLSearchParams = new URLSearchParams()

/** Picks the format from `?format=` (null without one) and the Accept header. */
export type Negotiation = (format: string | null, accept: string | null) => Format

/**
 * What the edge knows about one request once it has been negotiated. The URL is parsed on first
 * use: most answers (one club, a cached list, a 304, a 404) need none of it.
 */
export class Exchange {
  readonly format: Format
  #url: URL | null

  constructor(
    readonly request: Request,
    /** The endpoint the request reached; null off the API (an unknown path). */
    readonly page: PageInfo | null,
    /** The URL the client asked for (behind a trusted proxy, with the proxy's scheme and host). */
    readonly href: string,
    format: Format | Negotiation,
    url: URL | null = null,
  ) {
    this.#url = url
    this.format = typeof format === 'function' ? format(this.param('format'), request.headers.get('accept')) : format
  }

  /** The same exchange at another URL of its endpoint (the browsable list's page 1). */
  at(url: URL): Exchange {
    return new Exchange(this.request, this.page, url.href, this.format, url)
  }

  get url(): URL {
    return (this.#url ??= new URL(this.href))
  }

  #query: URLSearchParams | null = null

  /** The query parameters, read without parsing the whole URL (a request sends no fragment). */
  get query(): URLSearchParams {
    if (this.#query) return this.#query
    if (this.#url) return (this.#query = this.#url.searchParams)
    const at = this.href.indexOf('?')
    return (this.#query = at < 0 ? NO_QUERY : new URLSearchParams(this.href.slice(at + 1)))
  }

  /** One query parameter's first value, as `query.get` reads it, or null; most need no URLSearchParams made. */
  param(name: string): string | null {
    if (this.#url || this.#query) return this.query.get(name)
    const value = queryParam(this.href, name)
    return value === undefined ? this.query.get(name) : value
  }
}

/** JSON, the browsable view or one of the `spreadsheets` an action offers (404 for any other ?format=). */
export const offering =
  (spreadsheets?: readonly SpreadsheetFormat[]): Negotiation =>
  (format, accept) =>
    negotiate(format, accept, spreadsheets)

/** The same for answering an error, where an unknown ?format= falls back to JSON. */
export const exchangeForError = (request: Request, page: PageInfo | null = null) =>
  new Exchange(request, page, urlOf(request), (format, accept) => {
    try {
      return negotiate(format, accept)
    } catch {
      return 'json'
    }
  })
