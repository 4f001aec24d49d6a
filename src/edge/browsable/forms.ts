import type { PageInfo } from '../exchange'
import { escapeHtml } from './html'

// The browsable view's two forms. Both are driven by /static/browsable.js; neither names its token
// field, so a page whose script did not run can never put a token in a URL.

/**
 * Where a token is entered, once for the tab: the script keeps it in sessionStorage and sends it
 * as `Authorization: Bearer` with the page's own requests (see browsable.js for why not a cookie).
 */
export const TOKEN_BAR = `<div class="token">
<form class="token-form" aria-label="Your token">
<label for="token">Token</label>
<input id="token" type="password" autocomplete="off" spellcheck="false" placeholder="Bearer token">
<button type="submit">Use token</button>
</form>
<p class="who" hidden>Signed in as <b class="username"></b> (token kept in this tab only) <button type="button" class="forget">Forget token</button></p>
<p class="problem" role="alert" hidden></p>
</div>`

/** Answers that leave nothing to send a request to: no such resource, no such method, a server fault. */
const NOTHING_TO_ACT_ON = (status: number) => status === 404 || status === 405 || status === 410 || status >= 500

/** The form that sends the endpoint's writes (and GET, to reload), with a JSON body that starts from its schema. */
export function requestForm(page: PageInfo, status: number, method: string, shown: unknown): string {
  const writes = page.allow.split(', ').filter((m) => m === 'POST' || m === 'PUT' || m === 'PATCH' || m === 'DELETE')
  if (!writes.length || NOTHING_TO_ACT_ON(status) || (method === 'DELETE' && status < 300)) return ''
  const methods = page.allow.includes('GET') ? [...writes, 'GET'] : writes
  const template = page.template ? JSON.stringify(page.template(shown), null, 2) : ''
  const options = methods.map((m) => `<option>${m}</option>`).join('')
  return `<section class="act" id="send" aria-labelledby="send-title">
<h2 id="send-title">Send a request</h2>
<p class="sent-as">Sent without a token: enter one at the top of the page to write.</p>
<form class="api-form" method="post">
<label>Method <select name="method">${options}</select></label>
<label class="body">Body (JSON) <textarea name="body" rows="14" spellcheck="false">${escapeHtml(template)}</textarea></label>
<button type="submit">Send</button>
</form>
</section>`
}
