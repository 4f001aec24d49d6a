import { APPLICATION_REQUIRED, RECRUITING_CYCLES, SIZES } from '../../model/club'
import { ORDERING_FIELDS } from '../../domain/list-query'
import type { BrowsableNotes, Exchange, PageInfo } from '../exchange'

export const HTML_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
} as const

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!)

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
}

const CODED: Record<string, Record<number, string>> = {
  size: SIZES,
  application_required: APPLICATION_REQUIRED,
  recruiting_cycle: RECRUITING_CYCLES,
}

/** The same URL in the browsable view, with `changes` applied to its query (null removes a parameter). */
function viewUrl(url: URL, changes: Record<string, string | null> = {}): string {
  const target = new URL(url)
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) target.searchParams.delete(name)
    else target.searchParams.set(name, value)
  }
  target.searchParams.set('format', 'api')
  return target.pathname + target.search
}

const link = (href: string, text: string) => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`

/** The pages whose body is a tag or a list of tags. */
const TAG_PAGES: ReadonlySet<string> = new Set(['Tag List', 'Tag Instance'])
/** `"id": 7, "name": "<a JSON string, HTML-escaped>"` in a pretty-printed, escaped tag. */
const TAG_NAME = /(&quot;id&quot;: (\d+),\n\s*&quot;name&quot;: &quot;)((?:[^&\\]|\\.|&(?!quot;))*)(&quot;)/g

/**
 * The browsable list of a tag's clubs: `?tags=<name>`, or `?tags=<id>` for a name the filter would
 * not read back as that tag (a comma splits it; digits read as an id).
 */
function tagClubsUrl(id: number, name: string): string {
  const ref = name.includes(',') || /^\d+$/.test(name.trim()) ? String(id) : name
  return `/api/clubs/?${new URLSearchParams({ tags: ref, format: 'api' })}`
}

/** Links each tag's name to the list of its clubs; the names are taken from the body, not from the HTML. */
function linkTagNames(html: string, body: unknown): string {
  const names = new Map<number, string>()
  for (const tag of [body].flat() as { id?: unknown; name?: unknown }[])
    if (typeof tag?.id === 'number' && typeof tag.name === 'string') names.set(tag.id, tag.name)
  return html.replace(TAG_NAME, (whole, open: string, id: string, shown: string, close: string) => {
    const name = names.get(Number(id))
    if (name === undefined) return whole
    return `${open}<a href="${escapeHtml(tagClubsUrl(Number(id), name))}">${shown}</a>${close}`
  })
}

/**
 * Pretty-prints a JSON body, linking each club code to its page, on the tag pages each tag to its
 * clubs, and each http(s) URL to itself.
 */
function prettyBody(value: unknown, page: PageInfo): string {
  let html = escapeHtml(JSON.stringify(value, null, 2)).replace(
    /(&quot;(?:code|club)&quot;: &quot;)([a-z0-9-]+)(&quot;)/g,
    (_m, open: string, code: string, close: string) =>
      `${open}<a href="/api/clubs/${code}/?format=api">${code}</a>${close}`,
  )
  // Before the URLs: a tag named like a URL links to its clubs, and no longer reads as a bare URL.
  if (TAG_PAGES.has(page.name)) html = linkTagNames(html, value)
  return html.replace(/&quot;(https?:\/\/[^\s&]+)&quot;/g, (_m, href: string) => {
    const url = new URL(href.replace(/&amp;/g, '&'))
    const local = url.pathname.startsWith('/api/')
    if (local) url.searchParams.set('format', 'api')
    const target = local ? url.pathname + url.search : url.toString()
    return `&quot;<a href="${escapeHtml(target)}"${local ? '' : ' rel="noopener noreferrer nofollow"'}>${href}</a>&quot;`
  })
}

function orderingLinks(ex: Exchange): string {
  const current = ex.url.searchParams.get('ordering')
  const items = ORDERING_FIELDS.flatMap((field) =>
    [field, `-${field}`].map((ordering) => {
      const label = `${field} ${ordering.startsWith('-') ? '↓' : '↑'}`
      return ordering === current
        ? `<strong>${escapeHtml(label)}</strong>`
        : link(viewUrl(ex.url, { ordering, page: null }), label)
    }),
  )
  return `<nav class="ordering" aria-label="Ordering"><span>Order by:</span> ${items.join(' ')}</nav>`
}

function pageLinks(ex: Exchange, body: unknown): string {
  if (!body || typeof body !== 'object' || Array.isArray(body) || !('count' in body)) {
    return `<nav class="pages">${link(viewUrl(ex.url, { page: '1' }), 'Show in pages')}</nav>`
  }
  const { previous, next, count } = body as { previous: string | null; next: string | null; count: number }
  const to = (href: string | null, text: string) =>
    href ? link(viewUrl(new URL(href)), text) : `<span class="off">${text}</span>`
  return `<nav class="pages" aria-label="Pages">${to(previous, '« Previous')} <span>${count} clubs, page ${escapeHtml(ex.url.searchParams.get('page') ?? '1')}</span> ${to(next, 'Next »')}</nav>`
}

/** The same list as a spreadsheet (CONTRACT §15): the query as it stands, every page when it is not paged. */
function downloadLinks(ex: Exchange): string {
  const as = (format: string) => {
    const target = new URL(ex.url)
    target.searchParams.set('format', format)
    return target.pathname + target.search
  }
  return `<nav class="downloads" aria-label="Download"><span>Download:</span> ${link(as('csv'), 'CSV')} ${link(as('xlsx'), 'Excel (XLSX)')}</nav>`
}

function codedLabels(body: unknown): string {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return ''
  const rows = Object.entries(CODED)
    .filter(([field]) => typeof (body as Record<string, unknown>)[field] === 'number')
    .map(([field, labels]) => {
      const value = (body as Record<string, number>)[field]!
      return `<tr><th>${field}</th><td>${value}</td><td>${escapeHtml(labels[value] ?? '')}</td></tr>`
    })
  return rows.length ? `<table class="coded"><caption>Coded values</caption>${rows.join('')}</table>` : ''
}

const REVIEWED = ['name', 'subtitle', 'description', 'image_url'] as const

/** A reviewer's view of a change awaiting review: the approved and the pending values side by side. */
function reviewTable(body: unknown): string {
  const club = body as { approved_version?: Record<string, unknown> | null } & Record<string, unknown>
  const approved = club?.approved_version
  if (!approved) return ''
  const cell = (value: unknown) => escapeHtml(value === null ? '—' : String(value))
  const rows = REVIEWED.map((field) => {
    const changed = approved[field] !== club[field]
    return `<tr${changed ? ' class="changed"' : ''}><th>${field}</th><td>${cell(approved[field])}</td><td>${cell(club[field])}</td></tr>`
  })
  return `<table class="review"><caption>Awaiting review: approved and pending values (approved by ${cell(approved.approved_by)})</caption>
<thead><tr><th>field</th><th>approved (public)</th><th>pending</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
}

/** In the approval queue: which listed clubs are new and which are changes to approved ones. */
function reviewQueue(notes: BrowsableNotes): string {
  if (!notes.review?.size) return ''
  const rows = [...notes.review].map(
    ([code, kind]) => `<li>${link(`/api/clubs/${code}/?format=api`, code)}: ${escapeHtml(kind)}</li>`,
  )
  return `<section class="queue" aria-label="Awaiting review"><h2>Awaiting review</h2><ul>${rows.join('')}</ul></section>`
}

function forms(page: PageInfo, body: unknown): string {
  const writes = page.allow.split(', ').filter((m) => m !== 'GET')
  if (!writes.length) return ''
  // GET comes last: it reloads the answer with the token, e.g. a pending club its owner may see.
  const methods = page.allow.includes('GET') ? [...writes, 'GET'] : writes
  const template = page.template ? JSON.stringify(page.template(body), null, 2) : ''
  const options = methods.map((m) => `<option>${m}</option>`).join('')
  return `<section class="act" aria-label="Send a request">
<h2>Send a request</h2>
<form class="api-form">
<label>Token <input type="password" name="token" autocomplete="off" placeholder="Bearer token"></label>
<label>Method <select name="method">${options}</select></label>
<label class="body">Body (JSON) <textarea name="body" rows="14" spellcheck="false">${escapeHtml(template)}</textarea></label>
<button type="submit">Send</button>
</form>
<pre class="result" id="result" hidden></pre>
</section>`
}

/** The HTML rendering of an API answer: the same status, headers and body a program receives. */
export function renderBrowsable(
  ex: Exchange,
  status: number,
  json: string | null,
  headers: Record<string, string>,
  notes: BrowsableNotes = {},
): string {
  const page = ex.page ?? { name: 'Club Directory', description: '', allow: '' }
  const body: unknown = json === null ? null : JSON.parse(json)
  const shownHeaders = Object.entries({ ...headers, 'Content-Type': 'application/json' })
    .filter(([name]) => !name.startsWith('Access-Control'))
    .map(([name, value]) => `<b>${escapeHtml(name)}:</b> ${escapeHtml(value)}`)
    .join('\n')
  const requested = new URL(ex.url)
  requested.searchParams.delete('format')
  const isList = page.name === 'Club List' && status === 200
  const isClub = page.name === 'Club Instance' && status === 200
  const isTag = page.name === 'Tag Instance' && status === 200
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.name)} – Club Directory</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="/static/browsable.css"></head>
<body><header><a class="brand" href="/api/clubs/?format=api">Club Directory API</a>
<nav>${link('/api/clubs/?format=api', 'Clubs')} ${link('/api/tags/?format=api', 'Tags')} ${link('/swagger', 'API docs')}</nav></header>
<main data-url="${escapeHtml(ex.url.pathname)}">
<h1>${escapeHtml(page.name)}</h1>
<p class="description">${escapeHtml(page.description)}</p>
<p class="request"><span class="method">${escapeHtml(ex.request.method)}</span> ${escapeHtml(requested.pathname + requested.search)}
${page.allow ? `<span class="allow">Allowed: ${escapeHtml(page.allow)}</span>` : ''}</p>
${isList ? orderingLinks(ex) + pageLinks(ex, body) + downloadLinks(ex) : ''}
<pre class="response" data-status="${status}"><b>HTTP ${status} ${STATUS_TEXT[status] ?? ''}</b>
${shownHeaders}

${body === null ? '' : prettyBody(body, page)}</pre>
${isClub ? reviewTable(body) + codedLabels(body) : ''}${isList ? reviewQueue(notes) : ''}
${forms(page, isClub || isList || isTag ? body : null)}
</main>
<script src="/static/browsable.js"></script>
</body></html>`
}
