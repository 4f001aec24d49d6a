import { endpointFor } from './endpoints'
import { negotiate, type Format } from './negotiate'
import { urlOf } from './request-facts'
import type { Exchange } from './respond'

/** Negotiates a request once: its URL, JSON or browsable view (404 for an unknown ?format=), its endpoint. */
export function exchange(request: Request): Exchange {
  const url = new URL(urlOf(request))
  return { request, url, format: negotiate(url, request.headers.get('accept')), page: endpointFor(url.pathname) }
}

/** The same for answering an error, where an unknown ?format= falls back to JSON. */
export function exchangeForError(request: Request): Exchange {
  const url = new URL(urlOf(request))
  let format: Format = 'json'
  try {
    format = negotiate(url, request.headers.get('accept'))
  } catch {}
  return { request, url, format, page: endpointFor(url.pathname) }
}
