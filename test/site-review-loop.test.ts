import { describe, expect, it } from 'bun:test'
import { ADMIN_TOKEN, makeApp, NOW, readJson } from '../harness/app'
import { decoded, editFormOf } from '../harness/site-forms'
import { siteSession } from '../harness/site-session'
import { users } from '../harness/users'

// The review loop on the site (docs/reference.md §22): a club's edit page shows its owners and officers the
// latest decision on it (what, who, when, the comment) and, for a rejected club, a form
// "Submit for review again" that works without JavaScript and is checked as every form is.

const FORM = 'application/x-www-form-urlencoded'
const ORIGIN = 'http://localhost'
const CODE = 'olive-knitters'
const EDIT = `/clubs/${CODE}/edit`
const RESUBMIT = `/clubs/${CODE}/resubmit`
const LATER = new Date(NOW.getTime() + 30 * 60_000)
type Json = Record<string, any>

/** A page's text as read: blocks apart, entities decoded. */
const text = (html: string) =>
  decoded(html.replace(/<\/?(?:p|h[12]|blockquote|section|form|button|div)\b[^>]*>/g, ' ').replace(/<[^>]*>/g, ''))
    .replace(/\s+/g, ' ')
    .trim()
/** The "Latest decision" section of an edit page, or undefined. */
const noteOf = (html: string) => /<section class="edit-section last-decision"[^]*?<\/section>/.exec(html)?.[0]

/** The sample directory and "Olive Knitters", new, owned by olive; eve runs nothing. The clock moves to LATER after set-up. */
async function world() {
  let now = NOW
  const app = await makeApp({ now: () => now })
  const tokens: Record<string, string> = await users(app, 'olive', 'eve')
  const created = await app.req('/api/clubs/', {
    method: 'POST',
    token: tokens.olive,
    json: { name: 'Olive Knitters', subtitle: 'Wool' },
  })
  expect(created.status).toBe(201)
  const decide = async (body: Json) => expect((await app.admin.patch(`/api/clubs/${CODE}/`, body)).status).toBe(200)

  async function signIn(username: string) {
    const session = await siteSession(app, username === 'admin' ? ADMIN_TOKEN : tokens[username]!)
    const get = async (path: string) => {
      const res = await session.get(path)
      return { status: res.status, html: await res.text() }
    }
    const post = (path: string, fields: Record<string, string | null> = {}, origin = ORIGIN) =>
      session.post(path, fields, { origin })
    return { csrf: session.csrf, get, post }
  }
  const api = async (path: string) => readJson(await app.req(path, { token: ADMIN_TOKEN }))
  const club = () => api(`/api/clubs/${CODE}/`) as Promise<Json>
  const history = () => api(`/api/clubs/${CODE}/history/`) as Promise<Json[]>
  const tick = () => (now = LATER)
  return { app, decide, signIn, club, history, tick }
}

describe('the edit page’s latest decision', () => {
  it('shows nothing for a club never decided on', async () => {
    const w = await world()
    const { html, status } = await (await w.signIn('olive')).get(EDIT)
    expect(status).toBe(200)
    expect(noteOf(html)).toBeUndefined()
    expect(html).not.toContain(RESUBMIT)
  })

  it('shows a rejection — who, when, the comment (escaped) — and offers Submit for review again', async () => {
    const w = await world()
    await w.decide({ approved: false, approved_comment: 'Say what you <b>knit</b>.' })
    const { html } = await (await w.signIn('olive')).get(EDIT)
    const note = noteOf(html)!
    expect(text(note)).toBe(
      'Latest decision admin rejected this club on 2026-11-22 12:00 UTC, saying: Say what you <b>knit</b>. ' +
        'Sends the club to the activities office again as it stands. Saving a change to its name, subtitle, description or logo sends it too. ' +
        'Submit for review again',
    )
    expect(note).toContain('Say what you &lt;b>knit&lt;/b>.')
    expect(note).toContain(`<time datetime="${NOW.toISOString()}">`)
    const form = new RegExp(`<form method="post" action="${RESUBMIT}">[^]*?</form>`).exec(note)![0]
    expect(form).toMatch(/<input type="hidden" name="csrf" value="[^"]+"/)
    expect(form).toMatch(/<button type="submit"[^>]*>Submit for review again<\/button>/)
  })

  it('shows an approval or a revocation without the form', async () => {
    const w = await world()
    await w.decide({ approved: true, approved_comment: 'Welcome!' })
    const olive = await w.signIn('olive')
    expect(text(noteOf((await olive.get(EDIT)).html)!)).toBe(
      'Latest decision admin approved this club on 2026-11-22 12:00 UTC, saying: Welcome!',
    )
    await w.decide({ approved: false, approved_comment: '' })
    const { html } = await olive.get(EDIT)
    expect(text(noteOf(html)!)).toBe(
      'Latest decision admin revoked the approval of this club on 2026-11-22 12:00 UTC, with no comment. ' +
        'Only the activities office can bring it back to the public directory.',
    )
    expect(html).not.toContain(RESUBMIT)
    expect((await olive.post(RESUBMIT)).status).toBe(409)
  })
})

describe('Submit for review again', () => {
  it('puts the rejected club back in the queue as it stands, and the page says so', async () => {
    const w = await world()
    await w.decide({ approved: false, approved_comment: 'Needs a description.' })
    w.tick()
    const olive = await w.signIn('olive')
    const res = await olive.post(RESUBMIT)
    expect([res.status, res.headers.get('location')]).toEqual([303, `${EDIT}?saved=resubmitted`])
    const club = await w.club()
    expect([club.approved, club.approved_on, club.subtitle]).toEqual([false, null, 'Wool'])
    expect((await w.history())[0]).toEqual({
      event: 'resubmitted',
      at: LATER.toISOString(),
      by: 'olive',
      comment: '',
      fields: [],
    })
    const { html } = await olive.get(`${EDIT}?saved=resubmitted`)
    expect(text(html)).toContain(
      'The club is sent for review again: the activities office decides on it as it stands now.',
    )
    // The decision stays readable; the form is gone, the club being in the queue.
    expect(text(noteOf(html)!)).toContain('admin rejected this club')
    expect(html).not.toContain(RESUBMIT)
    const review = (await (await w.signIn('admin')).get('/review')).html
    expect(review).toContain(`id="review-${CODE}"`)
    // Sent twice: a 409 page, nothing more recorded.
    const again = await olive.post(RESUBMIT)
    expect(again.status).toBe(409)
    expect(text(await again.text())).toContain('“Olive Knitters” already awaits review.')
    expect((await w.history()).map((event) => event.event)).toEqual(['resubmitted', 'rejected', 'created'])
  })

  it('happens when a change to a reviewed field is saved in the edit form', async () => {
    const w = await world()
    await w.decide({ approved: false })
    const olive = await w.signIn('olive')
    const form = editFormOf((await olive.get(EDIT)).html)
    form.set('subtitle', 'Wool and yarn')
    const res = await olive.post(EDIT, Object.fromEntries(form))
    expect([res.status, res.headers.get('location')]).toEqual([303, `${EDIT}?saved=resubmitted`])
    expect((await w.club()).approved_on).toBeNull()
    expect((await w.history())[0]).toMatchObject({ event: 'resubmitted', by: 'olive', fields: ['subtitle'] })
  })

  it('refuses a POST without the CSRF token, from another site, by someone who does not run the club, or anonymous, doing nothing', async () => {
    const w = await world()
    await w.decide({ approved: false })
    const olive = await w.signIn('olive')
    expect((await olive.post(RESUBMIT, { csrf: 'wrong' })).status).toBe(403)
    expect((await olive.post(RESUBMIT, { csrf: null })).status).toBe(403)
    expect((await olive.post(RESUBMIT, { csrf: olive.csrf }, 'https://evil.example')).status).toBe(403)
    expect((await (await w.signIn('eve')).post(RESUBMIT)).status).toBe(404)
    const anonymous = await w.app.req(RESUBMIT, {
      method: 'POST',
      headers: { 'content-type': FORM, origin: ORIGIN },
      body: '',
    })
    expect([anonymous.status, anonymous.headers.get('location')]).toEqual([
      303,
      `/sign-in?next=${encodeURIComponent(EDIT)}`,
    ])
    expect((await w.club()).approved_on).not.toBeNull()
    expect((await w.history()).map((event) => event.event)).toEqual(['rejected', 'created'])
  })
})
