import type { Exchange } from './respond'

/** What the browsable view says about the endpoint it renders. */
export interface PageInfo {
  readonly name: string
  readonly description: string
  readonly allow: string
}

export const HTML_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
} as const

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!)

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

/** Pretty-prints the JSON body, turning each club code into a link to that club's view. */
function highlight(json: string): string {
  const pretty = JSON.stringify(JSON.parse(json), null, 2)
  return escapeHtml(pretty).replace(
    /(&quot;code&quot;: &quot;)([a-z0-9-]+)(&quot;)/g,
    (_m, open: string, code: string, close: string) =>
      `${open}<a href="/api/clubs/${code}/?format=api">${code}</a>${close}`,
  )
}

/** The HTML rendering of an API answer: the same status, headers and body a program receives. */
export function renderBrowsable(
  ex: Exchange,
  status: number,
  json: string | null,
  headers: Record<string, string>,
): string {
  const page = ex.page ?? { name: 'Club Directory', description: '', allow: '' }
  const shown = Object.entries({ ...headers, 'Content-Type': 'application/json' })
    .filter(([name]) => !name.startsWith('Access-Control'))
    .map(([name, value]) => `<b>${escapeHtml(name)}:</b> ${escapeHtml(value)}`)
    .join('\n')
  const path = ex.url.pathname + ex.url.search.replace(/([?&])format=api&?/, '$1').replace(/[?&]$/, '')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.name)} – Club Directory</title>
<style>body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#222}header{background:#2c3e50;color:#fff;padding:.8em 1.5em}
header a{color:#fff;text-decoration:none;font-weight:600}main{max-width:70em;margin:auto;padding:1em 1.5em}
pre{background:#f6f8fa;border:1px solid #ddd;padding:1em;overflow:auto;white-space:pre-wrap;word-break:break-word}
.req{font-family:monospace;font-weight:600}</style></head>
<body><header><a href="/api/clubs/?format=api">Club Directory API</a></header><main>
<h1>${escapeHtml(page.name)}</h1><p>${escapeHtml(page.description)}</p>
<p class="req">${escapeHtml(ex.request.method)} ${escapeHtml(path)}</p>
<pre><b>HTTP ${status} ${STATUS_TEXT[status] ?? ''}</b>
${shown}

${json === null ? '' : highlight(json)}</pre>
</main></body></html>`
}
