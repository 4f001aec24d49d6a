// Progressive enhancement of the directory: the search form already works as a plain GET form;
// with this script the results update as one types, and the address bar follows.
;(() => {
  const form = document.querySelector('form[data-live-search]')
  if (!form || !window.fetch || !window.DOMParser) return
  const regionId = form.getAttribute('data-live-search')
  let timer = 0
  let latest = 0

  const refresh = async () => {
    const query = new URLSearchParams(new FormData(form))
    for (const [name, value] of [...query]) if (value === '') query.delete(name)
    const text = query.toString()
    const url = `${form.getAttribute('action') || '/'}${text ? `?${text}` : ''}`
    const asked = ++latest
    try {
      const res = await fetch(url, { headers: { Accept: 'text/html' }, credentials: 'same-origin' })
      if (!res.ok || asked !== latest) return
      const next = new DOMParser().parseFromString(await res.text(), 'text/html')
      const fresh = next.getElementById(regionId)
      const current = document.getElementById(regionId)
      if (!fresh || !current) return
      current.replaceWith(fresh)
      document.title = next.title
      history.replaceState(null, '', url)
    } catch {
      // Offline or the server went away: the form still submits the plain way.
    }
  }

  const soon = () => {
    clearTimeout(timer)
    timer = setTimeout(refresh, 250)
  }
  form.addEventListener('input', soon)
  form.addEventListener('change', soon)
})()

// The poster's Print button (docs/reference.md §23): hidden until this script can make it print.
;(() => {
  for (const button of document.querySelectorAll('button[data-print]')) {
    button.hidden = false
    button.addEventListener('click', () => window.print())
  }
})()
