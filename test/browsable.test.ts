import { describe, expect, it } from 'bun:test'
import { ADMIN_TOKEN, makeApp, readJson } from '../harness/app'
import { pageNumbers } from '../src/edge/browsable/list-controls'

// The browsable view's rules, through HTTP (its behaviour in a browser: test/browser.test.ts).
// It is a renderer of the same answers: paged lists, labels of coded values, tag links, the club's
// name as its title, the API root's directory, and forms only where there is something to send.

const CHESS = 'penn-chess-society'
const html = async (res: Response) => {
  expect(res.headers.get('content-type')).toStartWith('text/html')
  return res.text()
}
const between = (text: string, open: string, close: string) => {
  const start = text.indexOf(open)
  return start < 0 ? '' : text.slice(start, text.indexOf(close, start) + close.length)
}

describe('page numbers', () => {
  const rows: { current: number; last: number; shown: (number | null)[] }[] = [
    { current: 1, last: 1, shown: [1] },
    { current: 1, last: 3, shown: [1, 2, 3] },
    { current: 1, last: 6, shown: [1, 2, 3, null, 6] },
    { current: 4, last: 6, shown: [1, 2, 3, 4, 5, 6] },
    { current: 6, last: 12, shown: [1, null, 4, 5, 6, 7, 8, null, 12] },
    { current: 12, last: 12, shown: [1, null, 10, 11, 12] },
  ]
  for (const { current, last, shown } of rows) {
    it(`links ${JSON.stringify(shown)} on page ${current} of ${last} (null: a gap)`, () => {
      expect(pageNumbers(current, last)).toEqual(shown)
    })
  }
})

describe('the browsable list', () => {
  it('shows page 1 of a list asked for whole, as JSON for ?page=1 has it, with links to the others', async () => {
    const { req } = await makeApp()
    const page = await readJson(await req('/api/clubs/?page=1'))
    const text = await html(await req('/api/clubs/', { headers: { accept: 'text/html' } }))
    expect(text).toContain(`&quot;count&quot;: ${page.count},`)
    for (const club of page.results) expect(text).toContain(`&quot;code&quot;: &quot;<a href="/api/clubs/${club.code}/`)
    expect(text.match(/&quot;code&quot;: /g)).toHaveLength(15)
    const pages = between(text, '<nav class="pages" aria-label="Pages">', '</nav>')
    expect(pages).toContain('<strong aria-current="page">1</strong>')
    expect(pages).toContain('<a rel="next" href="/api/clubs/?page=2&amp;format=api">Next »</a>')
    expect(pages).toContain(`Clubs 1–15 of ${page.count}`)
  })

  it('leaves the JSON answer whole, and its cache entry apart from the page', async () => {
    const { req } = await makeApp()
    await req('/api/clubs/', { headers: { accept: 'text/html' } })
    const whole = await readJson(await req('/api/clubs/'))
    expect(whole).toBeArray()
    expect(whole.length).toBeGreaterThan(15)
  })

  it('labels coded values where they stand, outside the JSON text', async () => {
    const { req } = await makeApp()
    const text = await html(await req(`/api/clubs/?code=${CHESS}&format=api`))
    const chess = await readJson(await req(`/api/clubs/${CHESS}/`))
    expect(chess.size).toBe(2)
    expect(text).toContain('&quot;size&quot;: 2,<span class="label" data-label="21-50"></span>')
  })

  it('offers a filter control for each declared list parameter but page, fields and format', async () => {
    const { req } = await makeApp()
    const doc = await readJson(await req('/swagger/json'))
    const declared = doc.paths['/api/clubs/'].get.parameters.map((p: { name: string }) => p.name)
    const form = between(await html(await req('/api/clubs/?format=api')), '<form class="filter-form"', '</form>')
    const offered = [...new Set([...form.matchAll(/ name="([^"]+)"/g)].map((m) => m[1]))]
    expect(offered).toEqual([
      ...declared.filter((name: string) => !['page', 'fields', 'format'].includes(name)),
      'format',
    ])
  })

  it('fills the filter form in from the request, and opens it', async () => {
    const { req } = await makeApp()
    const text = await html(await req('/api/clubs/?size=1,3&accepting_members=false&search=chess&format=api'))
    expect(text).toContain('<details class="filters" open>')
    expect(text).toContain('<input type="checkbox" name="size" value="1" checked>')
    expect(text).toContain('<input type="checkbox" name="size" value="2">')
    expect(text).toContain('<option value="false" selected>false</option>')
    expect(text).toContain('name="search" value="chess"')
  })
})

describe('a browsable club', () => {
  it("is titled with the club's name, and links each tag to its clubs", async () => {
    const { req } = await makeApp()
    const club = await readJson(await req(`/api/clubs/${CHESS}/`))
    const text = await html(await req(`/api/clubs/${CHESS}/?format=api`))
    expect(text).toContain('<title>Penn Chess Society – Club Directory</title>')
    expect(text).toContain('<h1 tabindex="-1">Penn Chess Society</h1>')
    for (const tag of club.tags)
      expect(text).toContain(
        `<a href="/api/clubs/?tags=${encodeURIComponent(tag.name).replace(/%20/g, '+')}&amp;format=api">`,
      )
  })

  it("shows the caller's own flags at a glance", async () => {
    const { req, admin } = await makeApp()
    expect((await admin.post('/api/favorites/', { club: CHESS })).status).toBe(201)
    const mine = await html(await req(`/api/clubs/${CHESS}/?format=api`, { token: ADMIN_TOKEN }))
    expect(between(mine, '<ul class="facts"', '</ul>')).toContain('One of your favorites')
    const anonymous = await html(await req(`/api/clubs/${CHESS}/?format=api`))
    expect(anonymous).not.toContain('One of your favorites')
  })
})

describe('the request form', () => {
  const rows: {
    label: string
    status: number
    form: boolean
    send: (app: Awaited<ReturnType<typeof makeApp>>) => Promise<Response>
  }[] = [
    { label: 'a club', status: 200, form: true, send: ({ req }) => req(`/api/clubs/${CHESS}/?format=api`) },
    {
      label: 'a 400 of a write',
      status: 400,
      form: true,
      send: ({ req }) =>
        req(`/api/clubs/${CHESS}/?format=api`, { method: 'PATCH', token: ADMIN_TOKEN, json: { size: 9 } }),
    },
    { label: 'a 401', status: 401, form: true, send: ({ req }) => req('/api/favorites/?format=api') },
    {
      label: 'a 404 of a club',
      status: 404,
      form: false,
      send: ({ req }) => req('/api/clubs/no-such-club/?format=api'),
    },
    { label: 'a 404 of a path', status: 404, form: false, send: ({ req }) => req('/api/nope/?format=api') },
    {
      label: 'a 405',
      status: 405,
      form: false,
      send: ({ req }) => req('/api/tags/?format=api', { method: 'PUT', token: ADMIN_TOKEN, json: {} }),
    },
    {
      label: 'a deleted club',
      status: 200,
      form: false,
      send: ({ req }) => req(`/api/clubs/${CHESS}/?format=api`, { method: 'DELETE', token: ADMIN_TOKEN }),
    },
  ]
  for (const { label, status, form, send } of rows) {
    it(`is ${form ? '' : 'not '}on ${label}`, async () => {
      const res = await send(await makeApp())
      expect(res.status).toBe(status)
      expect((await html(res)).includes('<form class="api-form"')).toBe(form)
    })
  }

  it("shows a DELETE's 204 on a page, which a 204 could not carry", async () => {
    const { req } = await makeApp()
    const res = await req(`/api/clubs/${CHESS}/?format=api`, { method: 'DELETE', token: ADMIN_TOKEN })
    expect(res.status).toBe(200)
    expect(await html(res)).toContain('<pre class="response" data-status="204"><b>HTTP 204 No Content</b>')
    expect((await req(`/api/clubs/${CHESS}/`)).status).toBe(404)
  })

  it("links a 201's Location to the browsable page of what was created", async () => {
    const { req } = await makeApp()
    const text = await html(
      await req('/api/clubs/?format=api', { method: 'POST', token: ADMIN_TOKEN, json: { name: 'Go Club' } }),
    )
    expect(text).toContain(
      '<b>Location:</b> <a href="/api/clubs/go-club/?format=api">http://localhost/api/clubs/go-club/</a>',
    )
    expect(text).toContain('<p class="created"><a href="/api/clubs/go-club/?format=api">Open what was created</a></p>')
  })

  it('never names the token field, so a page whose script did not run cannot put a token in a URL', async () => {
    const { req } = await makeApp()
    const text = await html(await req('/api/clubs/?format=api'))
    expect(between(text, '<form class="token-form"', '</form>')).not.toContain(' name=')
  })
})

describe('the browsable API root', () => {
  it('says where each of its links leads, as each endpoint describes itself', async () => {
    const { req } = await makeApp()
    const text = await html(await req('/api/', { headers: { accept: 'text/html' } }))
    const directory = between(text, '<ul class="directory">', '</ul>')
    expect([...directory.matchAll(/<li><a href="([^"]+)">([^<]+)<\/a>/g)].map((m) => [m[1], m[2]])).toEqual([
      ['/api/clubs/?format=api', 'Club List'],
      ['/api/tags/?format=api', 'Tag List'],
      ['/api/changes/?format=api', 'Change List'],
      ['/api/favorites/?format=api', 'Favorites'],
      ['/api/subscriptions/?format=api', 'Subscriptions'],
      ['/api/users/?format=api', 'Users'],
      ['/swagger', 'API docs'],
    ])
    expect(directory).toContain(
      'Your favorite clubs. POST {&quot;club&quot;: &quot;&lt;code&gt;&quot;} adds one. Needs a token.',
    )
  })
})
