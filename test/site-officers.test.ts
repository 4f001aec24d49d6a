import { describe, expect, it } from 'bun:test'
import sharp from 'sharp'
import { ADMIN_TOKEN, makeApp, readJson } from '../harness/app'
import { ATTRS, decoded, editFormOf } from '../harness/site-forms'
import { pageWeight, siteSession, textOf } from '../harness/site-session'
import { users } from '../harness/users'

// What officers do on the campus site (docs/reference.md §20, §11, §12): My clubs, each club's Edit form
// and its join requests with Accept and Decline, through the same domain rules as the API. People
// sign in with their service token, as test/site-sessions.test.ts does; every check of a change is
// made through the API.

const ORIGIN = 'http://localhost'
const CHESS = 'penn-chess-society'
const EDIT = `/clubs/${CHESS}/edit`

/** The attributes of the element with this id in `html`. */
function elementById(html: string, id: string): Record<string, string> {
  const tag = new RegExp(`<[a-z]+\\b${ATTRS}\\sid="${id}"${ATTRS}>`).exec(html)?.[0]
  if (!tag) throw new Error(`no element #${id}`)
  return Object.fromEntries([...tag.matchAll(/\s([a-z-]+)(?:="([^"]*)")?/g)].map(([, k, v]) => [k!, decoded(v ?? '')]))
}

/** The sample directory, with olive an officer of the chess society, owner of a new club and a mere member of another; eve runs nothing. */
async function officers() {
  const app = await makeApp()
  const tokens: Record<string, string> = await users(app, 'olive', 'eve', 'sam', 'tom')
  expect((await app.admin.post(`/api/clubs/${CHESS}/members/`, { username: 'olive', role: 'officer' })).status).toBe(
    201,
  )
  expect(
    (await app.admin.post('/api/clubs/robotics-collective/members/', { username: 'olive', role: 'member' })).status,
  ).toBe(201)
  const created = await app.req('/api/clubs/', {
    method: 'POST',
    token: tokens.olive,
    json: { name: 'Olive Knitters' },
  })
  expect(created.status).toBe(201)

  /** Signs `username` in on the site (the admin with the admin token); answers their cookie and CSRF token. */
  async function signIn(username: string) {
    const session = await siteSession(app, username === 'admin' ? ADMIN_TOKEN : tokens[username]!)
    const { get, post } = session
    /** The edit form of `code` as shown, with `changes` made, sent with the CSRF token. */
    const saveEdit = async (code: string, changes: Record<string, string | null>) => {
      const form = editFormOf(await (await get(`/clubs/${code}/edit`)).text())
      for (const [name, value] of Object.entries(changes))
        if (value === null) form.delete(name)
        else form.set(name, value)
      return post(`/clubs/${code}/edit`, form)
    }
    return { ...session, saveEdit }
  }
  const api = async (path: string, token: string | null = ADMIN_TOKEN) => readJson(await app.req(path, { token }))
  return { ...app, tokens, signIn, api }
}

describe('My clubs', () => {
  it('lists exactly the clubs the user owns or is an officer of, each with its state, Edit and requests', async () => {
    const { signIn } = await officers()
    const olive = await signIn('olive')
    const res = await olive.get('/my-clubs')
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const html = await res.text()
    expect([...html.matchAll(/href="\/clubs\/([^"/]+)\/edit"/g)].map((m) => m[1])).toEqual(['olive-knitters', CHESS])
    expect([...html.matchAll(/href="\/clubs\/([^"/]+)\/requests"/g)].map((m) => m[1])).toEqual([
      'olive-knitters',
      CHESS,
    ])
    expect(html).toContain('Awaiting review: not yet in the public directory')
    expect(html).toContain('You are its owner.')
    expect(html).toContain('You are its officer.')
    expect(html).toMatch(/standing-approved">Approved</)
    // A club she is a mere member of is among her memberships (with Leave), not among the clubs she runs.
    expect(html).not.toContain('/clubs/robotics-collective/edit')
    expect(html).toContain('action="/my-clubs/memberships/robotics-collective/leave"')
  })

  it('greets a user who runs no club with an empty state', async () => {
    const { signIn } = await officers()
    const html = await (await (await signIn('eve')).get('/my-clubs')).text()
    expect(html).toContain('You do not run any club yet.')
    expect(html).not.toMatch(/\/edit"/)
  })

  it('is a link of every page for a signed-in person', async () => {
    const { signIn } = await officers()
    expect(await (await (await signIn('eve')).get('/')).text()).toContain('<a href="/my-clubs">My clubs</a>')
  })

  it('sends an anonymous visitor to sign in first, from My clubs, an Edit form and the requests', async () => {
    const { req } = await officers()
    for (const path of ['/my-clubs', EDIT, `/clubs/${CHESS}/requests`]) {
      const res = await req(path, { headers: { accept: 'text/html' } })
      expect([res.status, res.headers.get('location')]).toEqual([303, `/sign-in?next=${encodeURIComponent(path)}`])
    }
  })
})

describe('the Edit form', () => {
  it('saves what was changed, redirects with a notice, and the API shows the change', async () => {
    const { signIn, api } = await officers()
    const olive = await signIn('olive')
    const form = await (await olive.get(EDIT)).text()
    expect(form).toMatch(/<label for="how_to_get_involved">How to get involved<\/label>/)
    const res = await olive.saveEdit(CHESS, {
      how_to_get_involved: 'Come on Thursdays.\r\n\r\nBring a friend & a board.',
      accepting_members: null,
      size: '3',
      tags: '1',
    })
    expect([res.status, res.headers.get('location')]).toEqual([303, `${EDIT}?saved=1`])
    const club = await api(`/api/clubs/${CHESS}/`)
    expect(club).toMatchObject({
      how_to_get_involved: 'Come on Thursdays.\n\nBring a friend & a board.',
      accepting_members: false,
      size: 3,
      approved: true,
    })
    expect(club.tags.map((tag: { id: number }) => tag.id)).toEqual([1])
    const after = await (await olive.get(res.headers.get('location')!)).text()
    expect(after).toContain('Your changes are saved.')
    expect(after).not.toContain('awaits review')
    expect(after).toContain('Bring a friend &amp; a board.</textarea>')
  })

  it('shows a refused form again with 400: each error beside its field, the typed values kept, a summary, nothing saved', async () => {
    const { signIn, api } = await officers()
    const before = await api(`/api/clubs/${CHESS}/`)
    const res = await (
      await signIn('olive')
    ).saveEdit(CHESS, {
      name: '',
      email: 'nope',
      subtitle: 'Typed <and> kept',
      website: 'javascript:alert(1)',
    })
    expect(res.status).toBe(400)
    const html = await res.text()
    for (const [field, message] of [
      ['name', 'This field may not be blank.'],
      ['email', 'Enter a valid email address.'],
      ['website', 'Enter a valid URL (http or https).'],
    ]) {
      expect(elementById(html, field!)).toMatchObject({ 'aria-invalid': 'true' })
      expect(elementById(html, field!)['aria-describedby']!.split(' ')).toContain(`${field}-error`)
      expect(html).toContain(`<span id="${field}-error" class="error">${message}</span>`)
    }
    expect(elementById(html, 'email').value).toBe('nope')
    expect(elementById(html, 'subtitle').value).toBe('Typed <and> kept')
    expect(elementById(html, 'subtitle')['aria-invalid']).toBeUndefined()
    expect(html).toMatch(/<div class="error-summary" role="alert"[^>]*>.*There are 3 problems; nothing was saved/)
    expect(html).toContain('<a href="#email">Email: Enter a valid email address.</a>')
    expect(await api(`/api/clubs/${CHESS}/`)).toEqual(before)
  })

  it('says that a change to a reviewed field of an approved club awaits review, and the public keeps the approved version', async () => {
    const { signIn, api } = await officers()
    const approved = (await api(`/api/clubs/${CHESS}/`, null)).subtitle
    const olive = await signIn('olive')
    const res = await olive.saveEdit(CHESS, { subtitle: 'Blitz every night' })
    expect([res.status, res.headers.get('location')]).toEqual([303, `${EDIT}?saved=review`])
    const html = await (await olive.get(res.headers.get('location')!)).text()
    expect(html).toContain('awaits review')
    expect(html).toContain('the public still sees the approved version')
    expect(await api(`/api/clubs/${CHESS}/`, null)).toMatchObject({ subtitle: approved, approved: true })
    expect(await api(`/api/clubs/${CHESS}/`)).toMatchObject({ subtitle: 'Blitz every night', approved: false })
  })

  it('is refused to anyone who does not run the club: 403 for a club they see, 404 for one they do not (its people: 404 for both); an admin may', async () => {
    const { signIn, api } = await officers()
    const eve = await signIn('eve')
    expect((await eve.get(EDIT)).status).toBe(403)
    // The club's people are not shown to anyone who does not run it, not even as forbidden.
    expect((await eve.get(`/clubs/${CHESS}/requests`)).status).toBe(404)
    expect((await eve.get('/clubs/olive-knitters/edit')).status).toBe(404)
    const before = await api(`/api/clubs/${CHESS}/`)
    const res = await eve.post(EDIT, { csrf: eve.csrf, name: 'Taken over', how_to_get_involved: 'No.' })
    expect(res.status).toBe(403)
    expect(await res.text()).toContain('You do not have permission to perform this action.')
    expect(await api(`/api/clubs/${CHESS}/`)).toEqual(before)

    const admin = await signIn('admin')
    const saved = await admin.saveEdit('olive-knitters', { subtitle: 'Purl two' })
    expect([saved.status, saved.headers.get('location')]).toEqual([303, '/clubs/olive-knitters/edit?saved=1'])
    expect((await api('/api/clubs/olive-knitters/')).subtitle).toBe('Purl two')
  })
})

describe('a stale Edit form', () => {
  it('is a 409 page that saves nothing when the club changed since it was shown, and shows it as it stands', async () => {
    const { signIn, api, admin } = await officers()
    const olive = await signIn('olive')
    const form = editFormOf(await (await olive.get(EDIT)).text())
    expect(form.get('seen')).toMatch(/^[\w-]{22}$/)
    // Meanwhile the admin changes the club through the API.
    expect((await admin.patch(`/api/clubs/${CHESS}/`, { how_to_get_involved: 'Ask at the front desk.' })).status).toBe(
      200,
    )
    const sizeBefore = (await api(`/api/clubs/${CHESS}/`)).size
    form.set('size', sizeBefore === 3 ? '2' : '3')
    const stale = await olive.post(EDIT, form)
    expect(stale.status).toBe(409)
    const html = await stale.text()
    expect(textOf(html)).toContain('changed since you opened this form, so nothing was saved')
    expect(html).toContain('Ask at the front desk.')
    // Nothing of the stale form was saved, and the admin's change stays.
    const club = await api(`/api/clubs/${CHESS}/`)
    expect([club.size, club.how_to_get_involved]).toEqual([sizeBefore, 'Ask at the front desk.'])
    // The form as it stands now saves.
    const again = await olive.saveEdit(CHESS, { size: sizeBefore === 3 ? '2' : '3' })
    expect(again.status).toBe(303)
    expect((await api(`/api/clubs/${CHESS}/`)).size).toBe(sizeBefore === 3 ? 2 : 3)
  })
})

describe('join requests on the site', () => {
  async function withRequests() {
    const app = await officers()
    for (const username of ['sam', 'tom'])
      expect(
        (
          await app.req(`/api/clubs/${CHESS}/requests/`, {
            method: 'POST',
            token: app.tokens[username],
            json: { message: `${username} plays the Sicilian` },
          })
        ).status,
      ).toBe(201)
    return { ...app, olive: await app.signIn('olive') }
  }
  const requesters = async (api: (path: string) => Promise<any>) =>
    (await api(`/api/clubs/${CHESS}/requests/`)).map((r: { username: string }) => r.username)
  const roleOf = async (api: (path: string) => Promise<any>, username: string) =>
    (await api(`/api/clubs/${CHESS}/members/`)).find((m: { username: string }) => m.username === username)?.role

  it('lists each pending request (username, message, date) with Accept and Decline, and the members with their roles', async () => {
    const { olive } = await withRequests()
    const html = await (await olive.get(`/clubs/${CHESS}/requests`)).text()
    expect(html).toContain('<strong>sam</strong> asked on <time datetime="2026-11-22T12:00:00.000Z">22 Nov 2026</time>')
    expect(html).toContain('sam plays the Sicilian')
    expect(html).toContain(`action="/clubs/${CHESS}/requests/sam/accept"`)
    expect(html).toContain(`action="/clubs/${CHESS}/requests/tom/decline"`)
    expect(textOf(html)).toContain('olive (you) — officer')
    const myClubs = await (await olive.get('/my-clubs')).text()
    expect(myClubs).toContain('(2 pending requests)')
  })

  it('accepts a request (a member now) and declines another (gone), as the API then shows', async () => {
    const { olive, api } = await withRequests()
    const accepted = await olive.post(`/clubs/${CHESS}/requests/sam/accept`, { csrf: olive.csrf })
    expect([accepted.status, accepted.headers.get('location')]).toEqual([303, `/clubs/${CHESS}/requests?accepted=sam`])
    expect(await (await olive.get(accepted.headers.get('location')!)).text()).toContain('sam is now a member.')
    expect(await roleOf(api, 'sam')).toBe('member')

    const declined = await olive.post(`/clubs/${CHESS}/requests/tom/decline`, { csrf: olive.csrf })
    expect([declined.status, declined.headers.get('location')]).toEqual([303, `/clubs/${CHESS}/requests?declined=tom`])
    expect(await requesters(api)).toEqual([])
    expect(await roleOf(api, 'tom')).toBeUndefined()
    expect(textOf(await (await olive.get(`/clubs/${CHESS}/requests`)).text())).toContain('sam — member')
  })

  it('refuses a form without the CSRF token or from another Origin (403) and changes nothing', async () => {
    const { olive, api } = await withRequests()
    const club = await api(`/api/clubs/${CHESS}/`)
    const forged: { fields: Record<string, string | null>; headers: Record<string, string> }[] = [
      { fields: { csrf: 'not-the-token' }, headers: {} },
      { fields: { csrf: null }, headers: {} },
      { fields: { csrf: olive.csrf }, headers: { origin: 'https://evil.example' } },
    ]
    for (const { fields, headers } of forged) {
      for (const path of [`/clubs/${CHESS}/requests/sam/accept`, `/clubs/${CHESS}/requests/tom/decline`])
        expect((await olive.post(path, fields, headers)).status).toBe(403)
      expect((await olive.post(EDIT, { ...fields, subtitle: 'Forged' }, headers)).status).toBe(403)
    }
    expect(await requesters(api)).toEqual(['sam', 'tom'])
    expect(await api(`/api/clubs/${CHESS}/`)).toEqual(club)
  })
})

describe('subscribers on the site (docs/reference.md §21)', () => {
  it('lists the subscribers to the club’s officers and gives them the CSV file; not to others', async () => {
    const { signIn, req, tokens, admin } = await officers()
    await admin.patch(`/api/clubs/${CHESS}/`, { enables_subscription: true })
    const subscribed = await req('/api/subscriptions/', { method: 'POST', token: tokens.sam, json: { club: CHESS } })
    expect(subscribed.status).toBe(201)
    const olive = await signIn('olive')
    const page = await (await olive.get(`/clubs/${CHESS}/requests`)).text()
    expect(page).toContain('<h2 id="subscribers">Subscribers</h2>')
    expect(page).toContain('<td>sam</td>')
    expect(page).toContain(`href="/clubs/${CHESS}/subscribers.csv"`)
    const file = await olive.get(`/clubs/${CHESS}/subscribers.csv`)
    expect(file.status).toBe(200)
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${CHESS}-subscribers.csv"`)
    expect(file.headers.get('cache-control')).toBe('no-store')
    const rows = (await file.text()).trim().split('\r\n')
    expect(rows[0]).toBe('username,email,subscribed_at')
    expect(rows.slice(1).map((row) => row.split(',')[0])).toEqual(['sam'])
    const eve = await signIn('eve')
    expect((await eve.get(`/clubs/${CHESS}/subscribers.csv`)).status).toBe(403)
    const anonymous = await req(`/clubs/${CHESS}/subscribers.csv`)
    expect([anonymous.status, anonymous.headers.get('location')]).toEqual([
      303,
      `/sign-in?next=${encodeURIComponent(`/clubs/${CHESS}/subscribers.csv`)}`,
    ])
  })
})

describe('meetings in the edit form (docs/reference.md §21)', () => {
  it('adds a meeting in the empty row, refuses a bad one beside the meetings with the values kept, and removes one', async () => {
    const { signIn, api } = await officers()
    const olive = await signIn('olive')
    const added = await olive.saveEdit(CHESS, {
      meeting_day: 'tuesday',
      meeting_start: '18:30',
      meeting_end: '20:00',
      meeting_location: 'Houston Hall 202',
      meeting_note: '',
    })
    expect(added.status).toBe(303)
    expect((await api(`/api/clubs/${CHESS}/`)).meetings).toEqual([
      { day: 'tuesday', start: '18:30', end: '20:00', location: 'Houston Hall 202', note: '' },
    ])

    // The form now shows that meeting and an empty row; a second meeting that ends before it starts is refused.
    const form = editFormOf(await (await olive.get(EDIT)).text())
    expect(form.getAll('meeting_day')).toEqual(['tuesday', ''])
    const body = new URLSearchParams([...form].filter(([name]) => !name.startsWith('meeting_')))
    const rows = [
      { day: 'tuesday', start: '18:30', end: '20:00', location: 'Houston Hall 202', note: '' },
      { day: 'friday', start: '21:00', end: '20:00', location: 'The lounge', note: '' },
    ]
    for (const row of rows) for (const [part, value] of Object.entries(row)) body.append(`meeting_${part}`, value)
    const refused = await olive.post(EDIT, body)
    expect(refused.status).toBe(400)
    const html = await refused.text()
    expect(html).toContain('Meeting 2: end must be after start.')
    expect(elementById(html, 'meeting-2-day')).toBeDefined()
    expect(html).toMatch(/<option value="friday" selected/)
    expect(elementById(html, 'meeting-2-location').value).toBe('The lounge')
    expect((await api(`/api/clubs/${CHESS}/`)).meetings.length).toBe(1)

    const removed = await olive.saveEdit(CHESS, { meeting_day: '' })
    expect(removed.status).toBe(303)
    expect((await api(`/api/clubs/${CHESS}/`)).meetings).toEqual([])
  })
})

describe('the logo on the site (docs/reference.md §21)', () => {
  const png = (width: number, height: number, background = '#1f5fa8') =>
    sharp({ create: { width, height, channels: 3, background } })
      .png()
      .toBuffer()

  /** The logo form as a browser sends it: multipart, the CSRF token and the file. */
  const logoForm = (csrf: string, file: Uint8Array, type = 'image/png') => {
    const form = new FormData()
    form.append('csrf', csrf)
    form.append('image', new Blob([file as BlobPart], { type }), 'logo.png')
    return form
  }

  it('uploads a logo from the edit page, shows its thumbnail, and takes it away', async () => {
    const { signIn, api, req } = await officers()
    const olive = await signIn('olive')
    expect(await (await olive.get(EDIT)).text()).toContain('<label for="image">New logo</label>')
    const uploaded = await req(`/clubs/${CHESS}/logo`, {
      method: 'POST',
      headers: { origin: ORIGIN, cookie: olive.cookie },
      body: logoForm(olive.csrf, await png(300, 200)),
    })
    expect(uploaded.status).toBe(303)
    const url = (await api(`/api/clubs/${CHESS}/`)).image_url as string
    expect(url).toMatch(/^http:\/\/localhost\/api\/logos\/[0-9a-f]{64}\.webp$/)
    const thumbnail = await req(`${new URL(url).pathname}?size=256`)
    expect((await sharp(Buffer.from(await thumbnail.arrayBuffer())).metadata()).width).toBe(256)
    expect(await (await olive.get(EDIT)).text()).toContain(`src="${url}?size=256"`)
    // Reviewed: once the office approves it, the public page shows it.
    await req(`/api/clubs/${CHESS}/`, { method: 'PATCH', token: ADMIN_TOKEN, json: { approved: true } })
    const page = await (await req(`/clubs/${CHESS}`, { headers: { accept: 'text/html' } })).text()
    expect(page).toContain(`<img class="logo" src="${url}?size=256"`)

    const removed = await olive.post(`/clubs/${CHESS}/logo/remove`, { csrf: olive.csrf })
    expect(removed.status).toBe(303)
    expect((await api(`/api/clubs/${CHESS}/`)).image_url).toBeNull()
  })

  it('refuses a file that is not an image beside the logo field (400), and a form without the CSRF token (403)', async () => {
    const { signIn, api, req } = await officers()
    const olive = await signIn('olive')
    const before = (await api(`/api/clubs/${CHESS}/`)).image_url
    const refused = await req(`/clubs/${CHESS}/logo`, {
      method: 'POST',
      headers: { origin: ORIGIN, cookie: olive.cookie },
      body: logoForm(olive.csrf, new TextEncoder().encode('not an image'), 'image/png'),
    })
    expect(refused.status).toBe(400)
    const html = await refused.text()
    expect(elementById(html, 'image')['aria-invalid']).toBe('true')
    expect(html).toMatch(/<span id="image-error" class="error">[^<]+<\/span>/)
    const forged = await req(`/clubs/${CHESS}/logo`, {
      method: 'POST',
      headers: { origin: ORIGIN, cookie: olive.cookie },
      body: logoForm('wrong', await png(64, 64)),
    })
    expect(forged.status).toBe(403)
    expect((await api(`/api/clubs/${CHESS}/`)).image_url).toBe(before)
  })

  it('shows the office the approved and the pending logo side by side when an officer changes it', async () => {
    const { signIn, api, req } = await officers()
    const olive = await signIn('olive')
    const send = async (color: string) =>
      req(`/clubs/${CHESS}/logo`, {
        method: 'POST',
        headers: { origin: ORIGIN, cookie: olive.cookie },
        body: logoForm(olive.csrf, await png(128, 128, color)),
      })
    const admin = await signIn('admin')
    await send('#aa0000')
    const first = (await api(`/api/clubs/${CHESS}/`)).image_url as string
    // An officer's logo on an approved club awaits review, like any reviewed field.
    expect((await api(`/api/clubs/${CHESS}/`)).approved).toBe(false)
    await req(`/api/clubs/${CHESS}/`, { method: 'PATCH', token: ADMIN_TOKEN, json: { approved: true } })
    await send('#00aa00')
    const second = (await api(`/api/clubs/${CHESS}/`)).image_url as string
    expect(second).not.toBe(first)
    const review = await (await admin.get('/review')).text()
    expect(review).toContain(`<img class="logo" src="${new URL(first).pathname}?size=256" alt="The approved logo"`)
    expect(review).toContain(`<img class="logo" src="${new URL(second).pathname}?size=256" alt="The pending logo"`)
    // The public keeps the approved logo meanwhile.
    expect((await readJson(await req(`/api/clubs/${CHESS}/`))).image_url).toBe(first)
  })
})

describe('members on the site (docs/reference.md §22)', () => {
  const KNIT = 'olive-knitters'
  const PEOPLE = `/clubs/${KNIT}/requests`
  type Member = { username: string; role: string; title: string; public: boolean }
  const membersOf = async (api: (path: string) => Promise<any>, code = KNIT) =>
    ((await api(`/api/clubs/${code}/members/`)) as Member[]).map(({ username, role, title, public: shown }) => ({
      username,
      role,
      title,
      public: shown,
    }))

  it('lets an owner add a member by username with a role, title and public, and the club’s page lists the officer', async () => {
    const { signIn, api } = await officers()
    const olive = await signIn('olive')
    const page = await (await olive.get(PEOPLE)).text()
    expect(page).toContain('<label for="new-member-username">Username</label>')
    expect(page).toMatch(
      /<input type="checkbox" name="public" value="true" id="new-member-public"\/><label for="new-member-public">/,
    )
    const res = await olive.post(`/clubs/${KNIT}/members`, {
      csrf: olive.csrf,
      username: 'sam',
      role: 'officer',
      title: '  Treasurer ',
      public: 'true',
    })
    expect([res.status, res.headers.get('location')]).toEqual([303, `${PEOPLE}?added=sam`])
    expect(textOf(await (await olive.get(res.headers.get('location')!)).text())).toContain('sam is a member now.')
    expect(await membersOf(api)).toEqual([
      { username: 'olive', role: 'owner', title: '', public: false },
      { username: 'sam', role: 'officer', title: 'Treasurer', public: true },
    ])
    expect(await api(`/api/clubs/${KNIT}/officers/`)).toEqual([
      { username: 'sam', title: 'Treasurer', role: 'officer' },
    ])
    expect(textOf(await (await olive.get(`/clubs/${KNIT}`)).text())).toContain('Treasurer')
  })

  it('refuses an unknown username, a role that is none, a title too long: each beside its field and in a summary, the values kept, nothing added', async () => {
    const { signIn, api } = await officers()
    const olive = await signIn('olive')
    const before = await membersOf(api)
    const res = await olive.post(`/clubs/${KNIT}/members`, {
      csrf: olive.csrf,
      username: 'nobody',
      role: 'boss',
      title: 'T'.repeat(101),
      public: 'true',
    })
    expect(res.status).toBe(400)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const html = await res.text()
    for (const name of ['username', 'role', 'title']) {
      expect(elementById(html, `new-member-${name}`)['aria-invalid']).toBe('true')
      expect(elementById(html, `new-member-${name}`)['aria-describedby']!.split(' ')).toContain(
        `new-member-${name}-error`,
      )
    }
    expect(html).toContain(
      '<span id="new-member-username-error" class="error">No user is called &quot;nobody&quot;.</span>',
    )
    expect(html).toContain('There are 3 problems; nothing was changed')
    expect(html).toContain('<a href="#new-member-username">Username: No user is called &quot;nobody&quot;.</a>')
    expect(elementById(html, 'new-member-username').value).toBe('nobody')
    expect(elementById(html, 'new-member-title').value).toBe('T'.repeat(101))
    expect('checked' in elementById(html, 'new-member-public')).toBe(true)
    expect(await membersOf(api)).toEqual(before)
  })

  it('lets an owner change a member’s role, title and public, and remove them', async () => {
    const { signIn, api, admin } = await officers()
    await admin.post(`/api/clubs/${KNIT}/members/`, { username: 'sam', role: 'member' })
    const olive = await signIn('olive')
    const page = await (await olive.get(PEOPLE)).text()
    expect(page).toContain(`action="/clubs/${KNIT}/members/sam"`)
    expect(page).toContain('<label for="m-sam-role">Role<span class="visually-hidden"> of sam</span></label>')
    const changed = await olive.post(`/clubs/${KNIT}/members/sam`, {
      csrf: olive.csrf,
      role: 'officer',
      title: 'Secretary',
      public: 'true',
    })
    expect([changed.status, changed.headers.get('location')]).toEqual([303, `${PEOPLE}?changed=sam`])
    expect((await membersOf(api))[1]).toEqual({ username: 'sam', role: 'officer', title: 'Secretary', public: true })
    // An unticked box is sent as nothing: no longer public.
    await olive.post(`/clubs/${KNIT}/members/sam`, { csrf: olive.csrf, role: 'officer', title: 'Secretary' })
    expect((await membersOf(api))[1]!.public).toBe(false)
    const removed = await olive.post(`/clubs/${KNIT}/members/sam/remove`, { csrf: olive.csrf })
    expect([removed.status, removed.headers.get('location')]).toEqual([303, `${PEOPLE}?removed=sam`])
    expect((await membersOf(api)).map((m) => m.username)).toEqual(['olive'])
    expect((await olive.post(`/clubs/${KNIT}/members/sam/remove`, { csrf: olive.csrf })).status).toBe(404)
  })

  it('keeps the last owner: demoting or removing them is refused with the domain’s message on the page, nothing changed', async () => {
    const { signIn, api, req, tokens } = await officers()
    const olive = await signIn('olive')
    const before = await membersOf(api)
    const apiRefusal = await req(`/api/clubs/${KNIT}/members/olive/`, {
      method: 'PATCH',
      token: tokens.olive,
      json: { role: 'member' },
    })
    expect(apiRefusal.status).toBe(400)
    const messages = Object.values(await readJson(apiRefusal)).flat() as string[]
    for (const [path, fields] of [
      [`/clubs/${KNIT}/members/olive`, { csrf: olive.csrf, role: 'member', title: '' }],
      [`/clubs/${KNIT}/members/olive/remove`, { csrf: olive.csrf }],
    ] as const) {
      const res = await olive.post(path, fields)
      expect(res.status).toBe(400)
      const html = await res.text()
      expect(html).toContain('role="alert"')
      // The summary links to the refused member's form: its role, or the form's own error.
      expect(html).toMatch(/<a href="#m-olive-(role|form-error)">/)
      for (const message of messages) expect(textOf(html)).toContain(message)
    }
    expect(await membersOf(api)).toEqual(before)
  })

  it('shows an officer who does not own the club the members as text, lets them change their own title and public, and leave', async () => {
    const { signIn, api, admin } = await officers()
    await admin.post(`/api/clubs/${CHESS}/members/`, { username: 'sam', role: 'member' })
    const olive = await signIn('olive')
    const html = await (await olive.get(`/clubs/${CHESS}/requests`)).text()
    expect(html).not.toContain(`action="/clubs/${CHESS}/members/sam"`)
    expect(html).toContain(`action="/clubs/${CHESS}/members/olive"`)
    expect(html).not.toContain('id="m-olive-role"')
    expect(elementById(html, 'm-olive-title')).toBeDefined()
    expect(
      (await olive.post(`/clubs/${CHESS}/members/olive`, { csrf: olive.csrf, title: 'Captain', public: 'true' }))
        .status,
    ).toBe(303)
    expect((await membersOf(api, CHESS)).find((m) => m.username === 'olive')).toEqual({
      username: 'olive',
      role: 'officer',
      title: 'Captain',
      public: true,
    })
    // Not another member's: the domain's 403, and nothing changed.
    expect((await olive.post(`/clubs/${CHESS}/members/sam/remove`, { csrf: olive.csrf })).status).toBe(403)
    const left = await olive.post(`/clubs/${CHESS}/members/olive/remove`, { csrf: olive.csrf })
    expect([left.status, left.headers.get('location')]).toEqual([303, '/my-clubs'])
    const still = (await membersOf(api, CHESS)).map((m) => m.username)
    expect([still.includes('olive'), still.includes('sam')]).toEqual([false, true])
    expect((await olive.get(`/clubs/${CHESS}/requests`)).status).toBe(404)
  })

  it('lets any member leave; refuses the members forms to someone who does not run the club (404), without the CSRF token or from another site (403)', async () => {
    const { signIn, api, admin } = await officers()
    await admin.post(`/api/clubs/${KNIT}/members/`, { username: 'sam', role: 'member' })
    const eve = await signIn('eve')
    const olive = await signIn('olive')
    const before = await membersOf(api)
    expect((await eve.post(`/clubs/${KNIT}/members`, { csrf: eve.csrf, username: 'eve', role: 'owner' })).status).toBe(
      404,
    )
    expect((await eve.post(`/clubs/${CHESS}/members`, { csrf: eve.csrf, username: 'eve', role: 'owner' })).status).toBe(
      404,
    )
    for (const [path, fields] of [
      [`/clubs/${KNIT}/members`, { username: 'tom' }],
      [`/clubs/${KNIT}/members/sam`, { role: 'owner', title: 'Forged' }],
      [`/clubs/${KNIT}/members/sam/remove`, {}],
    ] as const) {
      expect((await olive.post(path, { ...fields, csrf: 'wrong' })).status).toBe(403)
      expect((await olive.post(path, { ...fields, csrf: null })).status).toBe(403)
      expect((await olive.post(path, { ...fields, csrf: olive.csrf }, { origin: 'https://evil.example' })).status).toBe(
        403,
      )
    }
    expect(await membersOf(api)).toEqual(before)
    const sam = await signIn('sam')
    const left = await sam.post(`/clubs/${KNIT}/members/sam/remove`, { csrf: sam.csrf })
    expect([left.status, left.headers.get('location')]).toEqual([303, '/my-clubs'])
    expect((await membersOf(api)).map((m) => m.username)).toEqual(['olive'])
  })

  it('weighs at most 60 KB gzipped with all it loads, nothing from another host', async () => {
    const { signIn, req, admin } = await officers()
    for (const username of ['sam', 'tom', 'eve']) await admin.post(`/api/clubs/${KNIT}/members/`, { username })
    const olive = await signIn('olive')
    const load = (path: string) =>
      req(path, { headers: { accept: 'text/html', 'accept-encoding': 'gzip', cookie: olive.cookie } })
    const { bytes, offHost } = await pageWeight(load, PEOPLE)
    expect({ offHost, light: bytes <= 60_000 }).toEqual({ offHost: [], light: true })
  })
})
