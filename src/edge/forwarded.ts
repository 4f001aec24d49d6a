// What a trusted reverse proxy says about the client (docs/reference.md §17): X-Forwarded-Proto, -Host, -For.

/** Whose X-Forwarded-* headers to believe: nobody, any peer, or these proxy addresses. */
export type TrustProxy = boolean | readonly string[]

export interface Forwarded {
  /** The URL the client asked for: the proxy's scheme and host, this request's path and query. */
  readonly url: string | null
  /** The client's address, as the nearest untrusted hop in X-Forwarded-For. */
  readonly address: string | null
}

const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/
const ADDRESS = /^[0-9A-Fa-f.:]+$/

/** '::ffff:127.0.0.1' is 127.0.0.1 as an IPv6 socket reports it. */
const plain = (address: string) => (address.startsWith('::ffff:') ? address.slice(7) : address)

export function trusts(trust: TrustProxy, peer: string | null): boolean {
  if (trust === true) return true
  if (trust === false || peer === null) return false
  return trust.includes(plain(peer))
}

const first = (header: string | null) => header?.split(',')[0]!.trim() || null

/** The forwarded facts of `request`, which came from a trusted proxy at `peer`. */
export function forwardedOf(request: Request, trust: TrustProxy): Forwarded {
  const headers = request.headers
  const proto = first(headers.get('x-forwarded-proto'))?.toLowerCase()
  const host = first(headers.get('x-forwarded-host'))
  let url: string | null = null
  if ((proto === 'http' || proto === 'https' || host) && (host === null || HOST.test(host))) {
    const original = new URL(request.url)
    const scheme = proto === 'http' || proto === 'https' ? proto : original.protocol.slice(0, -1)
    url = `${scheme}://${host ?? original.host}${original.pathname}${original.search}`
  }
  return { url, address: clientAddress(headers.get('x-forwarded-for'), trust) }
}

/** The client in X-Forwarded-For: the leftmost when every peer is trusted, else the nearest hop that is no trusted proxy. */
function clientAddress(header: string | null, trust: TrustProxy): string | null {
  if (!header) return null
  const hops = header
    .split(',')
    .map((hop) => plain(hop.trim()))
    .filter((hop) => ADDRESS.test(hop))
  if (!hops.length) return null
  if (trust === true) return hops[0]!
  for (let i = hops.length - 1; i >= 0; i--) if (!trusts(trust, hops[i]!)) return hops[i]!
  return hops[0]!
}
