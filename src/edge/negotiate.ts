import { NotFound } from '../domain/errors'
import { memoByValue } from './header-memo'

/** Spreadsheets an action may render besides JSON and the browsable view, asked for by `?format=` only. */
export type SpreadsheetFormat = 'csv' | 'xlsx'
export type Format = 'json' | 'api' | SpreadsheetFormat

/**
 * `?format=` (`format`, null without one) wins (json, api, or a spreadsheet the action offers);
 * otherwise an Accept header that prefers HTML to JSON picks the browsable view.
 */
export function negotiate(
  format: string | null,
  accept: string | null,
  spreadsheets: readonly SpreadsheetFormat[] = [],
): Format {
  if (format !== null) {
    if (format === 'json' || format === 'api') return format
    if ((spreadsheets as readonly string[]).includes(format)) return format as SpreadsheetFormat
    throw new NotFound()
  }
  return accept && prefersHtml(accept) ? 'api' : 'json'
}

/** Whether an Accept header prefers HTML to JSON (a browser navigating, not a program). */
export const prefersHtml = memoByValue((accept) => {
  if (!accept.includes('html')) return false
  let html = 0
  let json = 0
  let any = 0
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.trim().toLowerCase().split(';')
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    const q = qParam ? Number(qParam.slice(2)) || 0 : 1
    if (type === 'text/html') html = Math.max(html, q)
    else if (type === 'application/json') json = Math.max(json, q)
    else if (type === '*/*' || type === 'application/*') any = Math.max(any, q)
  }
  return html > Math.max(json, any) || (html > 0 && html === any && json === 0)
})
