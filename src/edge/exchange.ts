import type { Parameter } from './docs/openapi'
import { negotiate, type Format, type SpreadsheetFormat } from './negotiate'
import { urlOf } from './request-facts'

/** What the browsable view, OPTIONS and the Allow header say about the endpoint a request reached. */
export interface PageInfo {
  readonly name: string
  readonly description: string
  /** The methods it serves, in the contract's order ("GET, POST"). */
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

/** What the edge knows about one request once it has been negotiated. */
export interface Exchange {
  readonly request: Request
  readonly url: URL
  readonly format: Format
  /** The endpoint the request reached; null off the API (an unknown path). */
  readonly page: PageInfo | null
}

/**
 * Negotiates a request once: its URL, and JSON, the browsable view or one of the `spreadsheets`
 * the action offers (404 for any other ?format=).
 */
export function exchange(
  request: Request,
  page: PageInfo | null,
  spreadsheets: readonly SpreadsheetFormat[] = [],
): Exchange {
  const url = new URL(urlOf(request))
  return { request, url, format: negotiate(url, request.headers.get('accept'), spreadsheets), page }
}

/** The same for answering an error, where an unknown ?format= falls back to JSON. */
export function exchangeForError(request: Request, page: PageInfo | null = null): Exchange {
  const url = new URL(urlOf(request))
  let format: Format = 'json'
  try {
    format = negotiate(url, request.headers.get('accept'))
  } catch {}
  return { request, url, format, page }
}
