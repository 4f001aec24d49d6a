import { describe, expect, it } from 'bun:test'
import { ADMIN_TOKEN, makeApp, NOW, readJson } from '../harness/app'
import { users } from '../harness/users'

// The office's part of the campus site (docs/reference.md §20, §11): Review lists the clubs awaiting
// review with their approved and pending values side by side; Approve, Reject and Revoke are POST
// forms with the session's CSRF token, doing what the API's PATCH {approved, approved_comment} does.

const FORM = 'application/x-www-form-urlencoded'
const ORIGIN = 'http://localhost'
const NOW_ISO = NOW.toISOString()
/** When Kite Club was made, and every decision: an hour after Lantern Society's change was submitted. */
const LATER = new Date(NOW.getTime() + 60 * 60 * 1000)
type Json = Record<string, any>

const sessionOf = (res: Response) => /^clubs_session=[^;]*/.exec(res.headers.getSetCookie()[0] ?? '')![0]
const text = (html: string) => html.replace(/<[^>]*>/g, '').trim()

/** The section of the Review page about club `code`, or undefined when it is not in the queue. */
const sectionOf = (html: string, code: string) =>
  new RegExp(`<section class="awaiting" id="review-${code}"[^]*?</section>`).exec(html)?.[0]

/** A comparison table's rows as text: [field, approved, pending]. */
const rowsOf = (section: string) =>
  [...section.matchAll(/<tr[^>]*><th scope="row">(.*?)<\/th><td[^>]*>([^]*?)<\/td><td[^>]*>([^]*?)<\/td><\/tr>/g)].map(
    (row) => row.slice(1).map(text),
  )

/**
 * The sample directory with an admin and a user "bob" signed in on the site, and two clubs of
 * "olive": Lantern Society, approved, whose subtitle change awaits review from NOW, and Kite Club,
 * new an hour later.
 */
async function office() {
  let now = NOW
  const app = await makeApp({ now: () => now })
  const signIn = async (token: string) =>
    sessionOf(
      await app.req('/sign-in', {
        method: 'POST',
        headers: { 'content-type': FORM, origin: ORIGIN },
        body: new URLSearchParams({ token }),
      }),
    )
  const { olive } = await users(app, 'olive')
  const create = async (json: Json) =>
    (await readJson(await app.req('/api/clubs/', { method: 'POST', token: olive, json }))).code
  const lantern = await create({
    name: 'Lantern Society',
    subtitle: 'Paper lanterns by the river',
    description: 'We fold.',
  })
  expect(
    (await app.admin.patch(`/api/clubs/${lantern}/`, { approved: true, approved_comment: 'Welcome!' })).status,
  ).toBe(200)
  const edit = await app.req(`/api/clubs/${lantern}/`, {
    method: 'PATCH',
    token: olive,
    json: { subtitle: 'Now with fireworks' },
  })
  expect((await readJson(edit)).approved).toBe(false)
  now = LATER
  const kite = await create({
    name: 'Kite Club',
    subtitle: 'Up high',
    description: '',
    image_url: 'https://img.example/kite.png',
  })
  const cookies = {
    admin: await signIn(ADMIN_TOKEN),
    bob: await signIn((await users(app, 'bob')).bob),
    olive: await signIn(olive),
  }

  const page = async (path: string, who: keyof typeof cookies | null = 'admin') => {
    const res = await app.req(path, { headers: { accept: 'text/html', ...(who ? { cookie: cookies[who] } : {}) } })
    return { status: res.status, location: res.headers.get('location'), html: await res.text() }
  }
  /** Posts the decision form on `path` (the Review page or a club's page) for `code`, as it stands there. */
  const decide = async (
    code: string,
    decision: string,
    comment = '',
    {
      from = '/review',
      who = 'admin',
      fields = {},
      origin = ORIGIN,
    }: { from?: string; who?: keyof typeof cookies; fields?: Record<string, string>; origin?: string } = {},
  ) => {
    const { html } = await page(from, who)
    const form = new RegExp(`<form method="post" action="/review/${code}"[^]*?</form>`).exec(html)?.[0] ?? html
    const value = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(form)?.[1] ?? ''
    const body = new URLSearchParams({ csrf: value('csrf'), seen: value('seen'), decision, comment, ...fields })
    return app.req(`/review/${code}`, {
      method: 'POST',
      headers: { 'content-type': FORM, origin, cookie: cookies[who] },
      body,
    })
  }
  /** Sends the confirmation form of a revocation as the page at `path` shows it, with `fields` changed. */
  const confirm = async (
    path: string,
    {
      who = 'admin',
      fields = {},
      origin = ORIGIN,
      meanwhile,
    }: {
      who?: keyof typeof cookies
      fields?: Record<string, string>
      origin?: string
      /** Happens after the page is shown, before its form is sent. */
      meanwhile?: () => Promise<unknown>
    } = {},
  ) => {
    const { html } = await page(path, who)
    await meanwhile?.()
    const form = /<form method="post" action="(\/review\/[^"]*\/revoke)"[^]*?<\/form>/.exec(html)!
    const value = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(form[0])?.[1] ?? ''
    const comment = /<textarea[^>]*name="comment"[^>]*>([^<]*)<\/textarea>/.exec(form[0])![1]!
    const body = new URLSearchParams({ csrf: value('csrf'), seen: value('seen'), comment, ...fields })
    return app.req(form[1]!, { method: 'POST', headers: { 'content-type': FORM, origin, cookie: cookies[who] }, body })
  }
  const api = async (path: string, token: string | null = null) => readJson(await app.req(path, { token }))
  const history = (code: string) => api(`/api/clubs/${code}/history/`, ADMIN_TOKEN) as Promise<Json[]>
  /** What every request the public makes sees of `code`, or null when it is not public. */
  const publicClub = async (code: string) => {
    const res = await app.req(`/api/clubs/${code}/`)
    return res.status === 200 ? ((await readJson(res)) as Json) : null
  }
  return { app, cookies, lantern, kite, page, decide, confirm, api, history, publicClub }
}

describe('Review: the clubs awaiting review', () => {
  it('lists exactly the clubs awaiting review, new clubs and changes, the longest waiting first', async () => {
    const o = await office()
    const { html, status } = await o.page('/review')
    expect(status).toBe(200)
    // Awaiting review: not approved, and no decision since (docs/reference.md §4); a rejected club is neither.
    const unapproved = (await o.api('/api/clubs/?approved=false', ADMIN_TOKEN)) as Json[]
    const details = await Promise.all(unapproved.map((club) => o.api(`/api/clubs/${club.code}/`, ADMIN_TOKEN)))
    const pending = details.filter((club) => club.approved_on === null).map((club) => club.code as string)
    expect(pending).toContain(o.lantern)
    expect(pending).toContain(o.kite)
    const listed = [...html.matchAll(/<section class="awaiting" id="review-([^"]+)"/g)].map((m) => m[1])
    expect(listed.toSorted()).toEqual(pending.toSorted())
    // The sample's pending clubs first (they have no history: their last change counts), then Olive's.
    expect(listed.slice(-2)).toEqual([o.lantern, o.kite])
    expect(text(html)).toContain(`${listed.length} clubs await review, the longest waiting first.`)
  })

  it('shows each reviewed field’s approved and pending value side by side, changed rows marked in words', async () => {
    const o = await office()
    const { html } = await o.page('/review')
    const lantern = sectionOf(html, o.lantern)!
    expect(lantern).toContain('<th scope="col">Field</th><th scope="col">Approved</th><th scope="col">Pending</th>')
    expect(rowsOf(lantern)).toEqual([
      ['Name', 'Lantern Society', 'Lantern Society'],
      ['Subtitle (changed)', 'Paper lanterns by the river', 'Now with fireworks'],
      ['Description', 'We fold.', 'We fold.'],
      ['Image URL', '(empty)', '(empty)'],
    ])
    expect(text(lantern)).toContain(
      'A change to an approved club: the public sees the approved values until you decide.',
    )
    expect(text(lantern)).toContain(`Submitted${NOW_ISO.slice(0, 10)} 12:00 UTCOwnerolive`)
    expect(lantern).toContain(`<a href="/clubs/${o.lantern}">`)
    expect(lantern).toMatch(/<label for="comment-[^"]+">Comment<\/label>/)
    expect(
      [...lantern.matchAll(/<button type="submit" name="decision" value="(\w+)"[^>]*>(\w+)</g)].map((m) => m[2]),
    ).toEqual(['Approve', 'Reject'])

    const kite = sectionOf(html, o.kite)!
    expect(text(kite)).toContain('A new club: it is not public yet, and has no approved values.')
    expect(rowsOf(kite)).toEqual([
      ['Name', '(none)', 'Kite Club'],
      ['Subtitle', '(none)', 'Up high'],
      ['Description', '(none)', '(empty)'],
      ['Image URL', '(none)', 'https://img.example/kite.png'],
    ])
  })

  it('escapes what clubs wrote', async () => {
    const o = await office()
    await o.app.req(`/api/clubs/${o.kite}/`, {
      method: 'PATCH',
      token: ADMIN_TOKEN,
      json: { description: '<script>alert(1)</script>' },
    })
    const { html } = await o.page('/review')
    expect(html).not.toContain('<script>alert(1)')
    expect(sectionOf(html, o.kite)).toContain('&lt;script>alert(1)&lt;/script>')
  })

  it('shows the Review link to admins only', async () => {
    const o = await office()
    const link = '<a href="/review"'
    expect((await o.page('/', 'admin')).html).toContain(link)
    expect((await o.page('/', 'bob')).html).not.toContain(link)
    expect((await o.page('/', null)).html).not.toContain(link)
  })
})

describe('deciding', () => {
  it('approves a change: its pending values become public, the notice names the club, the history has the comment', async () => {
    const o = await office()
    const res = await o.decide(o.lantern, 'approve', 'Fireworks are fine.')
    expect([res.status, res.headers.get('location')]).toEqual([303, `/review?decided=${o.lantern}`])
    const after = await o.page(res.headers.get('location')!)
    expect(text(after.html)).toContain('Approved “Lantern Society”: the public sees it as it stands now.')
    expect(sectionOf(after.html, o.lantern)).toBeUndefined()
    const shown = await o.publicClub(o.lantern)
    expect([shown?.subtitle, shown?.approved_comment, shown?.approved_by]).toEqual([
      'Now with fireworks',
      'Fireworks are fine.',
      'admin',
    ])
    expect((await o.history(o.lantern))[0]).toEqual({
      event: 'approved',
      at: LATER.toISOString(),
      by: 'admin',
      comment: 'Fireworks are fine.',
      fields: [],
    })
  })

  it('approves a new club: it joins the public directory', async () => {
    const o = await office()
    expect(await o.publicClub(o.kite)).toBeNull()
    expect((await o.decide(o.kite, 'approve')).status).toBe(303)
    expect((await o.publicClub(o.kite))?.name).toBe('Kite Club')
  })

  it('rejects a change: the approved version stays public and the club leaves the queue', async () => {
    const o = await office()
    const res = await o.decide(o.lantern, 'reject', 'No fireworks on campus.')
    expect(res.status).toBe(303)
    const after = await o.page(res.headers.get('location')!)
    expect(text(after.html)).toContain(
      'Rejected the change to “Lantern Society”: the public keeps seeing its approved version.',
    )
    expect(sectionOf(after.html, o.lantern)).toBeUndefined()
    expect((await o.publicClub(o.lantern))?.subtitle).toBe('Paper lanterns by the river')
    expect((await o.page('/?search=Lantern+Society', null)).html).toContain('Paper lanterns by the river')
    expect(text((await o.page('/my-clubs', 'olive')).html)).toContain(
      'Change rejected: the public still sees the approved version',
    )
    expect((await o.history(o.lantern))[0]).toMatchObject({
      event: 'rejected',
      by: 'admin',
      comment: 'No fireworks on campus.',
    })
  })

  it('revokes an approved club from its page: it leaves / and /api/clubs/ at once; approving it there brings it back', async () => {
    const o = await office()
    const from = '/clubs/penn-chess-society'
    const before = await o.page(from)
    expect(text(before.html)).toContain('Public: approved, with nothing awaiting review.')
    expect((await o.page(from, 'bob')).html).not.toContain('Activities office')
    expect((await o.page('/', null)).html).toContain('href="/clubs/penn-chess-society"')

    // Revoke asks first, on a page naming the club; nothing is done until its button is pressed.
    const asked = await o.decide('penn-chess-society', 'revoke', 'Inactive for two years.', { from })
    const question = asked.headers.get('location')!
    expect(asked.status).toBe(303)
    expect(question).toStartWith('/review/penn-chess-society/revoke?seen=')
    expect(await o.publicClub('penn-chess-society')).not.toBeNull()
    const shown = await o.page(question)
    expect(shown.status).toBe(200)
    expect(shown.html).toContain('<title>Revoke Penn Chess Society?')
    expect(text(/<h1>.*?<\/h1>/.exec(shown.html)![0])).toBe('Revoke Penn Chess Society?')
    expect(shown.html).toMatch(/<textarea[^>]*name="comment"[^>]*>Inactive for two years.<\/textarea>/)
    expect(shown.html).toMatch(/<button type="submit" class="danger">Revoke Penn Chess Society<\/button>/)
    expect(shown.html).toContain('<a href="/clubs/penn-chess-society">Cancel: keep it public</a>')
    expect((await o.history('penn-chess-society')).map((event) => event.event)).not.toContain('revoked')

    const res = await o.confirm(question)
    expect([res.status, res.headers.get('location')]).toEqual([303, '/review?decided=penn-chess-society'])
    expect(text((await o.page(res.headers.get('location')!)).html)).toContain(
      'Revoked “Penn Chess Society”: it has left the public directory.',
    )
    expect((await o.page('/', null)).html).not.toContain('href="/clubs/penn-chess-society"')
    expect((await o.api('/api/clubs/')).map((club: Json) => club.code)).not.toContain('penn-chess-society')
    expect(await o.publicClub('penn-chess-society')).toBeNull()
    expect((await o.history('penn-chess-society'))[0]).toMatchObject({
      event: 'revoked',
      by: 'admin',
      comment: 'Inactive for two years.',
    })
    expect(text((await o.page(from)).html)).toContain('Not public: its approval was revoked.')

    expect((await o.decide('penn-chess-society', 'approve', 'Back again.', { from })).status).toBe(303)
    expect((await o.publicClub('penn-chess-society'))?.approved_comment).toBe('Back again.')
    expect((await o.page('/', null)).html).toContain('href="/clubs/penn-chess-society"')
  })

  it('approves a rejected new club again from its page', async () => {
    const o = await office()
    expect((await o.decide(o.kite, 'reject', 'Needs a description.')).status).toBe(303)
    const from = `/clubs/${o.kite}`
    expect(text((await o.page(from)).html)).toContain('Not public: it was rejected.')
    expect((await o.decide(o.kite, 'approve', 'Fine now.', { from })).status).toBe(303)
    expect((await o.publicClub(o.kite))?.approved_comment).toBe('Fine now.')
  })

  it('refuses a decision on values that changed since the page was opened (409), doing nothing', async () => {
    const o = await office()
    const { html } = await o.page('/review')
    const seen = /name="seen" value="([^"]*)"/.exec(sectionOf(html, o.lantern)!)![1]!
    // Another admin approved it meanwhile: a Reject sent now would revoke it.
    await o.app.admin.patch(`/api/clubs/${o.lantern}/`, { approved: true })
    const res = await o.decide(o.lantern, 'reject', 'Too late.', { from: `/clubs/${o.lantern}`, fields: { seen } })
    expect(res.status).toBe(409)
    expect(text(await res.text())).toContain(
      'Nothing was done: “Lantern Society” has changed since you opened the page.',
    )
    expect((await o.publicClub(o.lantern))?.subtitle).toBe('Now with fireworks')
    expect((await o.history(o.lantern))[0]!.event).toBe('approved')
  })

  it('refuses a decision the club’s standing does not allow (409): no Revoke while a change awaits review', async () => {
    const o = await office()
    const res = await o.decide(o.lantern, 'revoke')
    expect(res.status).toBe(409)
    expect(text(await res.text())).toContain('“Lantern Society” cannot be revoked now: it is a change awaiting review.')
    expect((await o.publicClub(o.lantern))?.subtitle).toBe('Paper lanterns by the river')
  })
})

describe('Revoke’s confirmation', () => {
  it('is a page of its own at /review/{code}/revoke, which a link opens too; its comment goes with the decision', async () => {
    const o = await office()
    const question = '/review/penn-chess-society/revoke'
    const res = await o.confirm(question, { fields: { comment: 'Gone quiet.' } })
    expect([res.status, res.headers.get('location')]).toEqual([303, '/review?decided=penn-chess-society'])
    expect(await o.publicClub('penn-chess-society')).toBeNull()
    expect((await o.history('penn-chess-society'))[0]).toMatchObject({ event: 'revoked', comment: 'Gone quiet.' })
    // Revoked now: asking again is refused, as a Revoke would be.
    const again = await o.page(question)
    expect(again.status).toBe(409)
    expect(text(again.html)).toContain('“Penn Chess Society” cannot be revoked now: it is not public.')
  })

  it('is refused (409) for a club that may not be revoked, on the page and on a POST, doing nothing', async () => {
    const o = await office()
    const question = `/review/${o.lantern}/revoke`
    const shown = await o.page(question)
    expect(shown.status).toBe(409)
    expect(text(shown.html)).toContain('“Lantern Society” cannot be revoked now: it is a change awaiting review.')
    expect(shown.html).not.toContain(`action="${question}"`)
    const csrf = /name="csrf" value="([^"]*)"/.exec(shown.html)![1]!
    const posted = await o.app.req(question, {
      method: 'POST',
      headers: { 'content-type': FORM, origin: ORIGIN, cookie: o.cookies.admin },
      body: new URLSearchParams({ csrf, seen: 'any', comment: 'x' }),
    })
    expect(posted.status).toBe(409)
    expect((await o.history(o.lantern))[0]!.event).toBe('submitted')
  })

  it('refuses a confirmation sent after the club changed (409), doing nothing', async () => {
    const o = await office()
    const asked = await o.decide('penn-chess-society', 'revoke', '', { from: '/clubs/penn-chess-society' })
    const question = asked.headers.get('location')!
    const change = (subtitle: string) => o.app.admin.patch('/api/clubs/penn-chess-society/', { subtitle })
    const res = await o.confirm(question, { meanwhile: () => change('Changed by another admin') })
    expect(res.status).toBe(409)
    expect(text(await res.text())).toContain(
      'Nothing was done: “Penn Chess Society” has changed since you opened the page.',
    )
    expect(await o.publicClub('penn-chess-society')).not.toBeNull()
    // Opened again after the change, the page says so at once.
    const shown = await o.page(question)
    expect([shown.status, shown.html.includes('has changed since you opened the page.')]).toEqual([409, true])
  })

  it('is for admins, from this site, with the session’s token: anything else does nothing', async () => {
    const o = await office()
    const question = '/review/penn-chess-society/revoke'
    expect((await o.page(question, 'bob')).status).toBe(403)
    const anonymous = await o.page(question, null)
    expect([anonymous.status, anonymous.location]).toEqual([303, `/sign-in?next=${encodeURIComponent(question)}`])
    for (const sent of [
      o.confirm(question, { fields: { csrf: '' } }),
      o.confirm(question, { fields: { csrf: 'not-the-token' } }),
      o.confirm(question, { origin: 'https://evil.example' }),
    ])
      expect((await sent).status).toBe(403)
    const csrf = /name="csrf" value="([^"]*)"/.exec((await o.page('/', 'bob')).html)![1]!
    const bob = await o.app.req(question, {
      method: 'POST',
      headers: { 'content-type': FORM, origin: ORIGIN, cookie: o.cookies.bob },
      body: new URLSearchParams({ csrf, seen: 'any', comment: 'x' }),
    })
    expect(bob.status).toBe(403)
    expect(await o.publicClub('penn-chess-society')).not.toBeNull()
    expect((await o.history('penn-chess-society')).map((event) => event.event)).not.toContain('revoked')
  })
})

describe('who may review', () => {
  it('answers a signed-in non-admin 403 on the page and on a decision, which changes nothing', async () => {
    const o = await office()
    const { status, html } = await o.page('/review', 'bob')
    expect(status).toBe(403)
    expect(text(html)).toContain('Only the activities office reviews clubs.')
    const res = await o.decide(o.kite, 'approve', '', { from: '/', who: 'bob', fields: { seen: 'any' } })
    expect(res.status).toBe(403)
    expect(await o.publicClub(o.kite)).toBeNull()
  })

  it('sends an anonymous visitor to sign in, and does nothing for an anonymous POST', async () => {
    const o = await office()
    expect(await o.page('/review', null)).toMatchObject({ status: 303, location: '/sign-in?next=%2Freview' })
    const res = await o.app.req(`/review/${o.kite}`, {
      method: 'POST',
      headers: { 'content-type': FORM, origin: ORIGIN },
      body: new URLSearchParams({ decision: 'approve', seen: 'any' }),
    })
    expect([res.status, res.headers.get('location')]).toEqual([303, '/sign-in?next=%2Freview'])
    expect(await o.publicClub(o.kite)).toBeNull()
  })

  it('refuses a POST without the CSRF token, with a wrong one, or from another Origin (403), changing nothing', async () => {
    const o = await office()
    const refusals = [
      o.decide(o.kite, 'approve', 'forged', { fields: { csrf: '' } }),
      o.decide(o.kite, 'approve', 'forged', { fields: { csrf: 'not-the-token' } }),
      o.decide(o.kite, 'approve', 'forged', { origin: 'https://evil.example' }),
      o.decide(o.kite, 'approve', 'forged', { origin: 'null' }),
    ]
    for (const res of await Promise.all(refusals)) expect(res.status).toBe(403)
    expect(await o.publicClub(o.kite)).toBeNull()
    expect((await o.history(o.kite)).map((entry) => entry.event)).toEqual(['created'])
    // The same form, sent properly, works: the refusals were the token's and the Origin's.
    expect((await o.decide(o.kite, 'approve')).status).toBe(303)
  })
})
