import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { makeApp, tempDir } from '../harness/app'
import {
  ADMIN_GROUP,
  AUDIENCE,
  campusSettings,
  OTHER_SITE_CLIENT,
  PUBLIC_SITE_CLIENT,
  SITE_CLIENT,
  SITE_CLIENT_SECRET,
  startProvider,
  type IdTokenEdit,
  type TestProvider,
} from '../harness/oidc-provider'
import { freePort } from '../harness/service'
import { CampusSignIn, type OidcSettings } from '../src/edge/oidc'
import { generateKeyPair, SignJWT, type JWTPayload } from 'jose'
import { directoryOnDisk } from '../harness/on-disk'
import { users } from '../harness/users'

// The site's campus sign-in (docs/reference.md §20) in process, against a real OpenID provider: the
// authorization code flow with PKCE, state and nonce, the person's part at the provider scripted
// by the harness (its login and consent forms). Every refusal is a 400 page that starts no session
// and records nobody; a provider that cannot be asked is a 503 page.

const PEOPLE = {
  alice: { claims: { preferred_username: 'Alice.Smith', groups: ['students'], email: 'alice@example.edu' } },
  dean: { claims: { preferred_username: 'dean', groups: ['staff', ADMIN_GROUP] } },
  impostor: { claims: { preferred_username: 'Admin' } },
}

let provider: TestProvider

beforeAll(async () => {
  provider = await startProvider(PEOPLE)
})
afterAll(async () => {
  await provider.stop()
})

const settings = (overrides: Partial<OidcSettings> = {}) =>
  campusSettings(provider.issuer, { clientId: SITE_CLIENT, clientSecret: SITE_CLIENT_SECRET, ...overrides })

const HTML = { accept: 'text/html' }

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
/** `token` with another payload under its original signature. */
const tampered = (token: string, claims: JWTPayload) => {
  const [header, , signature] = token.split('.')
  return `${header}.${b64(claims)}.${signature}`
}

/** The value a response sets for cookie `name`, or undefined. */
const setCookie = (res: Response, name: string) =>
  res.headers
    .getSetCookie()
    .find((cookie) => cookie.startsWith(`${name}=`))
    ?.split(';')[0]!
    .slice(name.length + 1)

/** The app with campus sign-in over a data file of its own, and the steps of a sign-in. */
async function siteApp(overrides: Partial<OidcSettings> = {}) {
  const dir = tempDir('clubs-site-campus-')
  const file = join(dir, 'db.json')
  const app = await makeApp({ dataFile: file, campus: new CampusSignIn(settings(overrides)) })
  const saved = () => directoryOnDisk(file)

  /** The site sends the browser to the provider: where, and the browser's sign-in cookie. */
  async function begin(next = '/') {
    const res = await app.req(`/auth/sign-in?next=${encodeURIComponent(next)}`, { headers: HTML })
    expect(res.status).toBe(303)
    return { location: new URL(res.headers.get('location')!), browser: setCookie(res, 'clubs_sign_in')! }
  }

  /** The provider sends the browser back to `url` (the callback), with `browser`'s cookie. */
  const callback = (url: URL, browser: string | null) =>
    app.req(`${url.pathname}${url.search}`, {
      headers: { ...HTML, ...(browser === null ? {} : { cookie: `clubs_sign_in=${browser}` }) },
    })

  /** The page the session cookie `session` opens: who it says is signed in. */
  const signedInAs = async (session: string) => {
    const html = await (
      await app.req('/clubs/penn-chess-society', { headers: { ...HTML, cookie: `clubs_session=${session}` } })
    ).text()
    return /Sign out <span class="who">\(([^)]*)\)/.exec(html)?.[1] ?? null
  }

  return { ...app, begin, callback, signedInAs, saved }
}

/**
 * The answer to a refused sign-in: a 400 page saying so, no session cookie, no session saved
 * beyond the `sessions` there were (and with none, the person not recorded either).
 */
async function expectRefused(
  app: Awaited<ReturnType<typeof siteApp>>,
  res: Response,
  says: string | RegExp,
  sessions = 0,
) {
  expect(res.status).toBe(400)
  expect(res.headers.get('content-type')).toStartWith('text/html')
  expect(await res.text()).toMatch(says)
  expect(setCookie(res, 'clubs_session')).toBeUndefined()
  const saved = app.saved()
  expect(saved.sessions ?? []).toHaveLength(sessions)
  if (sessions === 0)
    expect(saved.users.map((user: { username: string }) => user.username)).not.toContain('alice.smith')
}

describe('the Sign in page with campus sign-in', () => {
  it('offers the campus button first and keeps the service token form under its own heading', async () => {
    const { req } = await siteApp()
    const html = await (await req('/sign-in?next=/clubs/penn-chess-society', { headers: HTML })).text()
    expect(html).toContain(
      '<a class="button" href="/auth/sign-in?next=%2Fclubs%2Fpenn-chess-society">Sign in with Club Directory</a>',
    )
    expect(html).toContain('<h2>With a service token</h2>')
    expect(html).toContain('name="token"')
    expect(html.indexOf('/auth/sign-in')).toBeLessThan(html.indexOf('name="token"'))
  })

  it('offers only the token form without campus sign-in', async () => {
    const { req } = await makeApp()
    const html = await (await req('/sign-in', { headers: HTML })).text()
    expect(html).not.toContain('/auth/sign-in')
    expect(html).toContain('name="token"')
    expect((await req('/auth/sign-in', { headers: HTML })).status).toBe(404)
  })
})

describe('signing in with the campus provider', () => {
  it('runs the code flow with PKCE (S256), state and nonce, and starts a campus session for the person', async () => {
    const app = await siteApp()
    const { location, browser } = await app.begin('/clubs/penn-chess-society')
    expect(`${location.origin}${location.pathname}`).toBe(`${provider.issuer}/auth`)
    const asked = Object.fromEntries(location.searchParams)
    expect(asked).toMatchObject({
      client_id: SITE_CLIENT,
      response_type: 'code',
      redirect_uri: 'http://localhost/auth/callback',
      scope: 'openid profile email',
      code_challenge_method: 'S256',
    })
    for (const name of ['state', 'nonce', 'code_challenge']) expect(asked[name]).toMatch(/^[A-Za-z0-9_-]{43}$/)

    const back = await provider.logIn(location, 'alice')
    const res = await app.callback(back, browser)
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe('/clubs/penn-chess-society')
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('clubs_session='))!
    expect(cookie).toMatch(/^clubs_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/)
    expect(await app.signedInAs(setCookie(res, 'clubs_session')!)).toBe('alice.smith')

    const saved = app.saved()
    expect(saved.sessions).toEqual([
      expect.objectContaining({ username: 'alice.smith', via: 'campus', group_admin: false }),
    ])
    // Recorded as on a first bearer request: no token of the service's; the ID token's email claim kept (docs/reference.md §21).
    expect(saved.users).toContainEqual({
      username: 'alice.smith',
      is_admin: false,
      token_sha256: null,
      created_at: expect.any(String),
      email: 'alice@example.edu',
    })
  })

  it('makes a member of the admin group an admin for the session: the Review link shows', async () => {
    const app = await siteApp()
    const { location, browser } = await app.begin()
    const res = await app.callback(await provider.logIn(location, 'dean'), browser)
    const session = setCookie(res, 'clubs_session')!
    expect(app.saved().sessions).toEqual([expect.objectContaining({ username: 'dean', group_admin: true })])
    const html = await (
      await app.req('/clubs/penn-chess-society', { headers: { ...HTML, cookie: `clubs_session=${session}` } })
    ).text()
    expect(html).toContain('href="/review"')
  })

  it('ends campus sessions only when an admin ends the person’s sessions; a campus JWT in the token form starts one', async () => {
    const app = await siteApp()
    const { location, browser } = await app.begin()
    const viaProvider = setCookie(
      await app.callback(await provider.logIn(location, 'alice'), browser),
      'clubs_session',
    )!
    const pasted = await app.req('/sign-in', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost' },
      body: new URLSearchParams({ token: await provider.sign({ preferred_username: 'Alice.Smith' }) }),
    })
    const viaForm = setCookie(pasted, 'clubs_session')!
    // Not a service token of hers: a campus session, which no token of this service's ends.
    expect(app.saved().sessions.map((session: { via: string }) => session.via)).toEqual(['campus', 'campus'])
    expect((await app.admin.delete('/api/users/alice.smith/token/')).status).toBe(204)
    for (const session of [viaProvider, viaForm]) expect(await app.signedInAs(session)).toBe('alice.smith')

    expect((await app.admin.delete('/api/users/alice.smith/sessions/')).status).toBe(204)
    for (const session of [viaProvider, viaForm]) expect(await app.signedInAs(session)).toBeNull()
    expect(app.saved().sessions).toEqual([])
  })

  it('works as a public client too (no secret: PKCE alone)', async () => {
    const app = await siteApp({ clientId: PUBLIC_SITE_CLIENT, clientSecret: null })
    const { location, browser } = await app.begin()
    expect(location.searchParams.get('client_id')).toBe(PUBLIC_SITE_CLIENT)
    const res = await app.callback(await provider.logIn(location, 'alice'), browser)
    expect(await app.signedInAs(setCookie(res, 'clubs_session')!)).toBe('alice.smith')
  })

  it('uses the audience as the client id when none is set', async () => {
    const app = await siteApp({ clientId: undefined })
    const { location } = await app.begin()
    expect(location.searchParams.get('client_id')).toBe(AUDIENCE)
  })

  it('sends a signed-in person straight on, and keeps next to this site', async () => {
    const app = await siteApp()
    const { location, browser } = await app.begin('//evil.example/')
    const res = await app.callback(await provider.logIn(location, 'alice'), browser)
    expect(res.headers.get('location')).toBe('/')
    const session = setCookie(res, 'clubs_session')!
    const again = await app.req('/auth/sign-in?next=/clubs/penn-chess-society', {
      headers: { ...HTML, cookie: `clubs_session=${session}` },
    })
    expect([again.status, again.headers.get('location')]).toEqual([303, '/clubs/penn-chess-society'])
  })
})

describe('next through the campus sign-in', () => {
  // As a browser reads a URL, tabs, CR and LF are dropped and `\\` is `/`: each of these is another host.
  const OFF_SITE = [
    '/\t/evil.example',
    '/\r\n/evil.example',
    '/\\evil.example',
    '/.//evil.example',
    'https://evil.example/',
  ]

  it('comes back to / for a next off this site, through the provider and when already signed in: never a 500', async () => {
    const app = await siteApp()
    let session = ''
    for (const next of OFF_SITE) {
      const { location, browser } = await app.begin(next)
      const res = await app.callback(await provider.logIn(location, 'alice'), browser)
      expect([next, res.status, res.headers.get('location')]).toEqual([next, 303, '/'])
      session = setCookie(res, 'clubs_session')!
    }
    for (const next of [...OFF_SITE, '/%09/evil.example', '/%0D%0A/evil.example']) {
      const res = await app.req(`/auth/sign-in?next=${next.includes('%') ? next : encodeURIComponent(next)}`, {
        headers: { ...HTML, cookie: `clubs_session=${session}` },
      })
      expect([next, res.status, res.headers.get('location')]).toEqual([next, 303, '/'])
    }
  })

  it('keeps a path of this site through the provider, its query and fragment too, and one with a NUL percent-encoded', async () => {
    const app = await siteApp()
    for (const [next, kept] of [
      ['/clubs/penn-chess-society?x=1#y', '/clubs/penn-chess-society?x=1#y'],
      ['/clubs/a\0b', '/clubs/a%00b'],
    ]) {
      const { location, browser } = await app.begin(next)
      const res = await app.callback(await provider.logIn(location, 'alice'), browser)
      expect([res.status, res.headers.get('location')]).toEqual([303, kept])
    }
  })
})

describe('refused campus sign-ins: a 400 page, no session', () => {
  it('refuses a wrong state', async () => {
    const app = await siteApp()
    const { location, browser } = await app.begin()
    const back = await provider.logIn(location, 'alice')
    back.searchParams.set('state', 'a-state-this-site-never-made')
    await expectRefused(app, await app.callback(back, browser), 'This sign-in has expired or was already used.')
  })

  it('refuses a callback without a state', async () => {
    const app = await siteApp()
    const { location, browser } = await app.begin()
    const back = await provider.logIn(location, 'alice')
    back.searchParams.delete('state')
    await expectRefused(app, await app.callback(back, browser), 'The campus sign-in did not complete')
  })

  it('refuses a reused state: the callback URL visited again after signing in', async () => {
    const app = await siteApp()
    const { location, browser } = await app.begin()
    const back = await provider.logIn(location, 'alice')
    expect((await app.callback(back, browser)).status).toBe(303)
    await expectRefused(app, await app.callback(back, browser), 'This sign-in has expired or was already used.', 1)
  })

  it('refuses to finish a sign-in in a browser that did not begin it, which can still finish it', async () => {
    const app = await siteApp()
    const { location, browser } = await app.begin()
    const back = await provider.logIn(location, 'alice')
    await expectRefused(app, await app.callback(back, null), 'This sign-in was begun in another browser.')
    await expectRefused(app, await app.callback(back, 'another-browsers-cookie'), 'begun in another browser')
    expect((await app.callback(back, browser)).status).toBe(303)
  })

  it('refuses a replayed code: a code already redeemed, brought back with a new sign-in’s state', async () => {
    const app = await siteApp()
    const first = await app.begin()
    const used = await provider.logIn(first.location, 'alice')
    expect((await app.callback(used, first.browser)).status).toBe(303)
    // Someone who saw the first callback URL begins a sign-in and sends that code with its own state.
    const second = await app.begin()
    const replay = new URL(used)
    replay.searchParams.set('state', second.location.searchParams.get('state')!)
    await expectRefused(app, await app.callback(replay, second.browser), 'The campus sign-in did not complete', 1)
  })

  it('refuses a code issued to another client (another site at the same provider)', async () => {
    const app = await siteApp()
    const { location, browser } = await app.begin()
    const forOther = new URL(location)
    forOther.searchParams.set('client_id', OTHER_SITE_CLIENT)
    await expectRefused(app, await app.callback(await provider.logIn(forOther, 'alice'), browser), 'did not complete')
  })

  // The provider's ID token, its claims edited and signed again with the provider's key, or replaced.
  // openid-client does not check the signature of an ID token it fetched itself; docs/reference.md §13's checks do.
  const edits: [string, IdTokenEdit, number][] = [
    ['takes the ID token signed again unchanged (so each refusal below is its edit’s)', (claims) => claims, 303],
    ['refuses an ID token with another nonce', (claims) => ({ ...claims, nonce: 'a-nonce-of-another-sign-in' }), 400],
    [
      'refuses an ID token for another audience (another client)',
      (claims) => ({ ...claims, aud: OTHER_SITE_CLIENT }),
      400,
    ],
    [
      'refuses an ID token for the API’s audience rather than the site’s',
      (claims) => ({ ...claims, aud: AUDIENCE }),
      400,
    ],
    ['refuses an expired ID token', (claims) => ({ ...claims, iat: claims.iat! - 900, exp: claims.iat! - 600 }), 400],
    [
      'refuses an ID token from another issuer',
      (claims) => ({ ...claims, iss: 'https://login.elsewhere.example.edu' }),
      400,
    ],
    [
      'refuses an ID token signed with a key the provider never published',
      async (claims) => {
        const { privateKey } = await generateKeyPair('RS256')
        const kid = provider.keys().find((key) => key.alg === 'RS256')!.kid
        return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey)
      },
      400,
    ],
    [
      'refuses an ID token with its claims changed after signing (made an admin)',
      (claims) => provider.sign(claims).then((token) => tampered(token, { ...claims, groups: [ADMIN_GROUP] })),
      400,
    ],
    [
      'refuses an unsigned ID token (alg none)',
      async (claims) => `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`,
      400,
    ],
  ]
  for (const [label, edit, status] of edits)
    it(label, async () => {
      const app = await siteApp()
      const { location, browser } = await app.begin()
      provider.editIdTokens(edit)
      try {
        const res = await app.callback(await provider.logIn(location, 'alice'), browser)
        if (status === 400) await expectRefused(app, res, 'did not complete')
        else expect(res.status).toBe(status)
      } finally {
        provider.editIdTokens(null)
      }
    })

  it('refuses the reserved username admin, as for bearer tokens', async () => {
    const app = await siteApp()
    const { location, browser } = await app.begin()
    const res = await app.callback(await provider.logIn(location, 'impostor'), browser)
    expect(res.status).toBe(400)
    expect(await res.text()).toContain('The username &quot;admin&quot; is reserved.')
    expect(setCookie(res, 'clubs_session')).toBeUndefined()
  })

  it('refuses a sign-in the person declined at the provider', async () => {
    const app = await siteApp()
    const { location, browser } = await app.begin()
    const back = new URL('http://localhost/auth/callback')
    back.searchParams.set('error', 'access_denied')
    back.searchParams.set('state', location.searchParams.get('state')!)
    back.searchParams.set('iss', provider.issuer)
    await expectRefused(app, await app.callback(back, browser), 'did not complete')
  })
})

describe('a provider that cannot be asked', () => {
  it('answers a 503 page to Sign in, and the token form still works', async () => {
    const app = await siteApp({ issuer: `http://127.0.0.1:${freePort()}` })
    const res = await app.req('/auth/sign-in', { headers: HTML })
    expect(res.status).toBe(503)
    expect(await res.text()).toContain('The campus sign-in service cannot be reached.')
    const { bob: token } = await users(app, 'bob')
    const signIn = await app.req('/sign-in', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, next: '/' }),
    })
    expect(signIn.status).toBe(303)
    expect(setCookie(signIn, 'clubs_session')).toBeDefined()
  })
})
