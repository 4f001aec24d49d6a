/** The origin `next` is read against: a made-up one (`.invalid` is no one's, RFC 2606). */
const HERE = 'http://next.invalid'
/**
 * A longer `next` is refused: a proxy answers 502 to a Location past its header buffer (nginx's
 * is 4 KiB), and no link of the site is that long.
 */
const MAX_NEXT = 2048

/**
 * Where to go after signing in: a path of this site as a browser reads it, else `/`. A browser
 * drops tabs, CR and LF anywhere in a URL and reads `\` as `/`, so `/\t/evil` and `/\evil` are
 * `//evil`, another host; the WHATWG URL parser reads `next` the same way here. The answer is the
 * parsed path, query and fragment, percent-encoded: no control character or non-ASCII text
 * reaches the Location header.
 */
export function safeNext(next: string | null): string {
  if (next === null || next.length > MAX_NEXT || !next.startsWith('/')) return '/'
  let url: URL
  try {
    url = new URL(next, HERE)
  } catch {
    return '/'
  }
  if (url.origin !== HERE) return '/'
  const path = url.pathname + url.search + url.hash
  // `/.//evil` parses to the path `//evil`, which a browser reads as another host.
  return path.startsWith('//') || path.length > MAX_NEXT ? '/' : path
}
