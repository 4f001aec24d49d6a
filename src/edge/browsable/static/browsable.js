// The browsable view's behaviour: a token for the tab, page loads and links that carry it, and the forms.
//
// Why the token travels this way. It is kept in sessionStorage (this tab only, gone when the tab
// closes) and sent only by this script, as `Authorization: Bearer`, on fetches to this origin's
// /api/ paths; the HTML that comes back is parsed inertly (DOMParser, its scripts removed) and
// swapped in, and the address bar follows with history.pushState. The service itself still takes
// credentials from the Authorization header only, on every request: no cookie, nothing a browser
// attaches on its own, so another site cannot make a request that carries the token (no CSRF), and
// the token never appears in a URL, a log or a Referer. What remains is what any script-held
// token has, cross-site scripting, and the page's CSP allows no script but this file.
'use strict'
;(() => {
  const TOKEN = 'clubs-token'
  const USER = 'clubs-user'
  const STATE = { clubs: true }
  const token = () => sessionStorage.getItem(TOKEN) || ''

  /** The URL `href` names when it is this service's API, the only place the token is sent; else null. */
  const ownApi = (href) => {
    const url = new URL(href, location.href)
    return url.origin === location.origin && url.pathname.startsWith('/api/') ? url : null
  }

  const withToken = (headers) => (token() ? { ...headers, Authorization: `Bearer ${token()}` } : headers)

  function problem(text) {
    const shown = document.querySelector('.token .problem')
    shown.textContent = text
    shown.hidden = !text
  }

  /**
   * Replaces the page with the browsable answer to a request sent with the token. `history`: push a
   * new entry (a link), replace the current one (a reload), or leave it (a write: the page shows its
   * answer, as DRF's does). False when no page came back.
   */
  async function show(href, init = {}, history = 'push') {
    const main = document.querySelector('main')
    main.setAttribute('aria-busy', 'true')
    let res
    try {
      res = await fetch(href, { ...init, headers: withToken({ ...init.headers, Accept: 'text/html' }) })
    } catch (error) {
      main.removeAttribute('aria-busy')
      problem(`The request failed: ${error.message}`)
      return false
    }
    if (!(res.headers.get('content-type') || '').startsWith('text/html')) {
      location.assign(href)
      return false
    }
    const next = new DOMParser().parseFromString(await res.text(), 'text/html')
    for (const script of next.querySelectorAll('script')) script.remove()
    document.title = next.title
    document.body.replaceWith(document.adoptNode(next.body))
    if (history === 'push') window.history.pushState(STATE, '', href)
    if (history === 'replace') window.history.replaceState(STATE, '', href)
    bind()
    if (res.status === 401 && token()) problem('Your token is not accepted (any more): forget it, or use another.')
    return true
  }

  /** After a page has changed under the reader: to its top, with focus on its heading for screen readers. */
  function arrived() {
    window.scrollTo(0, 0)
    document.querySelector('h1').focus()
  }

  const go = async (href) => {
    if (!token()) return location.assign(href)
    if (await show(href)) arrived()
  }

  /** A spreadsheet link fetched with the token, then saved under the name the service gives it. */
  async function download(url) {
    const res = await fetch(url, { headers: withToken({}) })
    if (!res.ok) return problem(`The download failed: HTTP ${res.status}.`)
    const name = /filename="?([^";]+)"?/.exec(res.headers.get('content-disposition') || '')
    const href = URL.createObjectURL(await res.blob())
    const save = document.createElement('a')
    save.href = href
    save.download = name ? name[1] : 'clubs'
    document.body.append(save)
    save.click()
    save.remove()
    setTimeout(() => URL.revokeObjectURL(href), 60_000)
  }

  function bindToken() {
    const form = document.querySelector('form.token-form')
    const who = document.querySelector('.token .who')
    form.hidden = Boolean(token())
    who.hidden = !token()
    who.querySelector('.username').textContent = sessionStorage.getItem(USER) || ''
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      const value = form.querySelector('input').value.trim()
      if (!value) return
      // Checked first, so a mistyped token says so here rather than as a 401 on every page.
      let res
      try {
        res = await fetch('/api/users/me/', {
          headers: { Accept: 'application/json', Authorization: `Bearer ${value}` },
        })
      } catch (error) {
        return problem(`The token could not be checked: ${error.message}`)
      }
      const answer = await res.json().catch(() => ({}))
      if (!res.ok) return problem(`This token is not accepted: ${answer.detail || `HTTP ${res.status}`}`)
      sessionStorage.setItem(TOKEN, value)
      sessionStorage.setItem(USER, answer.is_admin ? `${answer.username} (admin)` : answer.username)
      if (await show(location.href, {}, 'replace')) document.querySelector('.token .forget').focus()
    })
    who.querySelector('.forget').addEventListener('click', async () => {
      sessionStorage.removeItem(TOKEN)
      sessionStorage.removeItem(USER)
      if (await show(location.href, {}, 'replace')) document.querySelector('#token').focus()
    })
  }

  /** The search and filter form: only the fields filled in, the ticked codes of a field joined by commas. */
  function bindFilters() {
    const form = document.querySelector('form.filter-form')
    if (!form) return
    form.addEventListener('submit', (event) => {
      event.preventDefault()
      const query = new URLSearchParams()
      for (const [name, value] of new FormData(form)) {
        const text = String(value).trim()
        if (text) query.set(name, query.has(name) ? `${query.get(name)},${text}` : text)
      }
      const url = new URL(form.getAttribute('action'), location.href)
      url.search = query.toString().replace(/%2C/gi, ',')
      go(url.href)
    })
  }

  /** The request form: its answer becomes the page; a refused one keeps what was sent, to correct it. */
  function bindRequests() {
    const form = document.querySelector('form.api-form')
    if (!form) return
    const { method, body } = form.elements
    form.parentElement.querySelector('.sent-as').textContent = token()
      ? `Sent with the token of ${sessionStorage.getItem(USER) || 'the token entered above'}.`
      : 'Sent without a token: enter one at the top of the page to write.'
    const hasBody = () => method.value !== 'DELETE' && method.value !== 'GET'
    method.addEventListener('change', () => (body.closest('label').hidden = !hasBody()))
    body.closest('label').hidden = !hasBody()
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      const chosen = method.value
      if (chosen === 'GET') {
        if (await show(location.href, {}, 'replace')) arrived()
        return
      }
      const sent = body.value
      const init = hasBody()
        ? { method: chosen, body: sent, headers: { 'Content-Type': 'application/json' } }
        : { method: chosen }
      const target = new URL(document.querySelector('main').dataset.url, location.href)
      target.searchParams.set('format', 'api')
      if (!(await show(target.href, init, 'none'))) return
      const again = document.querySelector('form.api-form')
      if (again && Number(document.querySelector('pre.response').dataset.status) >= 400) {
        again.elements.method.value = chosen
        again.elements.body.value = sent
        again.elements.method.dispatchEvent(new Event('change'))
      }
      arrived()
    })
  }

  function bind() {
    problem('')
    bindToken()
    bindFilters()
    bindRequests()
  }

  // Links to this API carry the token; without one, the browser follows them as usual.
  document.addEventListener('click', (event) => {
    if (!token() || event.defaultPrevented || event.button !== 0) return
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    const anchor = event.target.closest('a[href]')
    if (!anchor || anchor.target || anchor.hasAttribute('download')) return
    const url = ownApi(anchor.href)
    if (!url) return
    event.preventDefault()
    const format = url.searchParams.get('format')
    if (format === 'csv' || format === 'xlsx') download(url)
    else go(url.href)
  })
  window.addEventListener('popstate', (event) => {
    if (event.state && event.state.clubs) show(location.href, {}, 'none')
  })
  // A page the browser loaded (or restored) itself came without the token: load it again with it.
  window.addEventListener('pageshow', (event) => {
    if (event.persisted && token()) show(location.href, {}, 'replace')
  })

  bind()
  if (token()) show(location.href, {}, 'replace')
})()
