// Times authentication (issue 13, "Show"): N requests through app.handle with a service token,
// and with campus JWTs checked against keys already cached (RS256 and ES256, from a real
// oidc-provider on loopback), and counts the requests the provider got meanwhile (none: a JWT
// check costs no round trip).
//   npx bun scripts/auth-timing.ts [N]
import { makeApp, readJson } from '../harness/app'
import { ADMIN_GROUP, AUDIENCE, startProvider } from '../harness/oidc-provider'
import { CampusSignIn } from '../src/edge/oidc'
import { answerHelp } from '../src/command-help'

answerHelp(`usage: npx bun scripts/auth-timing.ts [N]

Times N requests (default 2000) through the app with a service token and with campus JWTs
(RS256, ES256) checked against cached keys of a real OpenID provider on loopback.`)

const N = Number(Bun.argv[2] ?? 2000)
const WARM_UP = 200

const provider = await startProvider({
  alice: { claims: { preferred_username: 'alice' } },
  dean: { claims: { preferred_username: 'dean', groups: [ADMIN_GROUP] }, alg: 'ES256' },
})
const campus = new CampusSignIn({
  issuer: provider.issuer,
  audience: AUDIENCE,
  usernameClaim: 'preferred_username',
  groupsClaim: 'groups',
  adminGroup: ADMIN_GROUP,
})
await campus.keys.load()
const { app, admin } = await makeApp({ campus })
const serviceToken = (await readJson(await admin.post('/api/users/', { username: 'bob' }))).token as string

const callers = {
  'service token': serviceToken,
  'campus JWT, RS256, cached key': await provider.token('alice'),
  'campus JWT, ES256, cached key': await provider.token('dean'),
}

/** Microseconds per request, one at a time, of GET /api/users/me/ with `token`. */
async function time(token: string, n: number): Promise<number[]> {
  const request = () => new Request('http://localhost/api/users/me/', { headers: { authorization: `Bearer ${token}` } })
  const took: number[] = []
  for (let i = 0; i < n; i++) {
    const started = performance.now()
    const res = await app.handle(request())
    if (res.status !== 200) throw new Error(`answered ${res.status}`)
    took.push((performance.now() - started) * 1000)
  }
  return took
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
const fmt = (us: number) => us.toFixed(1).padStart(8)

console.log(`GET /api/users/me/ through app.handle, ${N} requests each, one at a time (µs per request)`)
console.log(`${'caller'.padEnd(32)}    mean     p50     p99   req/s`)
for (const [label, token] of Object.entries(callers)) {
  await time(token, WARM_UP)
  const asked = provider.requests.length
  const took = await time(token, N)
  const sorted = [...took].sort((a, b) => a - b)
  const mean = took.reduce((a, b) => a + b, 0) / took.length
  const extra = provider.requests.length - asked
  console.log(
    `${label.padEnd(32)}${fmt(mean)}${fmt(quantile(sorted, 0.5))}${fmt(quantile(sorted, 0.99))}${String(Math.round(1e6 / mean)).padStart(8)}` +
      (extra ? `  (${extra} requests to the provider!)` : ''),
  )
}
console.log(`requests to the provider during the timed loops: none unless noted above`)
await provider.stop()
process.exit(0)
