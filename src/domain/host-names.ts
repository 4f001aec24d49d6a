import { Resolver } from 'node:dns/promises'
import { readFileSync } from 'node:fs'

// Host names are resolved here, not with dns.lookup (or fetch to a name): lookup calls
// getaddrinfo on the small thread pool that the data file's reads and writes use too, so a DNS
// server that does not answer held every thread and stalled writes for seconds (issue 35).
// A Resolver (c-ares) asks the servers of /etc/resolv.conf over its own UDP sockets, with the
// timeout below; /etc/hosts is read as getaddrinfo would, since c-ares does not.

/** How long one query waits for an answer, and how often it is sent (each try waits twice the last): 1.5 + 3 s at most. */
const DNS_QUERY_TIMEOUT_MS = 1_500
const DNS_QUERY_TRIES = 2
const HOSTS_FILE = '/etc/hosts'
const RESOLV_CONF = '/etc/resolv.conf'

/** A host name with no address: the DNS error code (ENOTFOUND, ETIMEOUT, ...). */
export class NameNotResolved extends Error {
  constructor(readonly code: string) {
    super(code)
  }
}

/** The addresses /etc/hosts gives `name` (lowercase, no trailing dot), in its order; [] when none. */
function fromHostsFile(name: string): string[] {
  let text: string
  try {
    // Synchronous on purpose: a few hundred bytes, read on the calling thread rather than the pool's.
    text = readFileSync(HOSTS_FILE, 'utf8')
  } catch {
    return []
  }
  const found: string[] = []
  for (const line of text.split('\n')) {
    const [address, ...names] = line.replace(/#.*/, '').trim().split(/\s+/)
    if (address && names.some((alias) => alias.toLowerCase() === name)) found.push(address)
  }
  return found
}

/** What /etc/resolv.conf says of names to try: its search domains, and how many dots make a name tried as it is first. */
interface SearchList {
  readonly domains: readonly string[]
  readonly ndots: number
}

/** The search list of /etc/resolv.conf as getaddrinfo reads it (the last search or domain line; ndots 1 when not said). */
function searchList(): SearchList {
  let text = ''
  try {
    text = readFileSync(RESOLV_CONF, 'utf8')
  } catch {
    // No file: no search domains.
  }
  let domains: string[] = []
  let ndots = 1
  for (const line of text.split('\n')) {
    const [key, ...values] = line
      .replace(/[#;].*/, '')
      .trim()
      .split(/\s+/)
    if (key === 'search' || key === 'domain') domains = values.map((domain) => domain.toLowerCase().replace(/\.$/, ''))
    if (key === 'options')
      for (const option of values) if (/^ndots:\d+$/.test(option)) ndots = Math.min(15, Number(option.slice(6)))
  }
  return { domains: domains.filter(Boolean), ndots }
}

/** How long one resolver, and the /etc/resolv.conf it read, is used: a changed file counts within this. */
const RESOLVER_LIFE_MS = 60_000
let shared: { readonly resolver: Resolver; readonly search: SearchList; readonly until: number } | null = null

/**
 * The resolver to ask, and the search list: one for many lookups, not one each. A channel of its
 * own per lookup cost a burst of them seconds here (each asks from new sockets); one channel
 * answers a name asked many times at once with one query.
 */
function resolver(): NonNullable<typeof shared> {
  const now = performance.now()
  if (!shared || shared.until < now)
    shared = {
      resolver: new Resolver({ timeout: DNS_QUERY_TIMEOUT_MS, tries: DNS_QUERY_TRIES }),
      search: searchList(),
      until: now + RESOLVER_LIFE_MS,
    }
  return shared
}

/** The names to ask for `host`, in order, as getaddrinfo would: the search domains first when it has fewer than ndots dots. */
function namesToAsk(host: string, absolute: boolean, { domains, ndots }: SearchList): string[] {
  if (absolute) return [host]
  const expanded = domains.map((domain) => `${host}.${domain}`)
  return host.split('.').length - 1 >= ndots ? [host, ...expanded] : [...expanded, host]
}

/**
 * Every address of the host name `name`: from /etc/hosts, "localhost" as RFC 6761 says, else its
 * A and AAAA records (IPv4 first), trying the search domains of /etc/resolv.conf as getaddrinfo
 * would. Stops at the first name the servers do not answer for: 4.5 s at most. Throws NameNotResolved.
 */
export async function addressesOf(name: string): Promise<string[]> {
  const host = name.toLowerCase().replace(/\.$/, '')
  const listed = fromHostsFile(host)
  if (listed.length) return listed
  if (host === 'localhost' || host.endsWith('.localhost')) return ['127.0.0.1', '::1']
  const { resolver: asking, search } = resolver()
  let code = 'ENOTFOUND'
  for (const candidate of namesToAsk(host, name.endsWith('.'), search)) {
    const [v4, v6] = await Promise.allSettled([asking.resolve4(candidate), asking.resolve6(candidate)])
    const found = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])]
    if (found.length) return found
    const codes = [v4, v6].map((result) => (result.status === 'rejected' ? codeOf(result.reason) : 'ENODATA'))
    code = codes.find((one) => one !== 'ENODATA') ?? 'ENODATA'
    // No such name: the next may be. Anything else (no answer, a failing server) would be the same for the next.
    if (code !== 'ENOTFOUND' && code !== 'ENODATA') break
  }
  throw new NameNotResolved(code)
}

const codeOf = (error: unknown) => String((error as NodeJS.ErrnoException)?.code ?? error)
