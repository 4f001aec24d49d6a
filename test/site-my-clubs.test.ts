import { afterAll, describe, expect, it } from 'bun:test'
import { makeApp, ON_POSTGRES, readJson, testDatabase } from '../harness/app'
import { pageWeight, siteSession } from '../harness/site-session'
import { until } from '../harness/webhook-receiver'
import { users } from '../harness/users'

// A person's own page on the campus site (docs/reference.md §20, §22): My clubs has the clubs one runs
// (with the office's latest decision when it went against the club), one's memberships (Leave,
// but not for the last owner), favorites, subscriptions, join requests waiting (Withdraw) and the
// calendar's secret address (Replace); /clubs/new registers a club. Every button is a POST with
// the session's CSRF token, done by the domain services the API uses; the API checks each change.

const FORM = 'application/x-www-form-urlencoded'
const ORIGIN = { origin: 'http://localhost' }
const CHESS = 'penn-chess-society'
const ROBOTS = 'robotics-collective'

type App = Awaited<ReturnType<typeof makeApp>>

/** `username` (made now) signed in on the site with their service token: their pages, posts and API calls. */
async function signedIn(app: App, username: string) {
  const token = (await users(app, username))[username]
  const { cookie, csrf, get, post } = await siteSession(app, token)
  const view = async (path = '/my-clubs') => {
    const res = await get(path)
    return { status: res.status, html: await res.text(), cacheControl: res.headers.get('cache-control') }
  }
  const api = async (path: string, init: { method?: string } = {}) =>
    app.req(path, { ...init, token }).then((res) => (res.status === 204 ? null : readJson(res)))
  return { token, cookie, csrf, view, post, api }
}

/** The text of a page's <section> whose heading is `title` (tags dropped, spaces folded). */
function section(html: string, title: string): string {
  const at = html.indexOf(`>${title}</h2>`)
  if (at < 0) throw new Error(`no section "${title}"`)
  const end = html.indexOf('</section>', at)
  return html
    .slice(at + title.length + 6, end)
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
}

/** The actions of the POST forms on a page. */
const actions = (html: string) => [...html.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => m[1])

/** The sample directory with sam, a student who favorited, subscribed to and asked to join the chess society. */
async function student() {
  const app = await makeApp()
  const sam = await signedIn(app, 'sam')
  await app.admin.patch(`/api/clubs/${CHESS}/`, { accepting_members: true })
  for (const [path, fields] of [
    [`/clubs/${CHESS}/favorite`, { on: 'true' }],
    [`/clubs/${CHESS}/subscription`, { on: 'true' }],
    [`/clubs/${CHESS}/join`, { message: 'I play <b>blitz</b>' }],
  ] as const)
    expect((await sam.post(path, fields)).status).toBe(303)
  return { ...app, sam }
}

describe('My clubs for a student', () => {
  it('shows their favorites, subscriptions and waiting join request, with what subscribing does; no-store', async () => {
    const { sam } = await student()
    const page = await sam.view()
    expect([page.status, page.cacheControl]).toEqual([200, 'no-store'])
    expect(section(page.html, 'Clubs you run')).toContain('You do not run any club yet.')
    expect(section(page.html, 'Your memberships')).toContain('You are not a member of any club yet.')
    expect(section(page.html, 'Favorites')).toBe('Penn Chess Society Unfavorite Penn Chess Society')
    expect(section(page.html, 'Subscriptions')).toContain('officers see your username')
    expect(section(page.html, 'Subscriptions')).toContain('This site itself sends no e-mail.')
    expect(section(page.html, 'Subscriptions')).toContain('Penn Chess Society Unsubscribe Penn Chess Society')
    expect(section(page.html, 'Join requests waiting')).toBe(
      'Penn Chess Society , asked on 22 Nov 2026 I play &lt;b>blitz&lt;/b> Withdraw Penn Chess Society',
    )
    expect(section(page.html, 'Your calendar')).toContain('You have no calendar address yet.')
    expect(actions(page.html)).toEqual([
      '/sign-out',
      `/my-clubs/favorites/${CHESS}/remove`,
      `/my-clubs/subscriptions/${CHESS}/remove`,
      `/my-clubs/requests/${CHESS}/withdraw`,
      '/my-clubs/calendar',
    ])
  })

  it('unfavorites, unsubscribes and withdraws from My clubs, saying so, and the API agrees', async () => {
    const { sam } = await student()
    const steps = [
      [`/my-clubs/favorites/${CHESS}/remove`, 'unfavorited', 'Removed from your favorites.'],
      [`/my-clubs/subscriptions/${CHESS}/remove`, 'unsubscribed', 'Unsubscribed: the club’s officers no longer see'],
      [`/my-clubs/requests/${CHESS}/withdraw`, 'withdrawn', 'Your request to join was withdrawn.'],
    ] as const
    for (const [path, done, said] of steps) {
      const res = await sam.post(path)
      expect([res.status, res.headers.get('location'), res.headers.get('cache-control')]).toEqual([
        303,
        `/my-clubs?done=${done}`,
        'no-store',
      ])
      expect((await sam.view(res.headers.get('location')!)).html).toContain(said)
    }
    expect(await sam.api('/api/favorites/')).toEqual([])
    expect(await sam.api('/api/subscriptions/')).toEqual([])
    expect(await sam.api('/api/users/me/requests/')).toEqual([])
    const page = (await sam.view()).html
    expect(section(page, 'Favorites')).toContain('No favorites yet.')
    expect(section(page, 'Join requests waiting')).toBe('No request of yours is waiting.')
  })

  it('shows at once what changed elsewhere: a request accepted, a club renamed, an address replaced through the API', async () => {
    const { sam, admin } = await student()
    expect(section((await sam.view()).html, 'Your memberships')).toContain('You are not a member of any club yet.')
    expect((await admin.post(`/api/clubs/${CHESS}/requests/sam/accept/`, {})).status).toBe(201)
    let html = (await sam.view()).html
    expect(section(html, 'Your memberships')).toBe('Penn Chess Society : Member Leave Penn Chess Society')
    expect(section(html, 'Join requests waiting')).toBe('No request of yours is waiting.')
    expect((await admin.patch(`/api/clubs/${CHESS}/`, { name: 'Penn Chess Club' })).status).toBe(200)
    expect(section((await sam.view()).html, 'Favorites')).toBe('Penn Chess Club Unfavorite Penn Chess Club')
    const { url } = await sam.api('/api/users/me/calendar-url/', { method: 'POST' })
    html = (await sam.view()).html
    expect(html).toContain(`value="${url}"`)
  })

  it('says nothing for a ?done= it does not know, even one every object has', async () => {
    const { sam } = await student()
    for (const done of ['__proto__', 'constructor', 'toString', 'nonsense']) {
      const page = await sam.view(`/my-clubs?done=${done}`)
      expect([done, page.status, page.html.includes('role="status"')]).toEqual([done, 200, false])
    }
  })

  it('answers a button for what is no longer there with a 404 page, changing nothing', async () => {
    const { sam } = await student()
    await sam.api(`/api/favorites/${CHESS}/`, { method: 'DELETE' })
    const gone = await sam.post(`/my-clubs/favorites/${CHESS}/remove`)
    expect(gone.status).toBe(404)
    expect(await gone.text()).toContain('Page not found')
    const unknown = await sam.post('/my-clubs/requests/no-such-club/withdraw')
    expect(unknown.status).toBe(404)
    expect((await sam.api('/api/users/me/requests/')).length).toBe(1)
  })

  it('refuses every button with a stale or foreign CSRF token or from another site, and changes nothing', async () => {
    const app = await student()
    const other = await signedIn(app, 'tom')
    const path = `/my-clubs/favorites/${CHESS}/remove`
    const refused = [
      await app.sam.post(path, { csrf: 'stale' }),
      await app.sam.post(path, { csrf: other.csrf }),
      await app.sam.post(path, {}, { origin: 'https://evil.example' }),
      await app.sam.post('/my-clubs/calendar', { csrf: other.csrf }),
    ]
    for (const res of refused) {
      expect(res.status).toBe(403)
      expect(await res.text()).toMatch(/did not come from this site|from another site/)
    }
    expect((await app.sam.api('/api/favorites/')).length).toBe(1)
    expect(section((await app.sam.view()).html, 'Your calendar')).toContain('You have no calendar address yet.')
  })

  it('sends someone not signed in to sign in, from the page and from every button', async () => {
    const { req } = await makeApp()
    const page = await req('/my-clubs', { headers: { accept: 'text/html' } })
    expect([page.status, page.headers.get('location')]).toEqual([303, '/sign-in?next=%2Fmy-clubs'])
    for (const path of [
      `/my-clubs/favorites/${CHESS}/remove`,
      `/my-clubs/subscriptions/${CHESS}/remove`,
      `/my-clubs/requests/${CHESS}/withdraw`,
      `/my-clubs/memberships/${CHESS}/leave`,
      '/my-clubs/calendar',
    ]) {
      const res = await req(path, { method: 'POST', headers: { 'content-type': FORM, ...ORIGIN }, body: '' })
      expect([path, res.status, res.headers.get('location')]).toEqual([path, 303, '/sign-in?next=%2Fmy-clubs'])
    }
  })
})

describe('memberships on My clubs', () => {
  async function member() {
    const app = await makeApp()
    const olive = await signedIn(app, 'olive')
    await app.admin.post(`/api/clubs/${ROBOTS}/members/`, { username: 'olive', role: 'member', title: 'Builder' })
    const created = await app.req('/api/clubs/', {
      method: 'POST',
      token: olive.token,
      json: { name: 'Olive Knitters' },
    })
    expect(created.status).toBe(201)
    return { ...app, olive }
  }

  it('lists each with role and title; Leave for all but the last owner', async () => {
    const { olive } = await member()
    const html = (await olive.view()).html
    expect(section(html, 'Your memberships')).toBe(
      'Olive Knitters : Owner You are its last owner: name another owner before you leave. ' +
        'Robotics Collective : Member, Builder Leave Robotics Collective',
    )
    expect(actions(html)).toContain(`/my-clubs/memberships/${ROBOTS}/leave`)
    expect(actions(html)).not.toContain('/my-clubs/memberships/olive-knitters/leave')
  })

  it('leaves a club: the API no longer lists them, and the club counts one member fewer', async () => {
    const { olive, admin } = await member()
    const before = (await readJson(await admin.get(`/api/clubs/${ROBOTS}/`))).membership_count
    const res = await olive.post(`/my-clubs/memberships/${ROBOTS}/leave`)
    expect([res.status, res.headers.get('location')]).toEqual([303, '/my-clubs?done=left'])
    expect((await olive.view('/my-clubs?done=left')).html).toContain('You have left the club.')
    const members = await readJson(await admin.get(`/api/clubs/${ROBOTS}/members/`))
    expect(members.map((m: { username: string }) => m.username)).not.toContain('olive')
    expect((await readJson(await admin.get(`/api/clubs/${ROBOTS}/`))).membership_count).toBe(before - 1)
  })

  it('refuses the last owner’s Leave with the domain’s words, beside it and in a summary; they stay owner', async () => {
    const { olive, admin } = await member()
    const res = await olive.post('/my-clubs/memberships/olive-knitters/leave')
    expect([res.status, res.headers.get('cache-control')]).toEqual([400, 'no-store'])
    const html = await res.text()
    expect(html).toContain('<div class="error-summary" role="alert"')
    expect(html).toContain(
      '<a href="#leave-olive-knitters">Leave Olive Knitters: A club must keep at least one owner.</a>',
    )
    expect(html).toContain(
      '<span id="leave-olive-knitters-problem" class="error">A club must keep at least one owner.</span>',
    )
    const members = await readJson(await admin.get('/api/clubs/olive-knitters/members/'))
    expect(members).toEqual([{ username: 'olive', role: 'owner', title: '', public: false }])
  })
})

describe('the clubs one runs, on My clubs', () => {
  it('shows the office’s latest decision when it rejected or revoked the club: the action, the comment, who and when', async () => {
    const app = await makeApp()
    const olive = await signedIn(app, 'olive')
    await app.req('/api/clubs/', { method: 'POST', token: olive.token, json: { name: 'Olive Knitters' } })
    const run = async () => section((await olive.view()).html, 'Clubs you run')
    expect(await run()).not.toMatch(/Rejected|Revoked/)

    await app.admin.patch('/api/clubs/olive-knitters/', { approved: false, approved_comment: 'Say what you knit.' })
    expect(await run()).toContain('Rejected by admin on 2026-11-22 12:00 UTC : “Say what you knit.”')

    await app.admin.patch('/api/clubs/olive-knitters/', { approved: true, approved_comment: 'Fine now.' })
    expect(await run()).not.toMatch(/Rejected|Revoked|Fine now/)

    await app.admin.patch('/api/clubs/olive-knitters/', { approved: false, approved_comment: 'Gone quiet.' })
    expect(await run()).toContain('Revoked by admin on 2026-11-22 12:00 UTC : “Gone quiet.”')
    const history = await readJson(await app.admin.get('/api/clubs/olive-knitters/history/'))
    expect(history[0]).toMatchObject({ event: 'revoked', comment: 'Gone quiet.', by: 'admin' })
  })
})

describe('the calendar address on My clubs', () => {
  it('makes one, shows it as the API does, and replaces it: the old address is a 404 at once', async () => {
    const { sam, req } = await student()
    const made = await sam.post('/my-clubs/calendar')
    expect([made.status, made.headers.get('location')]).toEqual([303, '/my-clubs?done=calendar-made#calendar-heading'])
    const address = () => sam.view().then(({ html }) => /id="calendar-address"[^>]* value="([^"]+)"/.exec(html)?.[1])
    const first = await address()
    expect(first).toBe((await sam.api('/api/users/me/calendar-url/')).url)
    expect((await sam.view()).html).toContain('Replace<span class="visually-hidden"> the calendar address</span>')

    const replaced = await sam.post('/my-clubs/calendar')
    expect(replaced.headers.get('location')).toBe('/my-clubs?done=calendar-replaced#calendar-heading')
    expect((await sam.view('/my-clubs?done=calendar-replaced')).html).toContain('the old one no longer works')
    const second = await address()
    expect(second).not.toBe(first)
    expect(second).toBe((await sam.api('/api/users/me/calendar-url/')).url)
    const path = (url: string) => new URL(url).pathname
    expect((await req(path(first!))).status).toBe(404)
    expect((await req(path(second!))).status).toBe(200)
  })
})

describe('registering a club at /clubs/new', () => {
  /** The Register form's fields as a browser sends them, with `fields` filled in. */
  const registration = (csrf: string, fields: Record<string, string>) =>
    new URLSearchParams({
      csrf,
      application_required: '4',
      recruiting_cycle: '1',
      size: '1',
      enables_subscription: 'true',
      email_public: 'true',
      active: 'true',
      meeting_day: '',
      meeting_start: '',
      meeting_end: '',
      meeting_location: '',
      meeting_note: '',
      ...fields,
    })

  it('is linked from the header and My clubs, and is the Edit form with Register', async () => {
    const app = await makeApp()
    const sam = await signedIn(app, 'sam')
    expect((await sam.view('/')).html).toContain('<a href="/clubs/new">Register a club</a>')
    expect((await sam.view()).html).toContain('<a href="/clubs/new">Register a club</a>')
    const page = await sam.view('/clubs/new')
    expect([page.status, page.cacheControl]).toEqual([200, 'no-store'])
    expect(page.html).toContain('<h1>Register a club</h1>')
    expect(page.html).toContain('<form method="post" action="/clubs/new" class="edit" novalidate>')
    expect(page.html).toContain('<label for="name">Name</label>')
    expect(page.html).toContain('<label for="how_to_get_involved">How to get involved</label>')
    expect(page.html).toContain('<legend>Meetings</legend>')
    expect(page.html).toContain('<button type="submit">Register</button>')
    expect(page.html).toContain('aria-current="page">Register a club</a>')
  })

  it('registers the club as POST /api/clubs/ does: the caller its owner, awaiting review, on My clubs', async () => {
    const app = await makeApp()
    const sam = await signedIn(app, 'sam')
    const res = await sam.post(
      '/clubs/new',
      registration(sam.csrf, {
        name: 'Night Owls',
        subtitle: 'Astronomy after dark',
        description: 'Line one.\r\nLine two.',
        accepting_members: 'true',
        tags: '1',
        meeting_day: 'friday',
        meeting_start: '21:00',
        meeting_end: '23:00',
        meeting_location: 'The roof',
      }),
    )
    expect([res.status, res.headers.get('location')]).toEqual([303, '/my-clubs?done=registered'])
    const club = await sam.api('/api/clubs/night-owls/')
    expect(club).toMatchObject({
      name: 'Night Owls',
      subtitle: 'Astronomy after dark',
      description: 'Line one.\nLine two.',
      accepting_members: true,
      approved: false,
      active: true,
      enables_subscription: true,
      meetings: [{ day: 'friday', start: '21:00', end: '23:00', location: 'The roof', note: '' }],
    })
    expect(club.tags.map((tag: { id: number }) => tag.id)).toEqual([1])
    expect(await readJson(await app.admin.get('/api/clubs/night-owls/members/'))).toEqual([
      { username: 'sam', role: 'owner', title: '', public: false },
    ])
    expect((await readJson(await app.admin.get('/api/clubs/night-owls/history/')))[0]).toMatchObject({
      event: 'created',
      by: 'sam',
    })
    const mine = await sam.view('/my-clubs?done=registered')
    expect(mine.html).toContain('Your club is registered, with you as its owner. It awaits review')
    expect(section(mine.html, 'Clubs you run')).toContain('Awaiting review: not yet in the public directory')
    expect((await app.req('/api/clubs/night-owls/')).status).toBe(404)
  })

  it('refuses what the API refuses, with its words beside each field and in a summary, the values kept', async () => {
    const app = await makeApp()
    const sam = await signedIn(app, 'sam')
    const res = await sam.post(
      '/clubs/new',
      registration(sam.csrf, {
        name: 'Penn Chess Society',
        subtitle: 'Kept <as typed>',
        email: 'not an address',
        website: 'ftp://example.edu',
      }),
    )
    expect([res.status, res.headers.get('cache-control')]).toEqual([400, 'no-store'])
    const html = await res.text()
    const api = await readJson(
      await app.req('/api/clubs/', {
        method: 'POST',
        token: sam.token,
        json: { name: 'Penn Chess Society', email: 'not an address', website: 'ftp://example.edu' },
      }),
    )
    expect(Object.keys(api).sort()).toEqual(['email', 'name', 'website'])
    for (const [field, messages] of Object.entries(api) as [string, string[]][]) {
      const words = messages.join(' ').replace(/"/g, '&quot;')
      expect(html).toContain(`<span id="${field}-error" class="error">${words}</span>`)
      expect(html).toContain(`<a href="#${field}">`)
      expect(html).toMatch(
        new RegExp(`id="${field}" name="${field}" aria-invalid="true" aria-describedby="${field}-error`),
      )
    }
    expect(html).toContain('There are 3 problems; nothing was saved')
    expect(html).toContain('value="Kept &lt;as typed>"')
    expect(html).toContain('value="not an address"')
    expect((await sam.api('/api/clubs/?search=Kept')).length ?? 0).toBe(0)
  })

  it('gives a club named "New" another code than the page /clubs/new, and the API refuses the code "new"', async () => {
    const app = await makeApp()
    const sam = await signedIn(app, 'sam')
    expect((await sam.post('/clubs/new', registration(sam.csrf, { name: 'New' }))).status).toBe(303)
    expect((await sam.api('/api/clubs/new-2/')).name).toBe('New')
    const refused = await app.req('/api/clubs/', {
      method: 'POST',
      token: sam.token,
      json: { name: 'Brand', code: 'new' },
    })
    expect(refused.status).toBe(400)
    expect((await readJson(refused)).code).toEqual(['"new" names a page of the site, not a club: choose another code.'])
  })

  it('sends someone not signed in to sign in, and refuses a registration from another site', async () => {
    const app = await makeApp()
    const page = await app.req('/clubs/new', { headers: { accept: 'text/html' } })
    expect([page.status, page.headers.get('location')]).toEqual([303, '/sign-in?next=%2Fclubs%2Fnew'])
    const post = await app.req('/clubs/new', {
      method: 'POST',
      headers: { 'content-type': FORM, ...ORIGIN },
      body: 'name=Ghosts',
    })
    expect([post.status, post.headers.get('location')]).toEqual([303, '/sign-in?next=%2Fclubs%2Fnew'])
    const sam = await signedIn(app, 'sam')
    const forged = await sam.post('/clubs/new', registration('stale', { name: 'Ghosts' }))
    const foreign = await sam.post('/clubs/new', registration(sam.csrf, { name: 'Ghosts' }), {
      origin: 'https://evil.example',
    })
    expect([forged.status, foreign.status]).toEqual([403, 403])
    expect((await app.req('/api/clubs/ghosts/', { token: sam.token })).status).toBe(404)
  })
})

describe('the weight of My clubs and /clubs/new', () => {
  it('is at most 60 KB gzip with all they load, nothing from another host', async () => {
    const app = await makeApp()
    const student = await signedIn(app, 'weigher')
    expect((await student.post(`/clubs/${CHESS}/favorite`, { on: 'true' })).status).toBeLessThan(400)
    const load = (path: string) =>
      app.req(path, { headers: { accept: 'text/html', 'accept-encoding': 'gzip', cookie: student.cookie } })
    for (const path of ['/my-clubs', '/clubs/new']) {
      const { bytes, offHost } = await pageWeight(load, path)
      expect({ path, offHost, light: bytes <= 60_000 }).toEqual({ path, offHost: [], light: true })
    }
  })
})

describe('two instances on one database (CLUBS_TEST_STORE=postgres)', () => {
  const instances: App[] = []
  afterAll(async () => {
    for (const app of instances) await app.store.close()
  })

  it.if(ON_POSTGRES)(
    'My clubs on one instance shows at once what the person did on the other (the page kept there is not)',
    async () => {
      const databaseUrl = await testDatabase()
      const a = await makeApp({ databaseUrl })
      const b = await makeApp({ databaseUrl })
      instances.push(a, b)
      const sam = await signedIn(a, 'sam')
      const onB = async () => {
        const res = await b.req('/my-clubs', { headers: { accept: 'text/html', cookie: sam.cookie } })
        return res.status === 200 ? res.text() : ''
      }
      await until(async () => (await onB()).includes('No favorites yet.'), 'sam signed in on the other instance')
      expect((await a.req('/api/favorites/', { method: 'POST', token: sam.token, json: { club: CHESS } })).status).toBe(
        201,
      )
      await until(async () => (await onB()).includes(`action="/my-clubs/favorites/${CHESS}/remove"`), 'the favorite')
      const { url } = await sam.api('/api/users/me/calendar-url/', { method: 'POST' })
      await until(async () => (await onB()).includes(`value="${url}"`), 'the calendar address')
      expect(
        (await a.req(`/api/clubs/${ROBOTS}/requests/`, { method: 'POST', token: sam.token, json: {} })).status,
      ).toBe(201)
      await until(async () => (await onB()).includes(`action="/my-clubs/requests/${ROBOTS}/withdraw"`), 'the request')
    },
  )
})
