import { BlockList, isIP } from 'node:net'
import { addressesOf, NameNotResolved } from './host-names'

// Addresses a webhook may not reach unless CLUBS_WEBHOOK_ALLOW_PRIVATE=true (docs/reference.md §18): this
// host, its networks and everything that is not one public machine (RFC 6890 special purposes).
const NOT_PUBLIC = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4')
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local NAT64
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6')

/** The IPv4 address an IPv4-mapped or -compatible IPv6 address stands for ("::ffff:7f00:1" is 127.0.0.1). */
function embeddedIPv4(address: string): string | null {
  const match = /^::(?:ffff:)?(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address)
  if (!match) return null
  if (match[1]) return match[1]
  const high = parseInt(match[2]!, 16)
  const low = parseInt(match[3]!, 16)
  return [high >> 8, high & 255, low >> 8, low & 255].join('.')
}

/** Whether `address` (an IP literal) is one public machine: not loopback, private, link-local, multicast or unspecified. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 0) return false
  if (family === 4) return !NOT_PUBLIC.check(address, 'ipv4')
  const v4 = embeddedIPv4(address)
  return v4 === null ? !NOT_PUBLIC.check(address, 'ipv6') : isPublicAddress(v4)
}

/** Where a webhook's URL points, once checked: the address to connect to, and the host name it was reached by. */
export interface Target {
  readonly url: URL
  readonly address: string
  /** The host name in the URL, for the Host header and TLS; null when the URL names an address. */
  readonly hostName: string | null
}

/** A webhook URL this service will not send to, with why. */
export class TargetRefused extends Error {}

/** A host name that does not resolve (now). */
export class HostUnresolved extends TargetRefused {}

/** The host of `url` as an IP literal ("[::1]" becomes "::1"), or null when it is a name. */
function literalOf(url: URL): string | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  return isIP(host) ? host : null
}

const PRIVATE =
  'points to a loopback, private or link-local address; webhooks reach public addresses only (CLUBS_WEBHOOK_ALLOW_PRIVATE=true allows the others)'

/**
 * The URL's scheme and, when it names an address, that address: what can be said without asking
 * DNS. Returns the URL, or throws TargetRefused.
 */
export function checkWebhookUrl(text: string, allowPrivate: boolean): URL {
  if (!URL.canParse(text)) throw new TargetRefused('Enter a valid URL (http or https).')
  const url = new URL(text)
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TargetRefused('Enter a valid URL (http or https).')
  if (url.username || url.password)
    throw new TargetRefused('A webhook URL may not hold a user name or password: each delivery is signed instead.')
  const literal = literalOf(url)
  if (!allowPrivate && literal !== null && !isPublicAddress(literal)) throw new TargetRefused(`This URL ${PRIVATE}.`)
  return url
}

/**
 * Resolves the URL's host now (never on the data file's thread pool: src/domain/host-names.ts)
 * and checks every address it has: the address returned is the one to connect to, so that a name
 * answering differently a moment later (DNS rebinding) cannot send the request elsewhere.
 * Throws TargetRefused.
 */
export async function resolveTarget(url: URL, allowPrivate: boolean): Promise<Target> {
  const literal = literalOf(url)
  if (literal !== null) {
    if (!allowPrivate && !isPublicAddress(literal)) throw new TargetRefused(`The URL ${PRIVATE}.`)
    return { url, address: literal, hostName: null }
  }
  let found: string[]
  try {
    found = await addressesOf(url.hostname)
  } catch (e) {
    if (!(e instanceof NameNotResolved)) throw e
    throw new HostUnresolved(`The host name ${url.hostname} does not resolve (${e.code}).`)
  }
  const refused = allowPrivate ? undefined : found.find((address) => !isPublicAddress(address))
  if (refused) throw new TargetRefused(`The host name ${url.hostname} resolves to ${refused}, which ${PRIVATE}.`)
  return { url, address: found[0]!, hostName: url.hostname }
}
