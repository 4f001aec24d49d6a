// What the edge learns about a request on its way through, for the access log and the rate
// limit: kept beside the Request object rather than on it, and gone with it.
const usernames = new WeakMap<Request, string>()
const addresses = new WeakMap<Request, string>()

export const noteUsername = (request: Request, username: string) => usernames.set(request, username)
export const usernameOf = (request: Request): string | null => usernames.get(request) ?? null

export const noteAddress = (request: Request, address: string) => addresses.set(request, address)
export const addressOf = (request: Request): string | null => addresses.get(request) ?? null

const originalUrls = new WeakMap<Request, string>()

/** The URL the client asked for, when the request was re-addressed to be routed (see serve.ts). */
export const noteOriginalUrl = (request: Request, url: string) => originalUrls.set(request, url)
export const urlOf = (request: Request): string => originalUrls.get(request) ?? request.url

const routes = new WeakMap<Request, string>()

/** The template of the endpoint a request reached ('/api/clubs/:code/'), for metrics: never the raw path. */
export const noteRoute = (request: Request, route: string) => routes.set(request, route)
export const routeOf = (request: Request): string | null => routes.get(request) ?? null
