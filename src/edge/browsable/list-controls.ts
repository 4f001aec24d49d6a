import {
  BOOLEAN_FILTERS,
  CODED_FILTERS,
  DEFAULT_ORDERING,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  ORDERING_FIELDS,
} from '../../domain/list-query'
import type { Parameter } from '../docs/openapi'
import type { Exchange } from '../exchange'
import { escapeHtml, link, pathAndQuery, viewUrl } from './html'

// The controls of a browsable list: search and filter form, ordering, pages, downloads. The form
// is made from the list's declared query parameters, the same ones the OpenAPI document shows.

/** Query parameters with controls of their own elsewhere on the page (page links, views and downloads). */
const NOT_FILTERS: ReadonlySet<string> = new Set(['page', 'format', 'fields'])
const BOOLEANS: ReadonlySet<string> = new Set(BOOLEAN_FILTERS)
const CODED = CODED_FILTERS as Record<string, Record<number, string>>

/** The parameters the search and filter form offers. */
export const filtersOf = (params: readonly Parameter[] = []) =>
  params.filter((param) => param.in === 'query' && !NOT_FILTERS.has(param.name))

const option = (value: string, text: string, selected: boolean) =>
  `<option value="${escapeHtml(value)}"${selected ? ' selected' : ''}>${escapeHtml(text)}</option>`

/** `choices` as options, with the current value kept (and shown) when it is none of them. */
function options(choices: [value: string, text: string][], current: string): string {
  const known = choices.some(([value]) => value === current)
  return [...choices, ...(known ? [] : [[current, current] as [string, string]])]
    .map(([value, text]) => option(value, text, value === current))
    .join('')
}

function control(param: Parameter, current: string | null, id: string, hint: string): string {
  const { name } = param
  const value = current ?? ''
  const described = hint ? ` aria-describedby="${id}-hint"` : ''
  if (CODED[name]) {
    const chosen = new Set(value.split(',').map((part) => part.trim()))
    const boxes = Object.entries(CODED[name]).map(
      ([code, label]) =>
        `<label><input type="checkbox" name="${name}" value="${code}"${chosen.has(code) ? ' checked' : ''}> ${escapeHtml(label)}</label>`,
    )
    return `<fieldset class="field coded"><legend>${name}</legend>${boxes.join('')}</fieldset>`
  }
  let input: string
  if (BOOLEANS.has(name)) {
    input = `<select id="${id}" name="${name}"${described}>${options(
      [
        ['', 'any'],
        ['true', 'true'],
        ['false', 'false'],
      ],
      value,
    )}</select>`
  } else if (name === 'ordering') {
    const choices = ORDERING_FIELDS.flatMap((field): [string, string][] => [
      [field, `${field} ↑`],
      [`-${field}`, `${field} ↓`],
    ])
    input = `<select id="${id}" name="${name}"${described}>${options([['', `default (${DEFAULT_ORDERING})`], ...choices], value)}</select>`
  } else if (name === 'page_size') {
    input = `<input id="${id}" type="number" name="${name}" min="1" max="${MAX_PAGE_SIZE}" placeholder="${DEFAULT_PAGE_SIZE}" value="${escapeHtml(value)}"${described}>`
  } else {
    const examples = (param.schema as { examples?: unknown }).examples
    const example = Array.isArray(examples) && typeof examples[0] === 'string' ? examples[0] : ''
    const type = name === 'search' ? 'search' : 'text'
    input = `<input id="${id}" type="${type}" name="${name}" value="${escapeHtml(value)}" placeholder="${escapeHtml(example)}"${described}>`
  }
  const hintHtml = hint ? `<small id="${id}-hint">${escapeHtml(hint)}</small>` : ''
  return `<div class="field"><label for="${id}">${name}</label>${input}${hintHtml}</div>`
}

/**
 * DRF's filter controls: one field per declared filter, filled in from the request. The page's
 * script sends it without the empty fields and with the ticked codes joined by commas.
 */
export function filterForm(ex: Exchange, params: readonly Parameter[]): string {
  const filters = filtersOf(params)
  if (!filters.length) return ''
  const query = ex.url.searchParams
  const shown = new Set<string>()
  const fields = filters.map((param) => {
    // The first sentence of each description, once (filters may share one), and none where the
    // choices say it all.
    const hint = param.description.split(/(?<=\.)\s/)[0]!
    const said = CODED[param.name] || param.name === 'ordering' || shown.has(hint)
    shown.add(hint)
    return control(param, query.get(param.name), `filter-${param.name}`, said ? '' : hint)
  })
  const open = filters.some((param) => query.has(param.name)) ? ' open' : ''
  return `<details class="filters"${open}><summary>Search and filter</summary>
<form class="filter-form" method="get" action="${escapeHtml(ex.url.pathname)}" aria-label="Search and filter">
<div class="fields">${fields.join('\n')}</div>
<input type="hidden" name="format" value="api">
<p class="buttons"><button type="submit">Apply</button> ${link(viewUrl(new URL(ex.url.pathname, ex.url)), 'Clear all')}</p>
</form></details>`
}

export function orderingLinks(ex: Exchange): string {
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

/** The page numbers to link: the first, the last, and two either side of the current one; null for a gap. */
export function pageNumbers(current: number, last: number): (number | null)[] {
  const wanted = [1, current - 2, current - 1, current, current + 1, current + 2, last]
  const numbers = [...new Set(wanted.filter((n) => n >= 1 && n <= last))].sort((a, b) => a - b)
  return numbers.flatMap((n, i) => (i > 0 && n - numbers[i - 1]! > 1 ? [null, n] : [n]))
}

const wholeNumber = (raw: string | null) => (raw !== null && /^\d+$/.test(raw.trim()) ? Number(raw) : null)

/** Previous, the page numbers and Next, for a paged answer's body; `label` names the navigation landmark. */
export function pager(ex: Exchange, body: unknown, label: string): string {
  if (!body || typeof body !== 'object' || !('count' in body) || typeof body.count !== 'number') return ''
  const count = body.count
  const size = Math.min(wholeNumber(ex.url.searchParams.get('page_size')) || DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
  const current = wholeNumber(ex.url.searchParams.get('page')) || 1
  const last = Math.max(1, Math.ceil(count / size))
  const to = (n: number) => viewUrl(ex.url, { page: String(n) })
  const step = (n: number, text: string, rel: string) =>
    n >= 1 && n <= last
      ? `<a rel="${rel}" href="${escapeHtml(to(n))}">${text}</a>`
      : `<span class="off" aria-disabled="true">${text}</span>`
  const numbers = pageNumbers(current, last).map((n) =>
    n === null
      ? '<span class="gap">…</span>'
      : n === current
        ? `<strong aria-current="page">${n}</strong>`
        : `<a href="${escapeHtml(to(n))}" aria-label="Page ${n}">${n}</a>`,
  )
  const first = (current - 1) * size + 1
  const range = count === 0 ? 'No clubs match' : `Clubs ${first}–${Math.min(current * size, count)} of ${count}`
  return `<nav class="pages" aria-label="${escapeHtml(label)}">${step(current - 1, '« Previous', 'prev')} ${numbers.join(' ')} ${step(current + 1, 'Next »', 'next')} <span class="range">${range}</span></nav>`
}

/** The same list as a spreadsheet (docs/reference.md §15): the query as it stands, every page when it is not paged. */
export function downloadLinks(ex: Exchange): string {
  const as = (format: string) => {
    const target = new URL(ex.url)
    target.searchParams.set('format', format)
    return pathAndQuery(target)
  }
  return `<nav class="downloads" aria-label="Download"><span>Download:</span> ${link(as('csv'), 'CSV')} ${link(as('xlsx'), 'Excel (XLSX)')}</nav>`
}

/** Said when the view pages a list that a program gets whole. */
export const PAGED_NOTE = `<p class="note">This view shows one page at a time. A program asking for this URL gets every matching club as one JSON array; with <code>?page=</code>, the page shown here.</p>`
