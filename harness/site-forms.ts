// Reading the site's pages as a browser would for the tests: entities, attributes, and what a form
// sends as it stands (a session signed in on the site: harness/site-session.ts).

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'" }
export const decoded = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_, name: string) => ENTITIES[name]!)

/** A tag's attributes, whose quoted values may hold ">" (only "<" and "&" are escaped there). */
export const ATTRS = '(?:"[^"]*"|[^>"])*'

/** What a browser would send for the page's edit form as it stands (the fields and boxes it shows). */
export function editFormOf(html: string): URLSearchParams {
  const form = /<form method="post" action="[^"]*\/edit"[^>]*>([\s\S]*?)<\/form>/.exec(html)![1]!
  const sent = new URLSearchParams()
  for (const [tag] of form.matchAll(new RegExp(`<input\\b${ATTRS}>`, 'g'))) {
    const attrs = Object.fromEntries([...tag.matchAll(/\s([a-z-]+)(?:="([^"]*)")?/g)].map(([, k, v]) => [k, v ?? '']))
    if (attrs.type === 'checkbox' && !('checked' in attrs)) continue
    sent.append(attrs.name!, decoded(attrs.value ?? ''))
  }
  for (const [, name, text] of form.matchAll(/<textarea\b[^>]*\sname="([^"]+)"[^>]*>([^<]*)<\/textarea>/g))
    sent.append(name!, decoded(text!))
  for (const [, name, options] of form.matchAll(/<select\b[^>]*\sname="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g))
    sent.append(name!, /<option value(?:="([^"]*)")? selected/.exec(options!)![1] ?? '')
  return sent
}
