import { describe, expect, it } from 'bun:test'
import { ADMIN_TOKEN, makeApp, readJson } from '../harness/app'
import { siteSession, textOf } from '../harness/site-session'
import { users } from '../harness/users'

// Re-registration on the campus site (docs/reference.md §23): the office's page opens a round, follows it
// and closes it after a confirmation naming what lapses, and makes a lapsed club active again;
// owners and officers read "Re-register by" on My clubs and the edit page and confirm beside the
// officer list; the club page says "Last confirmed <month year>". Checked through the API.

const CHESS = 'penn-chess-society'
const ROBOTS = 'robotics-collective'

/** The seed's directory, the admin and `officer` (an officer of the chess society) and `eve` (nothing) signed in. */
async function campus() {
  const app = await makeApp()
  const { officer: officerToken, eve: eveToken } = await users(app, 'officer', 'eve')
  expect((await app.admin.post(`/api/clubs/${CHESS}/members/`, { username: 'officer', role: 'officer' })).status).toBe(
    201,
  )
  const admin = await siteSession(app, ADMIN_TOKEN)
  const officer = await siteSession(app, officerToken)
  const eve = await siteSession(app, eveToken)
  const text = async (session: typeof admin, path: string) => textOf(await (await session.get(path)).text())
  return { ...app, admin, officer, eve, text }
}

describe('the office’s re-registration page', () => {
  it('is linked for admins only, and is a 404 to everyone else', async () => {
    const { admin, eve, req } = await campus()
    expect(await (await admin.get('/')).text()).toContain('<a href="/admin/rounds">Re-registration</a>')
    expect(await (await eve.get('/')).text()).not.toContain('/admin/rounds')
    for (const path of ['/admin/rounds', '/admin/rounds/close', '/admin/rounds/clubs.csv']) {
      expect([path, (await eve.get(path)).status]).toEqual([path, 404])
      expect([path, (await req(path, { headers: { accept: 'text/html' } })).status]).toEqual([path, 303])
    }
    expect((await eve.post('/admin/rounds', { deadline: '2026-12-15' })).status).toBe(404)
  })

  it('opens a round from its form, refusing a date that is no date or is past beside the field, nothing opened', async () => {
    const { admin, text, req } = await campus()
    const page = await (await admin.get('/admin/rounds')).text()
    expect(page).toContain('<label for="deadline">Deadline</label>')
    expect(page).toMatch(/<input type="date" name="deadline" required min="2026-11-22" value id="deadline"/)
    for (const deadline of ['', '2026-02-30', '2026-11-01']) {
      const refused = await admin.post('/admin/rounds', { deadline, message: 'Hello' })
      expect([deadline, refused.status]).toEqual([deadline, 400])
      const html = await refused.text()
      expect(html).toContain('aria-invalid="true"')
      expect(html).toContain('id="deadline-error"')
      expect(html).toContain('>Hello</textarea>')
      expect((await req('/api/registration-rounds/current/', { token: ADMIN_TOKEN })).status).toBe(404)
    }
    const opened = await admin.post('/admin/rounds', { deadline: '2026-12-15', message: 'Check your officers.' })
    expect(opened.status).toBe(303)
    expect(opened.headers.get('location')).toBe('/admin/rounds?done=opened')
    const shown = await text(admin, '/admin/rounds?done=opened')
    expect(shown).toContain('The round is open')
    expect(shown).toContain('The round open until 15 December 2026')
    expect(shown).toMatch(/Confirmed 0 of \d+ active clubs/)
    expect(shown).toContain('Check your officers.')
    // A second round while this one is open: the API's 409, as a page.
    expect((await admin.post('/admin/rounds', { deadline: '2026-12-20' })).status).toBe(409)
  })

  it('walks a round: the officer confirms beside the officer list, the office closes after a confirmation, and reactivates', async () => {
    const { admin, officer, eve, text, req } = await campus()
    // My clubs is kept for its person while nothing it shows changes: opening a round is such a change.
    expect(await text(officer, '/my-clubs')).not.toContain('Re-register by')
    expect(
      (await admin.post('/admin/rounds', { deadline: '2026-12-15', message: 'Check your officers.' })).status,
    ).toBe(303)

    // My clubs and the edit page say it; the people page has Confirm after the members.
    const mine = await text(officer, '/my-clubs')
    expect(mine).toContain('Re-register by 15 December 2026 : Check your officers.')
    expect(mine).toContain('Not confirmed yet')
    expect(await text(officer, `/clubs/${CHESS}/edit`)).toContain('Re-register by 15 December 2026')
    const people = await (await officer.get(`/clubs/${CHESS}/requests`)).text()
    const members = people.indexOf('<h2 id="members">')
    const confirmAt = people.indexOf(`action="/clubs/${CHESS}/registration"`)
    expect(members).toBeGreaterThan(0)
    expect(confirmAt).toBeGreaterThan(members)
    expect(textOf(people)).toContain('remove the officers who have left')

    // Eve runs no club: no Confirm of hers counts.
    expect((await eve.post(`/clubs/${CHESS}/registration`)).status).toBe(403)
    expect((await officer.post(`/clubs/${CHESS}/registration`, { csrf: 'wrong' })).status).toBe(403)
    expect((await readJson(await req(`/api/clubs/${CHESS}/`))).last_confirmed_on).toBeNull()
    expect(await text(eve, `/clubs/${CHESS}`)).not.toContain('Last confirmed')

    const confirmed = await officer.post(`/clubs/${CHESS}/registration`)
    expect(confirmed.status).toBe(303)
    expect(confirmed.headers.get('location')).toBe(`/clubs/${CHESS}/requests?reregistered=officer`)
    expect(await text(officer, `/clubs/${CHESS}/requests?reregistered=officer`)).toContain('Confirmed by officer')
    expect((await readJson(await req(`/api/clubs/${CHESS}/`))).last_confirmed_on).toBe('2026-11-22')
    expect(await text(eve, `/clubs/${CHESS}`)).toContain('Last confirmed November 2026')
    expect((await req(`/clubs/${CHESS}`, { headers: { accept: 'text/html' } })).status).toBe(200)
    expect(textOf(await (await req(`/clubs/${CHESS}`, { headers: { accept: 'text/html' } })).text())).toContain(
      'Last confirmed November 2026',
    )
    expect(await text(officer, '/my-clubs')).toContain('Confirmed by officer on 22 November 2026')

    // The office's page: progress, the clubs waiting, the CSV.
    const progress = await text(admin, '/admin/rounds')
    expect(progress).toMatch(/Confirmed 1 of (\d+) active clubs/)
    expect(progress).toContain('Robotics Collective')
    const csv = await admin.get('/admin/rounds/clubs.csv')
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(await csv.text()).toContain(`${CHESS},Penn Chess Society,2026-11-22T12:00:00.000Z,officer`)

    // Close asks first, naming what lapses; the button then closes it.
    const ask = await text(admin, '/admin/rounds/close')
    expect(ask).toContain('Close the round?')
    expect(ask).toContain('Robotics Collective')
    expect(ask).not.toContain('Penn Chess Society')
    const closed = await admin.post('/admin/rounds/close', { round: '1' })
    expect(closed.status).toBe(303)
    const after = await text(admin, '/admin/rounds?done=closed')
    expect(after).toContain('The round is closed')
    expect(after).toMatch(/\d+ clubs lapsed/)
    expect(after).toContain('Make active again Robotics Collective')
    expect((await req(`/api/clubs/${ROBOTS}/`)).status).toBe(404)
    expect((await req(`/api/clubs/${CHESS}/`)).status).toBe(200)
    expect(await text(officer, '/my-clubs')).not.toContain('Re-register by')
    expect((await admin.post('/admin/rounds/close', { round: '1' })).status).toBe(404)

    // A lapsed club's page tells an admin so, with the way back to it.
    const DANCE = 'ballroom-dance-team'
    const lapsedPage = await text(admin, `/clubs/${DANCE}`)
    expect(lapsedPage).toContain('Lapsed Not re-registered when a round closed')
    expect(lapsedPage).toContain('Make active again Ballroom Dance Team')
    expect(await text(admin, `/clubs/${CHESS}`)).not.toContain('Make active again')
    const fromPage = await admin.post(`/admin/rounds/reactivate/${DANCE}`, { back: 'club' })
    expect([fromPage.status, fromPage.headers.get('location')]).toEqual([303, `/clubs/${DANCE}`])
    expect((await req(`/api/clubs/${DANCE}/`)).status).toBe(200)
    expect(await text(admin, `/clubs/${DANCE}`)).not.toContain('Make active again')
    expect((await eve.post(`/admin/rounds/reactivate/${ROBOTS}`)).status).toBe(404)

    const back = await admin.post(`/admin/rounds/reactivate/${ROBOTS}`)
    expect(back.status).toBe(303)
    expect((await req(`/api/clubs/${ROBOTS}/`)).status).toBe(200)
    expect(await text(admin, '/admin/rounds?done=reactivated')).toContain('Robotics Collective : active again')
  })

  it('refuses a close confirmed for another round, and a confirm with no round open', async () => {
    const { admin, officer } = await campus()
    expect((await officer.post(`/clubs/${CHESS}/registration`)).status).toBe(409)
    expect((await admin.get('/admin/rounds/close')).status).toBe(404)
    expect((await admin.post('/admin/rounds', { deadline: '2026-12-15' })).status).toBe(303)
    expect((await admin.post('/admin/rounds/close', { round: '7' })).status).toBe(409)
    expect(await (await admin.get('/admin/rounds')).text()).toContain('Close the round')
  })
})
