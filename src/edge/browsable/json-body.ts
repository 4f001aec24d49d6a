import { CODED_FILTERS } from '../../domain/list-query'
import { escapeHtml, localViewPath } from './html'

// An answer's JSON, pretty-printed and escaped, with links where a person would want to follow
// one. The text stays exactly the JSON a program receives: labels of coded values are drawn by the
// style sheet from an attribute, so they are seen but not part of the text (nor of a copy of it).

/** `"id": 7, "name": "<a JSON string, HTML-escaped>"` in a pretty-printed, escaped tag. */
const TAG_NAME = /(&quot;id&quot;: (\d+),\n\s*&quot;name&quot;: &quot;)((?:[^&\\]|\\.|&(?!quot;))*)(&quot;)/g
const CLUB_CODE = /(&quot;(?:code|club)&quot;: &quot;)([a-z0-9-]+)(&quot;)/g
const CODED_VALUE = new RegExp(`(&quot;(${Object.keys(CODED_FILTERS).join('|')})&quot;: )(\\d+)(,?)`, 'g')
const HTTP_URL = /&quot;(https?:\/\/[^\s&]+)&quot;/g

/**
 * The browsable list of a tag's clubs: `?tags=<name>`, or `?tags=<id>` for a name the filter would
 * not read back as that tag (a comma splits it; digits read as an id).
 */
export function tagClubsUrl(id: number, name: string): string {
  const ref = name.includes(',') || /^\d+$/.test(name.trim()) ? String(id) : name
  return `/api/clubs/?${new URLSearchParams({ tags: ref, format: 'api' })}`
}

/** The tags an answer holds, by id: those in any `tags` list, and on a tag page the body's own. */
function tagsIn(body: unknown, isTagPage: boolean): Map<number, string> {
  const names = new Map<number, string>()
  const add = (tag: unknown) => {
    const { id, name } = (tag ?? {}) as { id?: unknown; name?: unknown }
    if (typeof id === 'number' && typeof name === 'string') names.set(id, name)
  }
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk)
    else if (value && typeof value === 'object')
      for (const [key, child] of Object.entries(value)) {
        if (key === 'tags' && Array.isArray(child)) child.forEach(add)
        else walk(child)
      }
  }
  if (isTagPage) [body].flat().forEach(add)
  walk(body)
  return names
}

/** Links each tag's name to the list of its clubs; the names are taken from the body, not from the HTML. */
function linkTagNames(html: string, names: ReadonlyMap<number, string>): string {
  return html.replace(TAG_NAME, (whole, open: string, id: string, shown: string, close: string) => {
    const name = names.get(Number(id))
    if (name === undefined) return whole
    return `${open}<a href="${escapeHtml(tagClubsUrl(Number(id), name))}">${shown}</a>${close}`
  })
}

function labelCodedValues(html: string): string {
  return html.replace(CODED_VALUE, (whole, open: string, field: string, value: string, comma: string) => {
    const label = (CODED_FILTERS as Record<string, Record<number, string>>)[field]![Number(value)]
    if (label === undefined) return whole
    return `${open}${value}${comma}<span class="label" data-label="${escapeHtml(label)}"></span>`
  })
}

/**
 * Pretty-prints a JSON body: each club code links to its page, each tag name to its clubs, each
 * http(s) URL to itself (this API's own in the browsable view), and coded values show their labels.
 */
export function prettyBody(value: unknown, origin: string, isTagPage: boolean): string {
  let html = escapeHtml(JSON.stringify(value, null, 2)).replace(
    CLUB_CODE,
    (_m, open: string, code: string, close: string) =>
      `${open}<a href="/api/clubs/${code}/?format=api">${code}</a>${close}`,
  )
  // Before the URLs: a tag named like a URL links to its clubs, and no longer reads as a bare URL.
  html = labelCodedValues(linkTagNames(html, tagsIn(value, isTagPage)))
  return html.replace(HTTP_URL, (whole, href: string) => {
    // Only a string that is a whole URL: one met inside other text (after an escaped quote) may not parse.
    if (!URL.canParse(href)) return whole
    const local = localViewPath(href, origin)
    const target = local ?? new URL(href).toString()
    return `&quot;<a href="${escapeHtml(target)}"${local ? '' : ' rel="noopener noreferrer nofollow"'}>${href}</a>&quot;`
  })
}
