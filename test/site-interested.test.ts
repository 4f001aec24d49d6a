import { afterAll, describe, expect, it } from 'bun:test'
import type { Server } from 'bun'
import { parse } from 'csv-parse/sync'
import { ADMIN_TOKEN, makeApp, NOW, readJson } from '../harness/app'
import { FORM, ORIGIN, siteSession, textOf } from '../harness/site-session'
import { createLogger } from '../src/log'
import { serve } from '../src/serve'
import { users } from '../harness/users'

// "I'm interested" on a club's page (docs/reference.md §23): an anonymous reader leaves a name and an
// e-mail address with an explicit consent box; refused forms come back with each error beside its
// field and keep nothing; the form is checked as every form of the site is; ten a minute from one
// client address; the club's officers see the entries on its people page, delete them and
// download them as CSV; a year on, they are gone.

const CODE = 'penn-chess-society'
const PAGE = `/clubs/${CODE}`
const ADA = { name: 'Ada Lovelace', email: 'ada@campus.example.edu', consent: 'true' }
const YEAR_MS = 365 * 24 * 60 * 60 * 1000

/** A clock the test moves. */
function clock() {
  let now = NOW
  return { now: () => now, add: (ms: number) => void (now = new Date(now.getTime() + ms)) }
}

async function site(now: () => Date = () => NOW) {
  const app = await makeApp({ now })
  const page = async (path = PAGE) => {
    const res = await app.req(path, { headers: { accept: 'text/html' } })
    return { status: res.status, html: await res.text() }
  }
  const interest = (fields: Record<string, string>, headers: Record<string, string> = {}, code = CODE) =>
    app.req(`/clubs/${code}/interest`, {
      method: 'POST',
      headers: { 'content-type': FORM, origin: ORIGIN, ...headers },
      body: new URLSearchParams(fields),
    })
  const entries = async (code = CODE) =>
    readJson(await app.req(`/api/clubs/${code}/interested/`, { token: ADMIN_TOKEN }))
  return { ...app, page, interest, entries }
}

/** The `<input>` tag of the control named `name`. */
const input = (html: string, name: string) => new RegExp(`<input[^>]*name="${name}"[^>]*>`).exec(html)?.[0] ?? ''

describe('the I’m interested form on a club page', () => {
  it('asks an anonymous reader for a name, an e-mail address and consent that says what is kept, who sees it and how long', async () => {
    const { page } = await site()
    const { html } = await page()
    expect(html).toContain('<h2 id="interest">I’m interested</h2>')
    expect(html).toContain(`action="/clubs/${CODE}/interest#interest"`)
    expect(html).toContain('<label for="interest-name">Your name</label>')
    expect(html).toContain('<label for="interest-email">Your e-mail address</label>')
    expect(input(html, 'email')).toContain('type="email"')
    const consent = /<label for="interest-consent">([^<]+)<\/label>/.exec(html)![1]!
    expect(consent).toContain('keeps my name and e-mail address')
    expect(consent).toContain('Only its owners and officers')
    expect(consent).toContain('deleted after a year')
    expect(input(html, 'consent')).not.toContain('checked')
  })

  it('is not offered on a club that does not accept members, nor to its officer while the public cannot see it', async () => {
    const app = await site()
    await app.admin.patch(`/api/clubs/${CODE}/`, { accepting_members: false })
    expect((await app.page()).html).not.toContain('I’m interested')
    const { rita: token } = await users(app, 'rita')
    const rita = await siteSession(app, token)
    const pending = await readJson(
      await app.req('/api/clubs/', { method: 'POST', token, json: { name: 'Rita Rowers', accepting_members: true } }),
    )
    const own = await (await rita.get(`/clubs/${pending.code}`)).text()
    expect(own).toContain('<h1>Rita Rowers</h1>')
    expect(own).not.toContain('I’m interested')
  })

  it('keeps an entry and says thank you on the page it redirects to', async () => {
    const { interest, page, entries } = await site()
    const res = await interest(ADA)
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe(`${PAGE}?interest=thanks#interest`)
    const thanks = await page(`${PAGE}?interest=thanks`)
    expect(thanks.html).toMatch(/<p class="notice saved" role="status">Thank you!/)
    expect((await entries()).map((entry: any) => entry.email)).toEqual([ADA.email])
  })

  it('refuses a form without consent (400): the page again, the values kept, the error beside the box; nothing kept', async () => {
    const { interest, entries } = await site()
    const res = await interest({ name: ADA.name, email: ADA.email })
    expect(res.status).toBe(400)
    const html = await res.text()
    expect(html).toContain('<div class="error-summary" role="alert"')
    expect(html).toContain('<a href="#interest-consent">Consent: Tick the box')
    const box = input(html, 'consent')
    expect(box).toContain('aria-invalid="true"')
    expect(box).toContain('aria-describedby="interest-consent-error"')
    expect(html).toContain('<span id="interest-consent-error" class="error">Tick the box')
    expect(input(html, 'name')).toContain(`value="${ADA.name}"`)
    expect(input(html, 'email')).toContain(`value="${ADA.email}"`)
    expect(await entries()).toEqual([])
  })

  it('refuses a bad address beside its field, keeping what was typed; nothing kept', async () => {
    const { interest, entries } = await site()
    const res = await interest({ ...ADA, email: 'ada@campus' })
    expect(res.status).toBe(400)
    const html = await res.text()
    const email = input(html, 'email')
    expect(email).toContain('value="ada@campus"')
    expect(email).toContain('aria-describedby="interest-email-error"')
    expect(html).toContain('<span id="interest-email-error" class="error">Enter an e-mail address')
    expect(input(html, 'consent')).toContain('checked')
    expect(await entries()).toEqual([])
  })

  it('refuses an entry for a club that does not accept members (400), keeping nothing', async () => {
    const { interest, admin, entries } = await site()
    await admin.patch(`/api/clubs/${CODE}/`, { accepting_members: false })
    const res = await interest(ADA)
    expect(res.status).toBe(400)
    expect(textOf(await res.text())).toContain('This club is not taking new members')
    expect(await entries()).toEqual([])
  })

  it('refuses a form sent from another site, and a signed-in reader’s form without the session’s token (403)', async () => {
    const app = await site()
    const forged = await app.interest(ADA, { origin: 'https://evil.example' })
    expect(forged.status).toBe(403)
    const { sam: token } = await users(app, 'sam')
    const sam = await siteSession(app, token)
    expect((await sam.get(PAGE).then((res) => res.text())).match(/name="csrf"/g)!.length).toBeGreaterThan(1)
    const missing = await sam.post(`${PAGE}/interest`, { ...ADA, csrf: null })
    expect(missing.status).toBe(403)
    expect(textOf(await missing.text())).toContain('This form has expired or did not come from this site')
    const wrong = await sam.post(`${PAGE}/interest`, { ...ADA, csrf: 'not-the-token' })
    expect(wrong.status).toBe(403)
    expect(await app.entries()).toEqual([])
    expect((await sam.post(`${PAGE}/interest`, ADA)).status).toBe(303)
    expect(await app.entries()).toHaveLength(1)
  })
})

describe('ten entries a minute from one client address', () => {
  const servers: Server<undefined>[] = []
  afterAll(() => servers.forEach((server) => server.stop(true)))

  it('refuses the eleventh from one address behind the proxy with a 429 page, not another address’s', async () => {
    const time = clock()
    const { app, req } = await makeApp({ now: time.now })
    // Behind a trusted proxy, as a campus runs it: the client's address is the one it names.
    const server = serve(app, {
      port: 0,
      host: '127.0.0.1',
      log: createLogger('silent'),
      trustProxy: true,
      metrics: null,
    })
    servers.push(server)
    const origin = `http://127.0.0.1:${server.port}`
    const send = (n: number, from: string) =>
      fetch(`${origin}/clubs/${CODE}/interest`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': FORM, origin, 'x-forwarded-for': from },
        body: new URLSearchParams({ name: `Student ${n}`, email: `s${n}@example.edu`, consent: 'true' }),
      })
    for (let n = 1; n <= 10; n++) expect((await send(n, '203.0.113.7')).status).toBe(303)
    const eleventh = await send(11, '203.0.113.7')
    expect(eleventh.status).toBe(429)
    expect(Number(eleventh.headers.get('retry-after'))).toBeGreaterThan(0)
    const page = textOf(await eleventh.text())
    expect(page).toContain('Too many tries')
    expect(page).toContain('wait 6 seconds and try again')
    expect((await send(12, '198.51.100.9')).status).toBe(303)
    const kept = await readJson(await req(`/api/clubs/${CODE}/interested/`, { token: ADMIN_TOKEN }))
    expect(kept).toHaveLength(11)
    expect(kept.map((entry: any) => entry.name)).not.toContain('Student 11')
    // A minute later the address may send again.
    time.add(60_000)
    expect((await send(13, '203.0.113.7')).status).toBe(303)
  })
})

describe('the entries on the club’s people page', () => {
  async function withOfficer() {
    const time = clock()
    const app = await site(time.now)
    const { olive: token } = await users(app, 'olive')
    await app.admin.post(`/api/clubs/${CODE}/members/`, { username: 'olive', role: 'officer' })
    const olive = await siteSession(app, token)
    return { ...app, time, olive, oliveToken: token as string }
  }

  it('lists them for an officer with a Delete button each, which deletes one', async () => {
    const { interest, olive, entries, time } = await withOfficer()
    await interest(ADA)
    time.add(1000)
    await interest({ name: 'Grace Hopper', email: 'grace@example.org', consent: 'true' })
    const html = await (await olive.get(`${PAGE}/requests`)).text()
    expect(html).toContain('<h2 id="interested">Interested students</h2>')
    const text = textOf(html)
    expect(text.indexOf('Grace Hopper')).toBeLessThan(text.indexOf('Ada Lovelace'))
    expect(text).toContain('Delete Ada Lovelace')
    expect(html).toContain(`<a href="/clubs/${CODE}/interested.csv" download>Download CSV</a>`)

    const ada = (await entries()).find((entry: any) => entry.name === 'Ada Lovelace')
    const res = await olive.post(`${PAGE}/interested/${ada.id}/delete`)
    expect([res.status, res.headers.get('location')]).toEqual([303, `${PAGE}/requests?forgotten=1#interested`])
    expect((await entries()).map((entry: any) => entry.name)).toEqual(['Grace Hopper'])
    expect(textOf(await (await olive.get(`${PAGE}/requests?forgotten=1`)).text())).toContain('The entry was deleted')
    // Without the session's token, nothing is deleted.
    const grace = (await entries())[0]
    expect((await olive.post(`${PAGE}/interested/${grace.id}/delete`, { csrf: null })).status).toBe(403)
    expect(await entries()).toHaveLength(1)
  })

  it('downloads them as a CSV file, for officers only', async () => {
    const app = await withOfficer()
    await app.interest(ADA)
    const res = await app.olive.get(`${PAGE}/interested.csv`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${CODE}-interested.csv"`)
    const rows = parse(await res.text()) as string[][]
    expect(rows.map((row) => row.slice(1))).toEqual([
      ['name', 'email', 'created_at'],
      [ADA.name, ADA.email, NOW.toISOString()],
    ])
    const { mia: token } = await users(app, 'mia')
    await app.admin.post(`/api/clubs/${CODE}/members/`, { username: 'mia', role: 'member' })
    const mia = await siteSession(app, token)
    expect((await mia.get(`${PAGE}/interested.csv`)).status).toBe(403)
    const anonymous = await app.req(`${PAGE}/interested.csv`, { headers: { accept: 'text/html' } })
    expect(anonymous.status).toBe(303)
  })

  it('no longer shows an entry a year old', async () => {
    const app = await withOfficer()
    await app.interest(ADA)
    expect(textOf(await (await app.olive.get(`${PAGE}/requests`)).text())).toContain('Ada Lovelace')
    app.time.add(YEAR_MS + 60_000)
    // Signed in again: a session ends after 8 hours without use.
    const olive = await siteSession(app, app.oliveToken)
    const text = textOf(await (await olive.get(`${PAGE}/requests`)).text())
    expect(text).not.toContain('Ada Lovelace')
    expect(text).toContain('No one has left their name yet.')
  })
})
