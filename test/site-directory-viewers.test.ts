import { describe, expect, it } from 'bun:test'
import { ADMIN_TOKEN, makeApp, readJson } from '../harness/app'
import { siteSession, type SiteSession } from '../harness/site-session'
import { users } from '../harness/users'

// The directory at / for signed-in people (docs/reference.md §20): the same clubs, tags and paging as
// anyone gets (a person's own pending clubs are under My clubs), in the person's own frame (the
// navigation their role opens, Sign out with their session's CSRF token). Its content is made
// once per data version and URL and framed per session, so each change must show on the very
// next request: these tests fail if a kept copy outlives what it was made from.

type App = Awaited<ReturnType<typeof makeApp>>

const PATHS = ['/', '/?page=2', '/?search=chess', '/?tags=Games', '/?search=puzzlers']
const PENDING = { name: 'Pending Puzzlers', code: 'pending-puzzlers', description: 'Puzzles.', email: 'p@example.edu' }

const MASTHEAD = /<header class="masthead">[\s\S]*?<\/header>/
const masthead = (html: string) => MASTHEAD.exec(html)![0]
/** The page without its masthead: what every viewer of a URL must get alike. */
const unframed = (html: string) => html.replace(MASTHEAD, '')
/** The names of the navigation's links, and who Sign out names. */
const navigation = (html: string) => [...masthead(html).matchAll(/<li><a href="([^"]+)"/g)].map((m) => m[1])
const cardNames = (html: string) => [...html.matchAll(/<h3><a href="\/clubs\/([^"]+)">/g)].map((m) => m[1])

async function anonymous(app: App, path: string) {
  const res = await app.req(path, { headers: { accept: 'text/html' } })
  expect(res.status).toBe(200)
  return res.text()
}

async function signedIn(session: SiteSession, path: string) {
  const res = await session.get(path)
  expect([res.status, res.headers.get('cache-control')]).toEqual([200, 'no-store'])
  return res.text()
}

/** The app with a student, the officer of a club awaiting approval and the admin, each signed in on the site. */
async function viewers() {
  const app = await makeApp()
  const { stu: studentToken, offi: officerToken } = await users(app, 'stu', 'offi')
  const made = await app.req('/api/clubs/', { method: 'POST', token: officerToken, json: PENDING })
  expect([made.status, (await readJson(made)).approved]).toEqual([201, false])
  return {
    app,
    student: await siteSession(app, studentToken),
    officer: await siteSession(app, officerToken),
    admin: await siteSession(app, ADMIN_TOKEN),
  }
}

describe('the directory for a signed-in person', () => {
  it('is the page anyone gets, framed with their own navigation and Sign out, at every URL and on every request', async () => {
    const { app, student, officer, admin } = await viewers()
    const people = [
      { session: student, name: 'stu', nav: ['/', '/my-clubs', '/clubs/new'] },
      { session: officer, name: 'offi', nav: ['/', '/my-clubs', '/clubs/new'] },
      {
        session: admin,
        name: 'admin',
        nav: ['/', '/my-clubs', '/clubs/new', '/review', '/admin/users', '/admin/rounds'],
      },
    ]
    for (const path of PATHS) {
      const everyone = await anonymous(app, path)
      // Twice each, interleaved: a kept copy is one person's, never another's.
      for (let round = 0; round < 2; round++)
        for (const { session, name, nav } of people) {
          const html = await signedIn(session, path)
          expect(unframed(html)).toBe(unframed(everyone))
          expect(navigation(html)).toEqual(nav)
          expect(masthead(html)).toContain(`<input type="hidden" name="csrf" value="${session.csrf}"/>`)
          expect(masthead(html)).toContain(`Sign out <span class="who">(${name})</span>`)
          expect(masthead(html)).toContain('<a href="/" aria-current="page">Directory</a>')
          // The frame is the one every other page of theirs has (only the current page differs).
          const elsewhere = await (await session.get('/clubs/penn-chess-society')).text()
          expect(masthead(html).replaceAll(' aria-current="page"', '')).toBe(
            masthead(elsewhere).replaceAll(' aria-current="page"', ''),
          )
        }
    }
  })

  it('leaves out the officer’s own club while it awaits approval, as for anyone', async () => {
    const { officer } = await viewers()
    const html = await signedIn(officer, '/?search=puzzlers')
    expect(cardNames(html)).toEqual([])
    expect(html).toContain('No club matches.')
  })

  it('shows an approval, a new club and an edit on the next request after it was kept', async () => {
    const { app, student, officer } = await viewers()
    for (const session of [student, officer])
      expect(cardNames(await signedIn(session, '/?search=puzzlers'))).toEqual([])
    expect(
      (await app.admin.patch(`/api/clubs/${PENDING.code}/`, { approved: true, approved_comment: 'Welcome' })).status,
    ).toBe(200)
    for (const session of [student, officer])
      expect(cardNames(await signedIn(session, '/?search=puzzlers'))).toEqual([PENDING.code])

    expect(cardNames(await signedIn(student, '/?search=origami'))).toEqual([])
    const made = await app.admin.post('/api/clubs/', {
      ...PENDING,
      name: 'Origami Circle',
      code: 'origami-circle',
      approved: true,
    })
    expect([made.status, (await readJson(made)).approved]).toEqual([201, true])
    expect(cardNames(await signedIn(student, '/?search=origami'))).toEqual(['origami-circle'])

    expect(await signedIn(student, '/?search=chess')).not.toContain('Now with bughouse')
    await app.admin.patch('/api/clubs/penn-chess-society/', { subtitle: 'Now with bughouse' })
    expect(await signedIn(student, '/?search=chess')).toContain('Now with bughouse')
  })

  it('shows a change of role in the navigation on the next request, and a disabled account its 403', async () => {
    const { app, student } = await viewers()
    expect(navigation(await signedIn(student, '/'))).not.toContain('/review')
    expect((await app.admin.patch('/api/users/stu/', { is_admin: true })).status).toBe(200)
    expect(navigation(await signedIn(student, '/'))).toEqual([
      '/',
      '/my-clubs',
      '/clubs/new',
      '/review',
      '/admin/users',
      '/admin/rounds',
    ])
    expect((await app.admin.patch('/api/users/stu/', { is_admin: false })).status).toBe(200)
    expect(navigation(await signedIn(student, '/'))).toEqual(['/', '/my-clubs', '/clubs/new'])
    expect((await app.admin.patch('/api/users/stu/', { is_active: false })).status).toBe(200)
    const refused = await student.get('/')
    expect(refused.status).toBe(403)
    expect(await refused.text()).not.toContain('/my-clubs')
  })

  it('shows a favorite made on the site on the next request: the order by popularity moves', async () => {
    const { app, student } = await viewers()
    const firstPage = async () =>
      (await readJson(await app.req('/api/clubs/?page=1&page_size=24'))).results.map((club: any) => club.code)
    const before = await signedIn(student, '/')
    expect(cardNames(before)).toEqual(await firstPage())
    const favorited = await student.post('/clubs/penn-chess-society/favorite', { on: 'true' })
    expect(favorited.status).toBe(303)
    const after = await signedIn(student, '/')
    expect(cardNames(after)).not.toEqual(cardNames(before))
    expect(cardNames(after)).toEqual(await firstPage())
    expect(unframed(after)).toBe(unframed(await anonymous(app, '/')))
  })

  it('answers a page past the last with the error page in the person’s frame, never a 500', async () => {
    const { student } = await viewers()
    for (const path of ['/?page=9999', '/?page=abc', '/?page=2&page=9999']) {
      const res = await student.get(path)
      expect(res.status).toBeLessThan(500)
      const html = await res.text()
      expect(masthead(html)).toContain(`value="${student.csrf}"`)
      // Asked again, the same answer: an error is not kept as the page.
      expect((await student.get(path)).status).toBe(res.status)
    }
  })
})
