import type { BrowsableNotes, Exchange, PageInfo } from '../exchange'
import { clubFacts, reviewQueue, reviewTable } from './club'
import { requestForm, TOKEN_BAR } from './forms'
import { escapeHtml, link, localViewPath, pathAndQuery } from './html'
import { prettyBody } from './json-body'
import { downloadLinks, filterForm, filtersOf, orderingLinks, PAGED_NOTE, pager } from './list-controls'

export const HTML_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
} as const

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

/** The pages whose body is a tag or a list of tags. */
const TAG_PAGES: ReadonlySet<string> = new Set(['Tag List', 'Tag Instance'])
const NO_PAGE: PageInfo = { name: 'Club Directory', description: '', allow: '' }

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The answer's headers as a program gets them; a Location on this API links to its page. */
function headerLines(ex: Exchange, headers: Record<string, string>): string {
  return Object.entries({ ...headers, 'Content-Type': 'application/json' })
    .filter(([name]) => !name.startsWith('Access-Control'))
    .map(([name, value]) => {
      const local = name === 'Location' ? localViewPath(value, ex.url.origin) : null
      const shown = local ? `<a href="${escapeHtml(local)}">${escapeHtml(value)}</a>` : escapeHtml(value)
      return `<b>${escapeHtml(name)}:</b> ${shown}`
    })
    .join('\n')
}

/** After a create: the way to what was made. */
function createdLink(ex: Exchange, status: number, headers: Record<string, string>): string {
  const local = status === 201 && headers.Location ? localViewPath(headers.Location, ex.url.origin) : null
  return local ? `<p class="created">${link(local, 'Open what was created')}</p>` : ''
}

/** The API root's links, each with what it leads to. */
function directory(body: unknown, notes: BrowsableNotes, origin: string): string {
  if (!isRecord(body) || !notes.directory) return ''
  const items = notes.directory.flatMap(({ name, title, description }) => {
    const href = body[name]
    if (typeof href !== 'string' || !URL.canParse(href)) return []
    const target = localViewPath(href, origin) ?? new URL(href).pathname
    return [`<li>${link(target, title)} <code>${escapeHtml(name)}</code><p>${escapeHtml(description)}</p></li>`]
  })
  return `<ul class="directory">${items.join('')}</ul>`
}

/** The HTML rendering of an API answer: the same status, headers and body a program receives. */
export function renderBrowsable(
  ex: Exchange,
  status: number,
  json: string | null,
  headers: Record<string, string>,
  notes: BrowsableNotes = {},
): string {
  const page = ex.page ?? NO_PAGE
  const body: unknown = json === null ? null : JSON.parse(json)
  const method = ex.request.method
  const reading = method === 'GET' || method === 'HEAD'
  const requested = new URL(ex.url)
  requested.searchParams.delete('format')
  const isList = page.name === 'Club List' && status === 200 && reading
  const club = page.name === 'Club Instance' && status === 200 && isRecord(body) ? body : null
  const title = typeof club?.name === 'string' ? club.name : page.name
  const docTitle = status >= 400 ? `${status} ${STATUS_TEXT[status] ?? ''} – ${title}` : title
  const filters = reading && filtersOf(page.query).length ? filterForm(ex, page.query!) : ''
  const listTop = isList
    ? orderingLinks(ex) +
      pager(ex, body, 'Pages') +
      downloadLinks(ex) +
      (ex.url.searchParams.has('page') ? '' : PAGED_NOTE) +
      reviewQueue(notes)
    : ''
  const templateSource = club || isList || (page.name === 'Tag Instance' && status === 200) ? body : null
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.name.startsWith('Club Directory') ? docTitle : `${docTitle} – Club Directory`)}</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="/static/browsable.css"></head>
<body><header><a class="brand" href="/api/?format=api">Club Directory API</a>
<nav aria-label="Site">${link('/api/clubs/?format=api', 'Clubs')} ${link('/api/tags/?format=api', 'Tags')} ${link('/swagger', 'API docs')}</nav>
${TOKEN_BAR}</header>
<main data-url="${escapeHtml(ex.url.pathname)}">
${club ? `<p class="kind">${escapeHtml(page.name)}</p>` : ''}<h1 tabindex="-1">${escapeHtml(title)}</h1>
<p class="description">${escapeHtml(page.description)}</p>
<p class="request"><span class="method">${escapeHtml(method)}</span> ${escapeHtml(pathAndQuery(requested))}
${page.allow ? `<span class="allow">Allowed: ${escapeHtml(page.allow)}</span>` : ''}</p>
${club ? clubFacts(club) : ''}${filters}${listTop}${directory(body, notes, ex.url.origin)}
<pre class="response" data-status="${status}"><b>HTTP ${status} ${STATUS_TEXT[status] ?? ''}</b>
${headerLines(ex, headers)}

${body === null ? '' : prettyBody(body, ex.url.origin, TAG_PAGES.has(page.name))}</pre>
${createdLink(ex, status, headers)}${isList ? pager(ex, body, 'More pages') : ''}${club ? reviewTable(club) : ''}
${requestForm(page, status, method, templateSource)}
</main>
<script src="/static/browsable.js"></script>
</body></html>`
}
