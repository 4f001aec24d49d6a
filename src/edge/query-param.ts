const AMPERSAND = 38
const EQUALS = 61
const PERCENT = 37
const PLUS = 43
const QUESTION = 63

/**
 * The first value of query parameter `name` in `href`, as URLSearchParams reads it (null when
 * absent), found in one pass over the query with nothing made but the value; or undefined when
 * only a URLSearchParams can say: something to decode ('%', '+') up to the value, or a query that
 * starts with another '?'. Making a URLSearchParams was a tenth of the time of a small answer
 * with a query (a logo's ?size=64).
 */
export function queryParam(href: string, name: string): string | null | undefined {
  const start = href.indexOf('?') + 1
  if (start === 0) return null
  if (href.charCodeAt(start) === QUESTION) return undefined
  const length = href.length
  for (let at = start, pair = start; ; at++) {
    const c = at < length ? href.charCodeAt(at) : AMPERSAND
    if (c === PERCENT || c === PLUS) return undefined
    if (c !== AMPERSAND) continue
    // A pair ends at `at`: is it `name` or `name=value`?
    const after = pair + name.length
    if (after <= at && href.startsWith(name, pair)) {
      if (after === at) return ''
      if (href.charCodeAt(after) === EQUALS) return href.slice(after + 1, at)
    }
    if (at >= length) return null
    pair = at + 1
  }
}
