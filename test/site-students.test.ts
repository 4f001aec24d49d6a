import { describe, expect, it } from 'bun:test'
import { makeApp, readJson } from '../harness/app'
import { users } from '../harness/users'

// A student on a club's page (docs/reference.md §20): signed in, the page offers Favorite / Unfavorite,
// Subscribe / Unsubscribe and Ask to join (a pending request shown as such, and withdrawn);
// each button is a POST form with the session's CSRF token, done through the same domain
// services as the API, which shows the change.

const FORM = 'application/x-www-form-urlencoded'
const ORIGIN = { origin: 'http://localhost' }
const CLUB = 'penn-chess-society'

/** The app and "sam", signed in on the site with his service token: his page views and his form posts. */
async function student() {
  const app = await makeApp()
  const { sam: token } = await users(app, 'sam')
  const signIn = await app.req('/sign-in', {
    method: 'POST',
    headers: { 'content-type': FORM, ...ORIGIN },
    body: new URLSearchParams({ token, next: '/' }),
  })
  const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!
  const view = async (path = `/clubs/${CLUB}`) => {
    const res = await app.req(path, { headers: { accept: 'text/html', cookie } })
    return { status: res.status, html: await res.text(), cacheControl: res.headers.get('cache-control') }
  }
  const csrf = /name="csrf" value="([^"]+)"/.exec((await view()).html)![1]!
  const post = (path: string, fields: Record<string, string> = {}, headers: Record<string, string> = ORIGIN) =>
    app.req(path, {
      method: 'POST',
      headers: { 'content-type': FORM, cookie, ...headers },
      body: new URLSearchParams({ csrf, ...fields }),
    })
  const api = async (path: string) => readJson(await app.req(path, { token }))
  return { ...app, token, cookie, view, post, api }
}

/** The labels of the buttons on a page. */
const buttons = (html: string) => [...html.matchAll(/<button type="submit">([^<]+)<\/button>/g)].map((m) => m[1])

describe('a club page for the people who run it', () => {
  it('links its owners, officers and admins to the Edit and requests pages, and nobody else', async () => {
    const { view, admin, req } = await student()
    const links = (html: string) => [...html.matchAll(/<a class="button[^"]*" href="([^"]+)">/g)].map((m) => m[1])
    expect(links((await view()).html)).toEqual([])
    await admin.post(`/api/clubs/${CLUB}/members/`, { username: 'sam', role: 'officer' })
    expect(links((await view()).html)).toEqual([`/clubs/${CLUB}/edit`, `/clubs/${CLUB}/requests`])
    await admin.post(`/api/clubs/${CLUB}/members/`, { username: 'sam', role: 'member' })
    expect(links((await view()).html)).toEqual([])
    const anonymous = await (await req(`/clubs/${CLUB}`, { headers: { accept: 'text/html' } })).text()
    expect(links(anonymous)).toEqual([])
  })
})

describe('a club page for a signed-in student', () => {
  it('favorites and unfavorites the club, and the API agrees', async () => {
    const { view, post, api } = await student()
    expect(buttons((await view()).html)).toContain('Favorite')

    const res = await post(`/clubs/${CLUB}/favorite`, { on: 'true' })
    expect([res.status, res.headers.get('location')]).toEqual([303, `/clubs/${CLUB}?done=favorited`])
    expect((await api('/api/favorites/')).map((f: any) => f.club.code)).toEqual([CLUB])
    const after = await view(`/clubs/${CLUB}?done=favorited`)
    expect(after.html).toContain('Added to your favorites.')
    expect(buttons(after.html)).toContain('Unfavorite')
    expect(after.cacheControl).toBe('no-store')

    await post(`/clubs/${CLUB}/favorite`, { on: 'false' })
    expect(await api('/api/favorites/')).toEqual([])
    expect(buttons((await view()).html)).toContain('Favorite')
  })

  it('subscribes and unsubscribes', async () => {
    const { view, post, api } = await student()
    expect(buttons((await view()).html)).toContain('Subscribe')
    expect((await post(`/clubs/${CLUB}/subscription`, { on: 'true' })).status).toBe(303)
    expect((await api('/api/subscriptions/')).map((s: any) => s.club.code)).toEqual([CLUB])
    expect(buttons((await view()).html)).toContain('Unsubscribe')
    await post(`/clubs/${CLUB}/subscription`, { on: 'false' })
    expect(await api('/api/subscriptions/')).toEqual([])
  })

  it('asks to join with a message, shows the request as pending, and withdraws it', async () => {
    const { view, post, api, admin } = await student()
    expect((await admin.patch(`/api/clubs/${CLUB}/`, { accepting_members: true })).status).toBe(200)
    const page = (await view()).html
    expect(page).toContain('<label for="join-message">')
    expect(buttons(page)).toContain('Ask to join')

    const asked = await post(`/clubs/${CLUB}/join`, { message: 'I play <b>blitz</b>' })
    expect(asked.headers.get('location')).toBe(`/clubs/${CLUB}?done=asked`)
    expect(await api('/api/users/me/requests/')).toEqual([
      { club: CLUB, message: 'I play <b>blitz</b>', created_at: expect.any(String) },
    ])
    const pending = (await view()).html
    expect(pending).toContain('Your request to join is waiting')
    expect(buttons(pending)).toEqual(expect.arrayContaining(['Withdraw request']))
    expect(buttons(pending)).not.toContain('Ask to join')

    expect((await post(`/clubs/${CLUB}/join/withdraw`)).headers.get('location')).toBe(`/clubs/${CLUB}?done=withdrawn`)
    expect(await api('/api/users/me/requests/')).toEqual([])
  })

  it('says when the club takes no new members, and refuses a request made anyway (400 page)', async () => {
    const { view, post, api, admin } = await student()
    await admin.patch(`/api/clubs/${CLUB}/`, { accepting_members: false })
    const page = (await view()).html
    expect(page).toContain('This club is not taking new members right now.')
    expect(buttons(page)).not.toContain('Ask to join')
    const refused = await post(`/clubs/${CLUB}/join`, {})
    expect(refused.status).toBe(400)
    expect(await refused.text()).toContain('not accepting')
    expect(await api('/api/users/me/requests/')).toEqual([])
  })

  it('refuses every button without the CSRF token or from another site, and changes nothing', async () => {
    const { post, api, req, cookie } = await student()
    const forged = await post(`/clubs/${CLUB}/favorite`, { on: 'true' }, { origin: 'https://evil.example' })
    const wrongToken = await post(`/clubs/${CLUB}/favorite`, { on: 'true', csrf: 'wrong' })
    const noToken = await req(`/clubs/${CLUB}/favorite`, {
      method: 'POST',
      headers: { 'content-type': FORM, ...ORIGIN, cookie },
      body: new URLSearchParams({ on: 'true' }),
    })
    expect([forged.status, wrongToken.status, noToken.status]).toEqual([403, 403, 403])
    expect(await api('/api/favorites/')).toEqual([])
  })

  it('offers a visitor who is not signed in a link to sign in, and sends their POST there', async () => {
    const { req } = await makeApp()
    const page = await (await req(`/clubs/${CLUB}`, { headers: { accept: 'text/html' } })).text()
    expect(page).toContain(`href="/sign-in?next=%2Fclubs%2F${CLUB}"`)
    // Its one button is the I'm interested form's, which needs no account (docs/reference.md §23).
    expect(buttons(page)).toEqual(['I’m interested'])
    const res = await req(`/clubs/${CLUB}/favorite`, {
      method: 'POST',
      headers: { 'content-type': FORM, ...ORIGIN },
      body: new URLSearchParams({ on: 'true' }),
    })
    expect([res.status, res.headers.get('location')]).toEqual([303, `/sign-in?next=%2Fclubs%2F${CLUB}`])
  })
})

describe('a club page’s meetings and contacts (docs/reference.md §21)', () => {
  it('lists the meetings with an Add to calendar link, and the public officers with their titles', async () => {
    const { req, admin } = await makeApp()
    const html = async () => (await req(`/clubs/${CLUB}`, { headers: { accept: 'text/html' } })).text()
    // The sample's chess club meets; without meetings, its page offers no calendar.
    await admin.patch(`/api/clubs/${CLUB}/`, { meetings: [] })
    expect(await html()).not.toContain('Add to calendar')
    await admin.patch(`/api/clubs/${CLUB}/`, {
      meetings: [{ day: 'tuesday', start: '18:30', end: '20:00', location: 'Houston Hall <202>' }],
    })
    await users({ admin }, 'tara', 'quiet')
    await admin.post(`/api/clubs/${CLUB}/members/`, {
      username: 'tara',
      role: 'officer',
      title: 'Treasurer',
      public: true,
    })
    await admin.post(`/api/clubs/${CLUB}/members/`, { username: 'quiet', role: 'officer', title: 'Secretary' })
    const page = await html()
    expect(page).toContain('Every Tuesday, 18:30–20:00')
    expect(page).toContain('Houston Hall &lt;202>')
    expect(page).toContain(`<a href="/api/clubs/${CLUB}/calendar.ics" download="${CLUB}.ics">Add to calendar</a>`)
    expect(page).toContain('<strong>tara</strong>, Treasurer')
    expect(page).not.toContain('quiet')
    const calendar = await req(`/api/clubs/${CLUB}/calendar.ics`)
    expect([calendar.status, calendar.headers.get('content-type')]).toEqual([200, 'text/calendar; charset=utf-8'])
  })
})
