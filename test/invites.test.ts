import { describe, expect, it } from 'bun:test'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN_TOKEN, makeApp, NOW, ON_POSTGRES, readJson, tempDir, testDatabase } from '../harness/app'
import { freePort, spawnService, stopService, waitForHealth } from '../harness/service'
import { siteSession, textOf } from '../harness/site-session'
import { snapshotProblem } from '../src/domain/snapshot-format'
import { directoryOnDisk } from '../harness/on-disk'
import { blockWrites } from '../harness/write-fault'
import { users } from '../harness/users'

// Invite links (docs/reference.md §23): who may make, list and end them, what a link is (a random token
// whose SHA-256 alone is kept), the bounds of hours and uses, and joining through one on the site:
// at once, one use counted with the membership, a link past its expiry, uses or end a 404 page.

type App = Awaited<ReturnType<typeof makeApp>>
type Who = 'anonymous' | 'user' | 'member' | 'officer' | 'owner' | 'admin'

const CODE = 'inviters-club'
const INVITES = `/api/clubs/${CODE}/invites/`
const PEOPLE = ['owner', 'officer', 'member', 'user', 'ann', 'ben'] as const
const HOUR = 60 * 60 * 1000
const LINK = /^http:\/\/localhost\/invites\/([A-Za-z0-9_-]{43})$/
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** A clock the tests move forward. */
function clock() {
  let at = NOW.getTime()
  return { now: () => new Date(at), pass: (ms: number) => void (at += ms) }
}

/**
 * `owner` runs "Inviters Club" (approved, not accepting members: an invite admits anyway) with
 * `officer` and `member`; `user`, `ann` and `ben` belong to no club.
 */
async function world(options: Parameters<typeof makeApp>[0] = {}, app?: App) {
  app ??= await makeApp(options)
  const tokens: Record<string, string | null> = {
    anonymous: null,
    admin: ADMIN_TOKEN,
    ...(await users(app, ...PEOPLE)),
  }
  const as =
    (who: string) =>
    (path: string, init: { method?: string; json?: unknown } = {}) =>
      app.req(path, { ...init, token: tokens[who] ?? null })
  expect((await as('owner')('/api/clubs/', { method: 'POST', json: { name: 'Inviters Club' } })).status).toBe(201)
  for (const [username, role] of [
    ['officer', 'officer'],
    ['member', 'member'],
  ])
    expect(
      (await as('owner')(`/api/clubs/${CODE}/members/`, { method: 'POST', json: { username, role } })).status,
    ).toBe(201)
  expect((await app.admin.patch(`/api/clubs/${CODE}/`, { approved: true, accepting_members: false })).status).toBe(200)
  const invite = async (body: unknown = { expires_in_hours: 24, max_uses: 1 }, who = 'officer') => {
    const res = await as(who)(INVITES, { method: 'POST', json: body })
    expect(res.status).toBe(201)
    const made = await readJson(res)
    return { ...made, token: LINK.exec(made.url)![1]! as string }
  }
  const count = async () => (await readJson(await app.admin.get(`/api/clubs/${CODE}/`))).membership_count as number
  const list = async () => readJson(await app.admin.get(INVITES))
  return { ...app, tokens, as, invite, count, list }
}

describe('who may make, list and end invite links', () => {
  const WHO: readonly Who[] = ['anonymous', 'user', 'member', 'officer', 'owner', 'admin']
  // Columns as WHO: anonymous, a user of no club, a member, an officer, the owner, an admin.
  const MATRIX: Record<'make' | 'list' | 'end', number[]> = {
    make: [401, 403, 403, 201, 201, 201],
    list: [401, 403, 403, 200, 200, 200],
    end: [401, 403, 403, 204, 204, 204],
  }
  for (const [action, statuses] of Object.entries(MATRIX))
    WHO.forEach((who, i) =>
      it(`${action}: ${who} → ${statuses[i]}`, async () => {
        const w = await world()
        const made = await w.invite()
        const res =
          action === 'make'
            ? await w.as(who)(INVITES, { method: 'POST', json: { expires_in_hours: 2 } })
            : action === 'list'
              ? await w.as(who)(INVITES)
              : await w.as(who)(`${INVITES}${made.id}/`, { method: 'DELETE' })
        expect(res.status).toBe(statuses[i]!)
        const live = await w.list()
        if (res.status >= 400) expect(live.map((invite: { id: string }) => invite.id)).toEqual([made.id])
        else if (action === 'list') expect(await readJson(res)).toEqual(live)
        else if (action === 'end') expect(live).toEqual([])
        else expect(live).toHaveLength(2)
      }),
    )

  it('a club the caller cannot see is a 404, as is an unknown club', async () => {
    const w = await world()
    expect((await w.as('owner')(`/api/clubs/${CODE}/`, { method: 'PATCH', json: { active: false } })).status).toBe(200)
    expect((await w.as('user')(INVITES, { method: 'POST', json: { expires_in_hours: 2 } })).status).toBe(404)
    expect((await w.as('owner')('/api/clubs/no-such-club/invites/')).status).toBe(404)
  })
})

describe('making an invite link', () => {
  it('answers the link once, with its expiry and uses; the list shows it without the link', async () => {
    const w = await world()
    const res = await w.as('officer')(INVITES, { method: 'POST', json: { expires_in_hours: 48, max_uses: 30 } })
    expect(res.status).toBe(201)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const made = await readJson(res)
    expect(made).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{16}$/),
      url: expect.stringMatching(LINK),
      expires_at: new Date(NOW.getTime() + 48 * HOUR).toISOString(),
      max_uses: 30,
      uses: 0,
    })
    expect(await w.list()).toEqual([
      {
        id: made.id,
        created_by: 'officer',
        created_at: NOW.toISOString(),
        expires_at: made.expires_at,
        max_uses: 30,
        uses: 0,
      },
    ])
  })

  it('without max_uses admits any number of people until it expires (max_uses null)', async () => {
    const w = await world()
    const made = await w.invite({ expires_in_hours: 1 })
    expect(made.max_uses).toBeNull()
    for (const who of ['user', 'ann', 'ben']) {
      const student = await siteSession(w, w.tokens[who]!)
      expect((await student.post(`/invites/${made.token}`)).status).toBe(200)
    }
    expect((await w.list())[0].uses).toBe(3)
  })

  it('every link holds a token of its own (256 random bits), and the store keeps only its SHA-256', async () => {
    const dir = tempDir('clubs-invites-')
    const dataFile = join(dir, 'db.json')
    const w = await world({ dataFile })
    const a = await w.invite()
    const b = await w.invite()
    expect(a.token).not.toBe(b.token)
    expect(a.id).not.toBe(b.id)
    const text = readFileSync(dataFile, 'utf8') + readFileSync(`${dataFile}.journal`, 'utf8')
    expect(text).not.toContain(a.token)
    expect(text).not.toContain(b.token)
    const kept = directoryOnDisk(dataFile).invites
    expect(kept.map((invite: { token_sha256: string }) => invite.token_sha256).sort()).toEqual(
      [sha256(a.token), sha256(b.token)].sort(),
    )
    // A restart keeps them: the link still works.
    const again = await makeApp({ dataFile })
    const student = await siteSession(again, w.tokens.user!)
    expect((await student.get(`/invites/${a.token}`)).status).toBe(200)
  })

  it('names the address the client asked for: behind a trusted proxy, its scheme and host', async () => {
    const dir = tempDir('clubs-invites-')
    const port = freePort()
    const base = `http://127.0.0.1:${port}`
    const proc = spawnService(
      port,
      { CLUBS_DATA_FILE: join(dir, 'db.json'), CLUBS_ADMIN_TOKEN: ADMIN_TOKEN, CLUBS_TRUST_PROXY: '127.0.0.1' },
      { stdout: 'ignore', stderr: 'ignore' },
    )
    try {
      await waitForHealth(base, proc)
      const make = async (headers: Record<string, string>) => {
        const res = await fetch(`${base}/api/clubs/penn-chess-society/invites/`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ expires_in_hours: 1 }),
        })
        expect(res.status).toBe(201)
        return (await readJson(res)).url as string
      }
      expect(await make({})).toMatch(new RegExp(`^${base}/invites/[A-Za-z0-9_-]{43}$`))
      const proxied = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'clubs.example.edu' }
      expect(await make(proxied)).toMatch(/^https:\/\/clubs\.example\.edu\/invites\/[A-Za-z0-9_-]{43}$/)
    } finally {
      await stopService(proc)
    }
  })

  const REFUSED: [string, unknown, string][] = [
    ['0 hours', { expires_in_hours: 0 }, 'expires_in_hours'],
    ['169 hours', { expires_in_hours: 169 }, 'expires_in_hours'],
    ['hours as text', { expires_in_hours: '12' }, 'expires_in_hours'],
    ['a fraction of hours', { expires_in_hours: 1.5 }, 'expires_in_hours'],
    ['no hours', { max_uses: 3 }, 'expires_in_hours'],
    ['0 uses', { expires_in_hours: 2, max_uses: 0 }, 'max_uses'],
    ['1,001 uses', { expires_in_hours: 2, max_uses: 1001 }, 'max_uses'],
    ['null uses', { expires_in_hours: 2, max_uses: null }, 'max_uses'],
    ['an unknown field', { expires_in_hours: 2, token: 'mine' }, 'token'],
    ['a list', [], 'non_field_errors'],
  ]
  for (const [what, body, field] of REFUSED)
    it(`refuses ${what} (a 400 naming ${field}) and keeps nothing`, async () => {
      const w = await world()
      const res = await w.as('owner')(INVITES, { method: 'POST', json: body })
      expect(res.status).toBe(400)
      const errors = await readJson(res)
      expect(Object.keys(errors)).toEqual([field])
      expect(errors[field][0]).toEqual(expect.any(String))
      expect(await w.list()).toEqual([])
    })

  it('names the bounds in its words', async () => {
    const w = await world()
    const res = await w.as('owner')(INVITES, { method: 'POST', json: { expires_in_hours: 200, max_uses: 5000 } })
    expect(await readJson(res)).toEqual({
      expires_in_hours: ['Enter a whole number of hours from 1 to 168.'],
      max_uses: ['Enter a whole number of uses from 1 to 1,000, or none for any number.'],
    })
  })

  it('keeps at most 100 live links a club: the next is a 400 until one is ended', async () => {
    const w = await world()
    for (let i = 0; i < 100; i++) await w.invite({ expires_in_hours: 1 })
    const refused = await w.as('owner')(INVITES, { method: 'POST', json: { expires_in_hours: 1 } })
    expect(refused.status).toBe(400)
    expect(await readJson(refused)).toEqual({
      non_field_errors: ['A club has at most 100 live invite links; end one before making another.'],
    })
    const live = await w.list()
    expect(live).toHaveLength(100)
    expect((await w.as('owner')(`${INVITES}${live[0].id}/`, { method: 'DELETE' })).status).toBe(204)
    await w.invite({ expires_in_hours: 1 })
  })

  it('removes the invites past their expiry when another is made', async () => {
    const dir = tempDir('clubs-invites-')
    const dataFile = join(dir, 'db.json')
    const time = clock()
    const w = await world({ dataFile, now: time.now })
    const old = await w.invite({ expires_in_hours: 1 })
    time.pass(HOUR)
    expect(await w.list()).toEqual([])
    const fresh = await w.invite({ expires_in_hours: 2 })
    const kept = directoryOnDisk(dataFile).invites.map((invite: { id: string }) => invite.id)
    expect(kept).toEqual([fresh.id])
    expect(kept).not.toContain(old.id)
  })
})

describe('ending an invite link', () => {
  it('ends it at once (its page a 404 from then on); a second end, or another club’s id, is a 404', async () => {
    const w = await world()
    const made = await w.invite()
    const student = await siteSession(w, w.tokens.user!)
    expect((await student.get(`/invites/${made.token}`)).status).toBe(200)
    expect((await w.admin.delete(`/api/clubs/penn-chess-society/invites/${made.id}/`)).status).toBe(404)
    expect((await w.as('officer')(`${INVITES}${made.id}/`, { method: 'DELETE' })).status).toBe(204)
    expect((await w.as('officer')(`${INVITES}${made.id}/`, { method: 'DELETE' })).status).toBe(404)
    expect((await w.as('officer')(`${INVITES}nonsense/`, { method: 'DELETE' })).status).toBe(404)
    const page = await student.get(`/invites/${made.token}`)
    expect(page.status).toBe(404)
    expect(textOf(await page.text())).toContain('Page not found')
    expect((await student.post(`/invites/${made.token}`)).status).toBe(404)
    expect(await w.count()).toBe(3)
  })
})

describe('joining through an invite link on the site', () => {
  it('a signed-in student sees the club and Join; confirming makes them a member at once, one use counted', async () => {
    const w = await world()
    const made = await w.invite({ expires_in_hours: 24, max_uses: 2 })
    const student = await siteSession(w, w.tokens.user!)
    const page = await student.get(`/invites/${made.token}`)
    expect(page.status).toBe(200)
    expect(page.headers.get('cache-control')).toContain('no-store')
    const html = await page.text()
    expect(textOf(html)).toContain('Join Inviters Club?')
    expect(html).toContain(`<form method="post" action="/invites/${made.token}"`)
    expect(html).toContain('>Join Inviters Club</button>')
    const joined = await student.post(`/invites/${made.token}`)
    expect(joined.status).toBe(200)
    expect(textOf(await joined.text())).toContain('You are now a member of Inviters Club.')
    expect(await w.count()).toBe(4)
    expect(await readJson(await w.as('owner')(`/api/clubs/${CODE}/members/`))).toContainEqual({
      username: 'user',
      role: 'member',
      title: '',
      public: false,
    })
    expect((await w.list())[0]).toMatchObject({ uses: 1, max_uses: 2 })
  })

  it('someone already a member is told so, and no use is counted', async () => {
    const w = await world()
    const made = await w.invite({ expires_in_hours: 24, max_uses: 1 })
    const member = await siteSession(w, w.tokens.member!)
    expect(textOf(await (await member.get(`/invites/${made.token}`)).text())).toContain(
      'You are already a member of Inviters Club',
    )
    const res = await member.post(`/invites/${made.token}`)
    expect(res.status).toBe(200)
    expect(textOf(await res.text())).toContain('This invite link was not used')
    expect((await w.list())[0]).toMatchObject({ uses: 0 })
    expect(await w.count()).toBe(3)
  })

  it('an anonymous visitor signs in first and comes back to the link; a wrong token is a 404 page for anyone', async () => {
    const w = await world()
    const made = await w.invite()
    const res = await w.req(`/invites/${made.token}`, { headers: { accept: 'text/html' } })
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe(`/sign-in?next=${encodeURIComponent(`/invites/${made.token}`)}`)
    const wrong = made.token.slice(0, -1) + (made.token.endsWith('A') ? 'B' : 'A')
    for (const token of [wrong, 'short', made.token + 'x'])
      expect((await w.req(`/invites/${token}`, { headers: { accept: 'text/html' } })).status).toBe(404)
    const signIn = await w.req('/sign-in', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost' },
      body: new URLSearchParams({ token: w.tokens.user!, next: `/invites/${made.token}` }),
    })
    expect(signIn.headers.get('location')).toBe(`/invites/${made.token}`)
  })

  it('a POST without the session’s CSRF token, or from another origin, joins no one', async () => {
    const w = await world()
    const made = await w.invite()
    const student = await siteSession(w, w.tokens.user!)
    expect((await student.post(`/invites/${made.token}`, { csrf: 'wrong' })).status).toBe(403)
    expect((await student.post(`/invites/${made.token}`, {}, { origin: 'https://evil.example' })).status).toBe(403)
    expect(await w.count()).toBe(3)
    expect((await w.list())[0].uses).toBe(0)
  })

  it('past its expiry the link is a 404 page and admits no one', async () => {
    const time = clock()
    const w = await world({ now: time.now })
    const made = await w.invite({ expires_in_hours: 3 })
    const student = await siteSession(w, w.tokens.user!)
    time.pass(3 * HOUR)
    expect((await student.get(`/invites/${made.token}`)).status).toBe(404)
    expect((await student.post(`/invites/${made.token}`)).status).toBe(404)
    expect(await w.count()).toBe(3)
  })

  it('while its club is inactive the link is a 404 page; active again, it works', async () => {
    const w = await world()
    const made = await w.invite()
    const student = await siteSession(w, w.tokens.user!)
    expect((await w.as('owner')(`/api/clubs/${CODE}/`, { method: 'PATCH', json: { active: false } })).status).toBe(200)
    expect((await student.get(`/invites/${made.token}`)).status).toBe(404)
    expect((await student.post(`/invites/${made.token}`)).status).toBe(404)
    expect((await w.as('owner')(`/api/clubs/${CODE}/`, { method: 'PATCH', json: { active: true } })).status).toBe(200)
    expect((await student.post(`/invites/${made.token}`)).status).toBe(200)
    expect(await w.count()).toBe(4)
  })

  it('of two students racing for the last use only one joins; the other gets the 404 page', async () => {
    // On PostgreSQL they race through two instances sharing the database (docs/reference.md §19).
    const url = ON_POSTGRES ? await testDatabase() : null
    const first = url ? await makeApp({ databaseUrl: url }) : await makeApp()
    const second = url ? await makeApp({ databaseUrl: url }) : first
    const w = await world({}, first)
    const made = await w.invite({ expires_in_hours: 24, max_uses: 1 })
    const ann = await siteSession(w, w.tokens.ann!)
    const ben = await siteSession(second, w.tokens.ben!)
    expect((await ann.get(`/invites/${made.token}`)).status).toBe(200)
    expect((await ben.get(`/invites/${made.token}`)).status).toBe(200)
    const answers = await Promise.all([ann.post(`/invites/${made.token}`), ben.post(`/invites/${made.token}`)])
    expect(answers.map((res) => res.status).sort()).toEqual([200, 404])
    const members = (await readJson(await w.as('owner')(`/api/clubs/${CODE}/members/`))).map(
      (member: { username: string }) => member.username,
    )
    const winner = answers[0]!.status === 200 ? 'ann' : 'ben'
    expect(members.filter((name: string) => name === 'ann' || name === 'ben')).toEqual([winner])
    expect(await w.count()).toBe(4)
    // Used up: gone from the list, and its page a 404 for everyone.
    expect(await w.list()).toEqual([])
    expect((await ann.get(`/invites/${made.token}`)).status).toBe(404)
    if (url) for (const app of [first, second]) await app.store.close()
  })
})

describe('the invite links on the club’s members page', () => {
  it('an officer makes one (the link shown once, on its own page), sees it listed with its uses left, and ends it', async () => {
    const w = await world()
    const officer = await siteSession(w, w.tokens.officer!)
    const before = await officer.get(`/clubs/${CODE}/requests`)
    expect(textOf(await before.text())).toContain('There are no live invite links.')
    const made = await officer.post(`/clubs/${CODE}/invites`, { expires_in_hours: '5', max_uses: '3' })
    expect(made.status).toBe(200)
    expect(made.headers.get('cache-control')).toContain('no-store')
    const html = await made.text()
    const link = /id="invite-url" type="text" value="([^"]+)"/.exec(html)![1]!
    expect(link).toMatch(LINK)
    expect(textOf(html)).toContain(
      'Copy the link now: it is shown this once. It works until 22 Nov 2026, 17:00 UTC for 3 people.',
    )
    const [live] = await w.list()
    expect(live).toMatchObject({ max_uses: 3, uses: 0, created_by: 'officer' })
    const again = await (await officer.get(`/clubs/${CODE}/requests`)).text()
    expect(again).not.toContain(LINK.exec(link)![1]!)
    expect(textOf(again)).toContain('22 Nov 2026, 17:00 UTC 3 of 3 officer End')
    const ended = await officer.post(`/clubs/${CODE}/invites/${live.id}/end`)
    expect(ended.status).toBe(303)
    expect(textOf(await (await officer.get(ended.headers.get('location')!)).text())).toContain(
      'The invite link is ended: it no longer works.',
    )
    expect(await w.list()).toEqual([])
  })

  it('a link without a number of uses is listed as having no limit', async () => {
    const w = await world()
    await w.invite({ expires_in_hours: 2 })
    const officer = await siteSession(w, w.tokens.officer!)
    expect(textOf(await (await officer.get(`/clubs/${CODE}/requests`)).text())).toContain('14:00 UTC No limit officer')
  })

  it('a refused form shows its errors beside the fields, the values kept, and makes nothing', async () => {
    const w = await world()
    const officer = await siteSession(w, w.tokens.officer!)
    const res = await officer.post(`/clubs/${CODE}/invites`, { expires_in_hours: '500', max_uses: 'lots' })
    expect(res.status).toBe(400)
    const html = await res.text()
    expect(html).toContain('Enter a whole number of hours from 1 to 168.')
    expect(html).toContain('value="lots"')
    expect(await w.list()).toEqual([])
  })

  it('a member who does not run the club cannot make one (404 page)', async () => {
    const w = await world()
    const member = await siteSession(w, w.tokens.member!)
    expect((await member.post(`/clubs/${CODE}/invites`, { expires_in_hours: '5' })).status).toBe(404)
    expect(await w.list()).toEqual([])
  })
})

describe('invite links in the data file', () => {
  it('hold what each write leaves: a use counted, a link ended or used up gone; a join the disk refused counts no use there, the one that lands does', async () => {
    const dataFile = join(tempDir('clubs-invites-'), 'db.json')
    const w = await world({ dataFile })
    const twice = await w.invite({ expires_in_hours: 24, max_uses: 2 })
    const ended = await w.invite()
    const usesOnDisk = () =>
      Object.fromEntries(directoryOnDisk(dataFile).invites.map((i: { id: string; uses: number }) => [i.id, i.uses]))
    expect(usesOnDisk()).toEqual({ [twice.id]: 0, [ended.id]: 0 })
    expect((await w.as('officer')(`${INVITES}${ended.id}/`, { method: 'DELETE' })).status).toBe(204)
    expect(usesOnDisk()).toEqual({ [twice.id]: 0 })
    const ann = await siteSession(w, w.tokens.ann!)
    const blocked = blockWrites(dataFile)
    expect((await ann.post(`/invites/${twice.token}`)).status).toBe(503)
    blocked.unblock()
    expect(usesOnDisk()).toEqual({ [twice.id]: 0 })
    expect((await ann.post(`/invites/${twice.token}`)).status).toBe(200)
    expect(usesOnDisk()).toEqual({ [twice.id]: 1 })
    const ben = await siteSession(w, w.tokens.ben!)
    expect((await ben.post(`/invites/${twice.token}`)).status).toBe(200)
    expect(usesOnDisk()).toEqual({})
  })

  const SEED = JSON.parse(readFileSync(join(import.meta.dir, '..', 'data', 'seed.json'), 'utf8'))
  const invite = (id: string, token: string) => ({
    id,
    club: 'penn-chess-society',
    token_sha256: sha256(token),
    created_by: 'admin',
    created_at: NOW.toISOString(),
    expires_at: new Date(NOW.getTime() + HOUR).toISOString(),
    max_uses: null,
    uses: 0,
  })
  const files: [string, unknown, string | null][] = [
    ['none (a file from before them)', undefined, null],
    ['two invites', [invite('00000000000000a1', 'a'), invite('00000000000000a2', 'b')], null],
    ['an id twice', [invite('00000000000000a1', 'a'), invite('00000000000000a1', 'b')], '/invites: an invite id'],
    ['a token twice', [invite('00000000000000a1', 'a'), invite('00000000000000a2', 'a')], '/invites: an invite token'],
    ['a token kept as it is', [{ ...invite('00000000000000a1', 'a'), token_sha256: 'a' }], '/invites/0/token_sha256'],
  ]
  for (const [label, invites, problem] of files)
    it(`${problem ? 'refuses' : 'loads'} a data file with ${label}`, () => {
      const found = snapshotProblem({ ...SEED, ...(invites === undefined ? {} : { invites }) })
      if (problem === null) expect(found).toBeNull()
      else expect(found).toStartWith(problem)
    })
})
