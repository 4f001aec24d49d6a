// The few helpers every piece of the browsable view builds its markup with.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Text made safe for an element's content and for a quoted attribute value. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!)

export const link = (href: string, text: string) => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`

/** A URL's path and query as a person reads it: commas, which a query may hold as they are, unescaped. */
export const pathAndQuery = (url: URL) => url.pathname + url.search.replace(/%2C/gi, ',')

/** The same URL in the browsable view, with `changes` applied to its query (null removes a parameter). */
export function viewUrl(url: URL, changes: Record<string, string | null> = {}): string {
  const target = new URL(url)
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) target.searchParams.delete(name)
    else target.searchParams.set(name, value)
  }
  target.searchParams.set('format', 'api')
  return pathAndQuery(target)
}

/** A URL of this service's API as a link within the browsable view; null for any other URL. */
export function localViewPath(href: string, origin: string): string | null {
  if (!URL.canParse(href, origin)) return null
  const url = new URL(href, origin)
  if (url.origin !== origin || !url.pathname.startsWith('/api/')) return null
  return viewUrl(url)
}
