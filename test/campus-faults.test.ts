import { afterEach, describe, expect, it } from 'bun:test'
import type { Subprocess } from 'bun'
import { join } from 'node:path'
import { ADMIN_TOKEN, makeApp, readJson, SEED_FILE, tempDir } from '../harness/app'
import { AUDIENCE, campusSettings, startProvider, type TestProvider } from '../harness/oidc-provider'
import { freePort, spawnService, waitForHealth } from '../harness/service'
import { CampusSignIn } from '../src/edge/oidc'
import { users } from '../harness/users'

// The campus identity provider out of reach, at start or later (issue 13, "Faults"): the service
// starts and serves reads and service tokens; a JWT whose key it does not hold gets 503 with
// Retry-After (it cannot be judged, which is not the caller's fault), until the provider answers.

const PEOPLE = { alice: { claims: { preferred_username: 'alice' } } }
const REFETCH_MS = 10_000

const providers: TestProvider[] = []
const processes: Subprocess[] = []

afterEach(async () => {
  for (const provider of providers.splice(0)) await provider.stop()
  for (const proc of processes.splice(0)) {
    proc.kill('SIGKILL')
    await proc.exited
  }
})

async function provider(port?: number) {
  const started = await startProvider(PEOPLE, port)
  providers.push(started)
  return started
}

/** The app with campus sign-in for an issuer on 127.0.0.1:`port`, its first key fetch done (or failed). */
async function campusApp(port: number) {
  let now = Date.now()
  const problems: string[] = []
  const campus = new CampusSignIn(campusSettings(`http://127.0.0.1:${port}`), {
    now: () => now,
    refetchIntervalMs: REFETCH_MS,
    onLoad: (outcome) => void ('problem' in outcome && problems.push(outcome.problem)),
  })
  await campus.keys.load()
  const app = await makeApp({ campus })
  return { ...app, problems, advance: (ms: number) => void (now += ms) }
}

describe('the identity provider out of reach', () => {
  it('at start: reads and service tokens are served, JWTs get 503 with Retry-After until it answers', async () => {
    const port = freePort()
    const { req, admin, problems, advance } = await campusApp(port)
    expect(problems).toEqual([expect.stringContaining(`http://127.0.0.1:${port}/.well-known/openid-configuration`)])

    expect((await req('/api/clubs/')).status).toBe(200)
    const { bob } = await users({ admin }, 'bob')
    expect((await req('/api/users/me/', { token: bob })).status).toBe(200)

    const up = await provider(port)
    const jwt = await up.token('alice')
    const early = await req('/api/users/me/', { token: jwt })
    expect(early.status).toBe(503)
    expect(Number(early.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(Number(early.headers.get('retry-after'))).toBeLessThanOrEqual(REFETCH_MS / 1000)
    expect((await readJson(early)).detail).toContain('identity provider')
    // Within the interval the provider is not asked again, however many JWTs come.
    expect(up.requests).toEqual(['/token'])

    advance(REFETCH_MS)
    expect(await readJson(await req('/api/users/me/', { token: jwt }))).toEqual({ username: 'alice', is_admin: false })
  })

  it('later: tokens signed with a key already fetched are still taken; an unknown key gets 503', async () => {
    const up = await provider()
    const { req, advance } = await campusApp(up.port)
    const jwt = await up.token('alice')
    expect((await req('/api/users/me/', { token: jwt })).status).toBe(200)
    await up.rotate()
    const rotated = await up.token('alice')
    await up.stop()

    advance(REFETCH_MS)
    expect((await req('/api/users/me/', { token: jwt })).status).toBe(200)
    const unknown = await req('/api/users/me/', { token: rotated })
    expect(unknown.status).toBe(503)
    expect(unknown.headers.get('retry-after')).toBe(String(REFETCH_MS / 1000))
  })

  it('a service process starts without it, says so in a warning, and serves service tokens', async () => {
    const port = freePort()
    const dir = tempDir('clubs-campus-down-')
    const proc = spawnService(
      port,
      {
        CLUBS_DATA_FILE: join(dir, 'db.json'),
        CLUBS_SEED_FILE: SEED_FILE,
        CLUBS_ADMIN_TOKEN: ADMIN_TOKEN,
        CLUBS_LOG_LEVEL: 'info',
        CLUBS_OIDC_ISSUER: `http://127.0.0.1:${freePort()}`,
        CLUBS_OIDC_AUDIENCE: AUDIENCE,
      },
      { stdout: 'pipe', stderr: 'pipe' },
    )
    processes.push(proc)
    const base = `http://127.0.0.1:${port}`
    await waitForHealth(base, proc)
    const get = (path: string, token: string) => fetch(base + path, { headers: { authorization: `Bearer ${token}` } })
    expect((await get('/api/users/me/', ADMIN_TOKEN)).status).toBe(200)
    const jwt = await get('/api/users/me/', 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJ4In0.c2ln')
    expect(jwt.status).toBe(503)
    expect(jwt.headers.get('retry-after')).toMatch(/^\d+$/)

    proc.kill('SIGTERM')
    await proc.exited
    const lines = (await new Response(proc.stdout as ReadableStream).text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    const warning = lines.find((line) => line.level === 'warn' && String(line.msg).startsWith('campus sign-in'))
    expect(warning).toMatchObject({
      issuer: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      problem: expect.any(String),
    })
  })
})
