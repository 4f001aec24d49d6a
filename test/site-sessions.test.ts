import { afterAll, describe, expect, it } from 'bun:test'
import type { Subprocess } from 'bun'
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN_TOKEN, makeApp, NOW, tempDir } from '../harness/app'
import { freePort, spawnService, stopService, waitForHealth } from '../harness/service'
import { snapshotProblem } from '../src/domain/snapshot-format'
import { directoryOnDisk } from '../harness/on-disk'
import { blockWrites } from '../harness/write-fault'
import { users } from '../harness/users'

// The site's sessions (docs/reference.md §20): a random id in an HttpOnly cookie, refused once signed out
// or after 8 h without use; every POST refused without the session's CSRF token or from another
// Origin; kept across a restart, with only the id's SHA-256 in the data file. Signed in here with
// a service token: a campus sign-in starts the same session (test/site-campus-sign-in.test.ts).

const HOUR = 60 * 60 * 1000
const HTML = { accept: 'text/html' }
const FORM = 'application/x-www-form-urlencoded'
const PAGE = '/clubs/penn-chess-society'

const processes: Subprocess[] = []
afterAll(async () => {
  for (const proc of processes) await stopService(proc)
})

const sessionOf = (res: Response) =>
  /^clubs_session=([^;]*)/.exec(res.headers.getSetCookie().find((c) => c.startsWith('clubs_session=')) ?? '')?.[1]

/** Who the page says is signed in for the cookie `session`, and the CSRF token its forms carry. */
function viewerIn(html: string) {
  return {
    username: /Sign out <span class="who">\(([^)]*)\)/.exec(html)?.[1] ?? null,
    csrf: /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? null,
  }
}

/** The app at a clock the test moves, and a user "bob" signed in on the site with his service token. */
async function signedIn() {
  let now = NOW.getTime()
  const app = await makeApp({ now: () => new Date(now) })
  const { bob: token } = await users(app, 'bob')
  const res = await app.req('/sign-in', {
    method: 'POST',
    headers: { 'content-type': FORM, origin: 'http://localhost' },
    body: new URLSearchParams({ token, next: PAGE }),
  })
  expect([res.status, res.headers.get('location')]).toEqual([303, PAGE])
  const session = sessionOf(res)!
  const viewer = async (cookie = session) =>
    viewerIn(await (await app.req(PAGE, { headers: { ...HTML, cookie: `clubs_session=${cookie}` } })).text())
  const signOut = (body: Record<string, string>, headers: Record<string, string> = {}) =>
    app.req('/sign-out', {
      method: 'POST',
      headers: { cookie: `clubs_session=${session}`, 'content-type': FORM, origin: 'http://localhost', ...headers },
      body: new URLSearchParams(body),
    })
  return { ...app, session, viewer, signOut, advance: (ms: number) => void (now += ms) }
}

describe('site sessions', () => {
  it('signs in with a token: the cookie names the person on every page', async () => {
    const { viewer } = await signedIn()
    expect((await viewer()).username).toBe('bob')
  })

  it('refuses the session cookie once signed out, and clears it in the browser', async () => {
    const { viewer, signOut, session } = await signedIn()
    const { csrf } = await viewer()
    const res = await signOut({ csrf: csrf! })
    expect([res.status, res.headers.get('location')]).toEqual([303, '/'])
    expect(res.headers.getSetCookie()).toContainEqual(expect.stringMatching(/^clubs_session=; .*Max-Age=0/))
    expect(await viewer(session)).toEqual({ username: null, csrf: null })
  })

  it('refuses a forged POST without the CSRF token, or with a wrong one, or another session’s: 403, still signed in', async () => {
    const { viewer, signOut, req, admin } = await signedIn()
    const { carol: token } = await users({ admin }, 'carol')
    const carols = await req('/sign-in', {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: new URLSearchParams({ token }),
    })
    const carolsCsrf = (await viewer(sessionOf(carols)!)).csrf!
    for (const body of [{}, { csrf: 'not-the-token' }, { csrf: carolsCsrf }] as Record<string, string>[]) {
      const res = await signOut(body)
      expect(res.status).toBe(403)
      expect(await res.text()).toContain('This form has expired or did not come from this site.')
    }
    expect((await viewer()).username).toBe('bob')
  })

  it('refuses a POST from another Origin, even with the right CSRF token: 403, still signed in', async () => {
    const { viewer, signOut } = await signedIn()
    const { csrf } = await viewer()
    for (const origin of ['https://evil.example', 'null', 'http://localhost:8080']) {
      const res = await signOut({ csrf: csrf! }, { origin })
      expect(res.status).toBe(403)
      expect(await res.text()).toContain('This form was sent from another site, so it was refused.')
    }
    expect((await viewer()).username).toBe('bob')
  })

  it('ends a session after 8 h without use, and not before; each use starts the 8 h again', async () => {
    const { viewer, advance, store } = await signedIn()
    // A use refreshes the session by a write it does not wait for (on PostgreSQL, applied once the
    // store's lock is taken): landed before the clock moves on, as a person's next click would find it.
    const use = async () => {
      const seen = await viewer()
      await store.save()
      return seen.username
    }
    advance(8 * HOUR - 60_000)
    expect(await use()).toBe('bob')
    advance(8 * HOUR - 60_000)
    expect(await use()).toBe('bob')
    advance(8 * HOUR)
    expect(await use()).toBe(null)
  })
})

/**
 * `next` values, as a query or form sends them, that a browser would take to another host or that
 * cannot be a Location header as given: tabs, CR and LF are dropped and `\\` is `/` (WHATWG URL).
 */
const OFF_SITE = [
  '/%09/evil.example',
  '/%0A/evil.example',
  '/%0D/evil.example',
  '/%0D%0A/evil.example',
  '/%5Cevil.example',
  '%5C%5Cevil.example',
  '//evil.example',
  '/.//evil.example',
  'https://evil.example/',
  'javascript:alert(1)',
  `/${'a'.repeat(2048)}`,
]
const GOOD_NEXT = '/clubs/penn-chess-society?x=1#y'

describe('coming back to next after signing in', () => {
  async function app() {
    const made = await makeApp()
    const { bob: token } = await users(made, 'bob')
    /** Signs in with the form, whose hidden `next` is `next` as a form sends it (percent-encoded). */
    const post = (next: string) =>
      made.req('/sign-in', {
        method: 'POST',
        headers: { 'content-type': FORM, origin: 'http://localhost' },
        body: `token=${token}&next=${next}`,
      })
    const session = sessionOf(await post('/'))!
    const get = (next: string, cookie?: string) =>
      made.req(`/sign-in?next=${next}`, {
        headers: { ...HTML, ...(cookie ? { cookie: `clubs_session=${cookie}` } : {}) },
      })
    return { post, get, session }
  }
  const hiddenNext = async (res: Response) => /name="next" value="([^"]*)"/.exec(await res.text())?.[1]

  it('sends the browser to / for a next off this site, from the form and when already signed in: never a 500', async () => {
    const { post, get, session } = await app()
    for (const next of OFF_SITE) {
      const form = await get(next)
      expect([next, form.status, await hiddenNext(form)]).toEqual([next, 200, '/'])
      for (const res of [await post(next), await get(next, session)])
        expect([next, res.status, res.headers.get('location')]).toEqual([next, 303, '/'])
    }
  })

  it('keeps a path with CR, LF or NUL inside it as the browser would send it, percent-encoded: never a 500', async () => {
    const { post, get, session } = await app()
    for (const [next, kept] of [
      ['/clubs/a%0D%0Ab', '/clubs/ab'],
      ['/clubs/a%00b', '/clubs/a%00b'],
      ['/clubs/caf%C3%A9', '/clubs/caf%C3%A9'],
    ]) {
      for (const res of [await post(next!), await get(next!, session)])
        expect([next, res.status, res.headers.get('location')]).toEqual([next, 303, kept])
    }
  })

  it('keeps a path of this site: in the form, after signing in, and when already signed in', async () => {
    const { post, get, session } = await app()
    const next = encodeURIComponent(GOOD_NEXT)
    expect(await hiddenNext(await get(next))).toBe(GOOD_NEXT)
    for (const res of [await post(next), await get(next, session)])
      expect([res.status, res.headers.get('location')]).toEqual([303, GOOD_NEXT])
  })
})

describe('site sessions across a restart (a real process)', () => {
  it('keeps the session: the same cookie opens it after a restart on the same data file, which holds only its hash', async () => {
    const dir = tempDir('clubs-site-restart-')
    const file = join(dir, 'db.json')
    const port = freePort()
    const base = `http://127.0.0.1:${port}`
    const start = async (adminToken = ADMIN_TOKEN) => {
      const proc = spawnService(port, {
        CLUBS_DATA_FILE: file,
        CLUBS_ADMIN_TOKEN: adminToken,
        CLUBS_LOG_LEVEL: 'warn',
      })
      processes.push(proc)
      await waitForHealth(base, proc)
      return proc
    }
    const first = await start()
    const res = await fetch(`${base}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': FORM, origin: base },
      body: new URLSearchParams({ token: ADMIN_TOKEN }),
    })
    const session = sessionOf(res)!
    const who = async () =>
      viewerIn(
        await (await fetch(`${base}${PAGE}`, { headers: { ...HTML, cookie: `clubs_session=${session}` } })).text(),
      ).username
    expect(await who()).toBe('admin')

    await stopService(first)
    const saved = readFileSync(file, 'utf8')
    expect(saved).not.toContain(session)
    // What the session keeps of the admin token it started with says nothing of it without the key.
    expect(saved).not.toContain(ADMIN_TOKEN)
    expect(saved).not.toContain(createHash('sha256').update(ADMIN_TOKEN).digest('hex'))
    expect(JSON.parse(saved).sessions).toEqual([
      expect.objectContaining({
        id_sha256: createHash('sha256').update(session).digest('hex'),
        username: 'admin',
        via: 'token',
        credential: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    ])

    const second = await start()
    expect(await who()).toBe('admin')

    // The admin token leaked: restarted with a new one, the old one's session opens nothing.
    const created = await fetch(`${base}/api/clubs/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Leak Watchers' }),
    })
    expect((await created.json()).approved).toBe(false)
    const review = await fetch(`${base}/review`, { headers: { ...HTML, cookie: `clubs_session=${session}` } })
    const form = /<form method="post" action="\/review\/leak-watchers"[^]*?<\/form>/.exec(await review.text())![0]
    const value = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(form)![1]!
    await stopService(second)
    const NEW_TOKEN = 'the-admin-token-after-the-leak'
    await start(NEW_TOKEN)
    expect(await who()).toBe(null)
    const refused = await fetch(`${base}/review`, {
      redirect: 'manual',
      headers: { ...HTML, cookie: `clubs_session=${session}` },
    })
    expect([refused.status, refused.headers.get('location')]).toEqual([303, '/sign-in?next=%2Freview'])
    const approve = await fetch(`${base}/review/leak-watchers`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: `clubs_session=${session}`, 'content-type': FORM, origin: base },
      body: new URLSearchParams({ csrf: value('csrf'), seen: value('seen'), decision: 'approve', comment: '' }),
    })
    expect([approve.status, approve.headers.get('location')]).toEqual([303, '/sign-in?next=%2Freview'])
    const club = await fetch(`${base}/api/clubs/leak-watchers/`, { headers: { authorization: `Bearer ${NEW_TOKEN}` } })
    expect((await club.json()).approved).toBe(false)
  })
})

describe('sessions in the data file', () => {
  /** The app on a data file at a clock the test moves; `signIn` starts a session with a service token. */
  async function onFile() {
    const file = join(tempDir('clubs-sessions-'), 'db.json')
    let now = NOW.getTime()
    const app = await makeApp({ dataFile: file, now: () => new Date(now) })
    const tokens = await users(app, 'bob', 'carol')
    const signIn = async (username: 'bob' | 'carol') => {
      const res = await app.req('/sign-in', {
        method: 'POST',
        headers: { 'content-type': FORM, origin: 'http://localhost' },
        body: new URLSearchParams({ token: tokens[username]! }),
      })
      expect(res.status).toBe(303)
      return sessionOf(res)!
    }
    const visit = (session: string) => app.req(PAGE, { headers: { ...HTML, cookie: `clubs_session=${session}` } })
    const onDisk = () =>
      ((directoryOnDisk(file).sessions ?? []) as { username: string; last_seen_at: string }[]).map(
        ({ username, last_seen_at }) => [username, last_seen_at],
      )
    return { ...app, file, signIn, visit, onDisk, advance: (ms: number) => void (now += ms), at: () => now }
  }

  it('saves a later use of a session, and drops those ended by 8 h without use when the next one starts', async () => {
    const app = await onFile()
    const bobs = await app.signIn('bob')
    expect(app.onDisk()).toEqual([['bob', NOW.toISOString()]])
    app.advance(HOUR)
    await app.visit(bobs)
    // The last use is saved by a write of its own, which lands before the sign-in made after it.
    await app.signIn('carol')
    const later = new Date(app.at()).toISOString()
    expect(app.onDisk()).toEqual([
      ['bob', later],
      ['carol', later],
    ])
    app.advance(8 * HOUR)
    await app.signIn('bob')
    expect(app.onDisk()).toEqual([['bob', new Date(app.at()).toISOString()]])
  })

  it('keeps a session whose sign-out the disk refused, on disk too, and ends it there with the sign-out that lands', async () => {
    const app = await onFile()
    const bobs = await app.signIn('bob')
    const csrf = viewerIn(await (await app.visit(bobs)).text()).csrf!
    const signOut = () =>
      app.req('/sign-out', {
        method: 'POST',
        headers: { cookie: `clubs_session=${bobs}`, 'content-type': FORM, origin: 'http://localhost' },
        body: new URLSearchParams({ csrf }),
      })
    const blocked = blockWrites(app.file)
    expect((await signOut()).status).toBe(503)
    blocked.unblock()
    expect(viewerIn(await (await app.visit(bobs)).text()).username).toBe('bob')
    expect(app.onDisk()).toEqual([['bob', NOW.toISOString()]])
    expect((await signOut()).status).toBe(303)
    expect(app.onDisk()).toEqual([])
  })
})

describe('a data file from before sessions kept their token', () => {
  it('loads; a token session in it is refused (its holder signs in again), a campus session lives on', async () => {
    const dir = tempDir('clubs-site-older-')
    const file = join(dir, 'db.json')
    const first = await makeApp({ dataFile: file })
    const { bob: token } = await users(first, 'bob')
    const signIn = await first.req('/sign-in', {
      method: 'POST',
      headers: { 'content-type': FORM, origin: 'http://localhost' },
      body: new URLSearchParams({ token }),
    })
    const bobs = sessionOf(signIn)!
    await first.store.close()

    // As the release before wrote them: no credential; a campus user's session beside bob's.
    const saved = directoryOnDisk(file)
    const campus = 'a-campus-session-id-from-the-release-before'
    saved.sessions = [
      ...saved.sessions.map(({ credential: _, ...session }: { credential?: string }) => session),
      {
        id_sha256: createHash('sha256').update(campus).digest('hex'),
        username: 'carol',
        via: 'campus',
        group_admin: false,
        created_at: NOW.toISOString(),
        last_seen_at: NOW.toISOString(),
      },
    ]
    writeFileSync(file, JSON.stringify(saved))
    expect(snapshotProblem(directoryOnDisk(file))).toBeNull()

    const app = await makeApp({ dataFile: file })
    const who = async (id: string) =>
      viewerIn(await (await app.req(PAGE, { headers: { ...HTML, cookie: `clubs_session=${id}` } })).text()).username
    expect(await who(bobs)).toBe(null)
    expect(await who(campus)).toBe('carol')
    const again = await app.req('/sign-in', {
      method: 'POST',
      headers: { 'content-type': FORM, origin: 'http://localhost' },
      body: new URLSearchParams({ token }),
    })
    expect(await who(sessionOf(again)!)).toBe('bob')
  })
})
