// The browsable view's forms: send the request with fetch and show the answer in the page.
'use strict'
;(() => {
  const url = document.querySelector('main').dataset.url
  for (const form of document.querySelectorAll('form.api-form')) {
    const token = form.elements.token
    const method = form.elements.method
    const body = form.elements.body
    const result = form.parentElement.querySelector('.result')
    token.value = sessionStorage.getItem('clubs-token') || ''
    token.addEventListener('input', () => sessionStorage.setItem('clubs-token', token.value.trim()))
    const hasBody = () => method.value !== 'DELETE' && method.value !== 'GET'
    const showBody = () => (body.closest('label').hidden = !hasBody())
    method.addEventListener('change', showBody)
    showBody()

    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      const headers = { Accept: 'application/json' }
      if (token.value.trim()) headers.Authorization = `Bearer ${token.value.trim()}`
      const init = { method: method.value, headers }
      if (hasBody()) {
        headers['Content-Type'] = 'application/json'
        init.body = body.value
      }
      result.hidden = false
      try {
        const res = await fetch(url, init)
        const text = await res.text()
        let shown = text
        try {
          shown = JSON.stringify(JSON.parse(text), null, 2)
        } catch {}
        const lines = [`HTTP ${res.status} ${res.statusText}`]
        for (const name of ['location', 'allow', 'www-authenticate']) {
          if (res.headers.has(name)) lines.push(`${name}: ${res.headers.get(name)}`)
        }
        result.textContent = `${lines.join('\n')}\n\n${shown}`
        result.dataset.status = String(res.status)
        const location = res.headers.get('location')
        if (location) {
          const open = document.createElement('a')
          open.href = `${new URL(location).pathname}?format=api`
          open.textContent = 'Open the new club'
          result.append('\n\n', open)
          if (/"approved": false/.test(shown))
            result.append(
              ' — it awaits approval, so its page shows it to you after you send GET there with your token.',
            )
        }
      } catch (error) {
        result.textContent = `The request failed: ${error.message}`
        result.dataset.status = 'error'
      }
    })
  }
})()
