// What the edge learns about a request on its way through, for the access log, metrics and the
// rate limit: one record a request, kept beside the Request object rather than on it, and gone with it.

class Facts {
  /** The client's address (behind a trusted proxy, the one it names). */
  address: string | null = null
  /** The URL the client asked for: behind a trusted proxy, with its scheme and host (see serve.ts). */
  url: string | null = null
  /** The template of the endpoint the request reached ('/api/clubs/:code/'): never the raw path. */
  route: string | null = null
  username: string | null = null
}

const known = new WeakMap<Request, Facts>()

/** The facts of `request`, made on first use. */
export function factsOf(request: Request): Facts {
  let facts = known.get(request)
  if (!facts) known.set(request, (facts = new Facts()))
  return facts
}

export const addressOf = (request: Request): string | null => known.get(request)?.address ?? null

export const urlOf = (request: Request): string => known.get(request)?.url ?? request.url

export const noteRoute = (request: Request, route: string) => void (factsOf(request).route = route)

export const noteUsername = (request: Request, username: string) => void (factsOf(request).username = username)
