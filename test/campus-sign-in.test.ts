import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { exportSPKI, generateKeyPair, importJWK, SignJWT } from 'jose'
import { ADMIN_GROUP, AUDIENCE, campusSettings, startProvider, type TestProvider } from '../harness/oidc-provider'
import { makeApp, readJson, tempDir } from '../harness/app'
import { fitUsername } from '../src/domain/users'
import { CampusSignIn } from '../src/edge/oidc'
import { directoryOnDisk } from '../harness/on-disk'
import { users } from '../harness/users'
import { until } from '../harness/webhook-receiver'

// Campus sign-in (docs/reference.md §13) against a real OpenID provider on loopback: its tokens come from
// its token endpoint (client credentials with a resource indicator, so the access token is a JWT
// for the API's audience). The refusals are tokens the test signs with jose, most of them with
// the provider's own key, so that each breaks exactly one rule.

const PEOPLE = {
  alice: { claims: { preferred_username: 'Alice.Smith', groups: ['students'] } },
  dean: { claims: { preferred_username: 'dean', groups: ['staff', ADMIN_GROUP] }, alg: 'ES256' as const },
  nameless: { claims: { groups: ['students'] } },
  impostor: { claims: { preferred_username: 'Admin' } },
}

let provider: TestProvider

beforeAll(async () => {
  provider = await startProvider(PEOPLE)
})
afterAll(async () => {
  await provider.stop()
})

/** A clock the key cache reads, moved by hand: the refetch interval without waiting for it. */
function manualClock() {
  let now = Date.now()
  return { now: () => now, advance: (ms: number) => void (now += ms) }
}

const REFETCH_MS = 10_000

/** The app with campus sign-in against `provider`, its keys loaded as at start-up. */
async function campusApp(options: { dataFile?: string; readOnly?: boolean } = {}) {
  const clock = manualClock()
  const campus = new CampusSignIn(campusSettings(provider.issuer), { now: clock.now, refetchIntervalMs: REFETCH_MS })
  await campus.keys.load()
  const app = await makeApp({ dataFile: options.dataFile, campus, config: { readOnly: options.readOnly ?? false } })
  return { ...app, clock, campus }
}

const jwksFetches = () => provider.requests.filter((path) => path === '/jwks').length

const b64 = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')
const seconds = () => Math.floor(Date.now() / 1000)

describe('campus sign-in with the provider’s tokens', () => {
  it('authenticates an RS256 access token from the token endpoint, its username fitted to the username rule', async () => {
    const { req } = await campusApp()
    const res = await req('/api/users/me/', { token: await provider.token('alice') })
    expect(res.status).toBe(200)
    expect(await readJson(res)).toEqual({ username: 'alice.smith', is_admin: false })
  })

  it('makes a member of the admin group an admin for the request (an ES256 token): they approve clubs', async () => {
    const { req, admin } = await campusApp()
    const dean = await provider.token('dean')
    expect(await readJson(await req('/api/users/me/', { token: dean }))).toEqual({ username: 'dean', is_admin: true })
    const created = await admin.post('/api/clubs/', { name: 'Campus Circle' })
    const approved = await req('/api/clubs/campus-circle/', { method: 'PATCH', token: dean, json: { approved: true } })
    expect([created.status, approved.status]).toEqual([201, 200])
    expect((await readJson(approved)).approved_by).toBe('dean')
  })

  it('does not make an admin of a user outside the admin group', async () => {
    const { req } = await campusApp()
    const res = await req('/api/users/', { token: await provider.token('alice') })
    expect(res.status).toBe(403)
  })

  it('records a campus user on their first request only, with no token of the service’s', async () => {
    const dir = tempDir('clubs-campus-')
    const file = join(dir, 'db.json')
    const { req, admin } = await campusApp({ dataFile: file })
    const token = await provider.token('alice')
    // Not a user yet: a club cannot take them as a member.
    await admin.post('/api/clubs/', { name: 'Chess Circle' })
    expect((await admin.post('/api/clubs/chess-circle/members/', { username: 'alice.smith' })).status).toBe(400)

    expect((await req('/api/clubs/', { token })).status).toBe(200)
    const users = () => directoryOnDisk(file).users as Record<string, unknown>[]
    expect(users().filter((user) => user.username === 'alice.smith')).toEqual([
      { username: 'alice.smith', is_admin: false, token_sha256: null, created_at: expect.any(String) },
    ])
    const written = statSync(file).mtimeMs
    for (let i = 0; i < 20; i++) expect((await req('/api/favorites/', { token })).status).toBe(200)
    expect(statSync(file).mtimeMs).toBe(written)

    expect(await readJson(await admin.get('/api/users/'))).toContainEqual({
      username: 'alice.smith',
      is_admin: false,
      is_active: true,
    })
    expect((await admin.post('/api/clubs/chess-circle/members/', { username: 'alice.smith' })).status).toBe(201)
    const favorite = await req('/api/favorites/', { method: 'POST', token, json: { club: 'penn-chess-society' } })
    expect(favorite.status).toBe(201)
  })

  it('records nobody in a read-only directory, and still lets campus users read as themselves', async () => {
    const { req, admin } = await campusApp({ readOnly: true })
    expect((await req('/api/users/me/', { token: await provider.token('alice') })).status).toBe(200)
    expect(await readJson(await admin.get('/api/users/'))).not.toContainEqual({
      username: 'alice.smith',
      is_admin: false,
    })
  })

  it('does not serve an admin’s cached list to the same user signed in without the admin group', async () => {
    const { req, admin } = await campusApp()
    const { dean: token } = await users({ admin }, 'dean')
    await admin.post('/api/clubs/', { name: 'Pending Circle' })
    const codes = async (token: string) =>
      ((await readJson(await req('/api/clubs/?search=pending', { token }))) as { code: string }[]).map((c) => c.code)
    expect(await codes(await provider.token('dean'))).toEqual(['pending-circle'])
    expect(await codes(token)).toEqual([])
  })

  it('keeps service tokens working beside campus sign-in', async () => {
    const { req, admin } = await campusApp()
    const { bob: token } = await users({ admin }, 'bob')
    expect(await readJson(await req('/api/users/me/', { token }))).toEqual({ username: 'bob', is_admin: false })
  })
})

describe('refused campus tokens: each a 401, never a 500', () => {
  const now = seconds()
  const refusals: { label: string; token: () => Promise<string>; detail: string | RegExp }[] = [
    {
      label: 'expired',
      token: () => provider.sign({ preferred_username: 'alice', iat: now - 600, exp: now - 60 }),
      detail: 'The token has expired.',
    },
    {
      label: 'not yet valid (nbf)',
      token: () => provider.sign({ preferred_username: 'alice', nbf: now + 300 }),
      detail: 'The token is not valid yet.',
    },
    {
      label: 'without exp',
      token: () => provider.sign({ preferred_username: 'alice', exp: undefined }),
      detail: /"exp"/,
    },
    {
      label: 'for another audience',
      token: () => provider.sign({ preferred_username: 'alice', aud: 'https://elsewhere.example.edu/api' }),
      detail: 'The token is not meant for this service (audience).',
    },
    {
      label: 'from another issuer, with the provider’s own key',
      token: () => provider.sign({ preferred_username: 'alice', iss: 'https://login.elsewhere.example.edu' }),
      detail: 'The token is not from the configured issuer.',
    },
    {
      label: 'with alg none',
      token: async () =>
        `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iss: provider.issuer, aud: AUDIENCE, exp: now + 300, preferred_username: 'alice' })}.`,
      detail: 'The token is not signed with RS256 or ES256.',
    },
    {
      label: 'HMAC-signed with the provider’s public key as the secret',
      token: async () => {
        const key = provider.keys().find((k) => k.alg === 'RS256')!
        const pem = await exportSPKI((await importJWK(key.publicJwk, 'RS256')) as CryptoKey)
        return new SignJWT({ preferred_username: 'alice', groups: [ADMIN_GROUP] })
          .setProtectedHeader({ alg: 'HS256', kid: key.kid })
          .setIssuer(provider.issuer)
          .setAudience(AUDIENCE)
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode(pem))
      },
      detail: 'The token is not signed with RS256 or ES256.',
    },
    {
      label: 'with a tampered payload (made an admin)',
      token: async () => {
        const [header, payload, signature] = (await provider.token('alice')).split('.')
        const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString())
        return `${header}.${b64({ ...claims, groups: [ADMIN_GROUP] })}.${signature}`
      },
      detail: "The token's signature does not verify.",
    },
    {
      label: 'signed with a key the issuer never published',
      token: async () => {
        const { privateKey } = await generateKeyPair('RS256')
        return new SignJWT({ preferred_username: 'alice', iss: provider.issuer, aud: AUDIENCE, exp: now + 300 })
          .setProtectedHeader({ alg: 'RS256', kid: 'never-published' })
          .sign(privateKey)
      },
      detail: "The token's signing key is not one the issuer publishes.",
    },
    {
      label: 'signed with another key under a published key id',
      token: async () => {
        const { privateKey } = await generateKeyPair('ES256')
        return new SignJWT({ preferred_username: 'alice', iss: provider.issuer, aud: AUDIENCE, exp: now + 300 })
          .setProtectedHeader({ alg: 'ES256', kid: provider.keys().find((k) => k.alg === 'ES256')!.kid })
          .sign(privateKey)
      },
      detail: "The token's signature does not verify.",
    },
    {
      label: 'whose header is not JSON',
      token: async () => `${b64('{not json')}.${b64({})}.c2ln`,
      detail: 'Invalid token.',
    },
    { label: 'whose parts are not base64url', token: async () => 'a.b.c', detail: 'Invalid token.' },
    {
      label: 'with a 10 KiB header',
      token: async () => `${b64({ alg: 'RS256', kid: 'x', pad: 'x'.repeat(10 * 1024) })}.${b64({})}.c2ln`,
      detail: 'The token is too large.',
    },
    {
      label: 'with no username claim',
      token: () => provider.token('nameless'),
      detail: 'The token has no usable "preferred_username" claim.',
    },
    {
      label: 'naming the bootstrap admin',
      token: () => provider.token('impostor'),
      detail: 'The username "admin" is reserved.',
    },
  ]

  for (const { label, token, detail } of refusals) {
    it(`refuses a token ${label}`, async () => {
      const { req } = await campusApp()
      for (const path of ['/api/users/me/', '/api/clubs/']) {
        const res = await req(path, { token: await token() })
        expect(res.status).toBe(401)
        expect(res.headers.get('www-authenticate')).toStartWith('Bearer')
        expect((await readJson(res)).detail).toMatch(detail)
      }
    })
  }
})

describe('the provider’s keys', () => {
  it('checks a token with the cached keys: no round trip to the provider per request', async () => {
    const { req } = await campusApp()
    const token = await provider.token('alice')
    const before = provider.requests.length
    for (let i = 0; i < 50; i++) expect((await req('/api/users/me/', { token })).status).toBe(200)
    expect(provider.requests.length).toBe(before)
  })

  it('takes a token signed with a key the provider rotated in, fetching the keys once more', async () => {
    const { req, clock } = await campusApp()
    const old = await provider.token('alice')
    expect((await req('/api/users/me/', { token: old })).status).toBe(200)
    await provider.rotate()
    const rotated = await provider.token('alice')
    expect(JSON.parse(Buffer.from(rotated.split('.')[0]!, 'base64url').toString()).kid).toBe(provider.keys()[0]!.kid)

    clock.advance(REFETCH_MS)
    const fetched = jwksFetches()
    expect((await req('/api/users/me/', { token: rotated })).status).toBe(200)
    expect((await req('/api/users/me/', { token: rotated })).status).toBe(200)
    expect((await req('/api/users/me/', { token: old })).status).toBe(200)
    expect(jwksFetches()).toBe(fetched + 1)
  })

  it('fetches keys ten minutes old again in the background, answering from the cached ones meanwhile', async () => {
    const { req, clock } = await campusApp()
    const token = await provider.token('alice')
    const fetched = jwksFetches()
    clock.advance(10 * 60_000 + 1)
    expect((await req('/api/users/me/', { token })).status).toBe(200)
    await until(() => jwksFetches() > fetched, 'the keys fetched again in the background')
    expect((await req('/api/users/me/', { token })).status).toBe(200)
    expect(jwksFetches()).toBe(fetched + 1)
  })

  it('fetches the keys again at most once per interval, however many unknown keys are named', async () => {
    const { req, clock } = await campusApp()
    const fetched = jwksFetches()
    const strangers = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const { privateKey } = await generateKeyPair('ES256')
        return new SignJWT({ preferred_username: 'eve', iss: provider.issuer, aud: AUDIENCE, exp: seconds() + 300 })
          .setProtectedHeader({ alg: 'ES256', kid: `stranger-${i}` })
          .sign(privateKey)
      }),
    )
    clock.advance(REFETCH_MS)
    const answers = await Promise.all(strangers.map((token) => req('/api/users/me/', { token })))
    expect(answers.map((res) => res.status)).toEqual(strangers.map(() => 401))
    for (const token of strangers) expect((await req('/api/users/me/', { token })).status).toBe(401)
    expect(jwksFetches()).toBe(fetched + 1)
  })
})

describe('fitting a provider’s username to the username rule', () => {
  const table: [string, string | null][] = [
    ['alice', 'alice'],
    ['Alice.Smith', 'alice.smith'],
    ['alice@campus.example.edu', 'alice-campus.example.edu'],
    ['José Núñez', 'jose-nunez'],
    ['  _bob_ ', 'bob_-'],
    ['o’brien', 'o-brien'],
    ['x'.repeat(80), 'x'.repeat(64)],
    ['---', null],
    ['', null],
    ['李', null],
  ]
  for (const [name, fitted] of table)
    it(`makes ${JSON.stringify(name)} ${JSON.stringify(fitted)}`, () => {
      const username = fitUsername(name)
      expect(username).toBe(fitted)
      if (username !== null) expect(username).toMatch(/^[a-z0-9][a-z0-9._-]{0,63}$/)
    })
})
