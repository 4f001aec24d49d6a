import { describe, expect, it } from 'bun:test'
import { ADMIN_TOKEN, makeApp, readJson } from '../harness/app'

describe('rate limit (CLUBS_RATE_LIMIT)', () => {
  it('is off by default: many requests, no 429', async () => {
    const { req } = await makeApp()
    const statuses = await Promise.all(
      Array.from({ length: 200 }, () => req('/api/clubs/?fields=code').then((r) => r.status)),
    )
    expect(new Set(statuses)).toEqual(new Set([200]))
  })

  it('answers 429 with Retry-After and a detail past the limit, per caller', async () => {
    const { req } = await makeApp({ config: { rateLimit: 5 } })
    const first = await Promise.all(Array.from({ length: 5 }, () => req('/api/tags/')))
    expect(first.map((r) => r.status)).toEqual([200, 200, 200, 200, 200])
    const refused = await req('/api/tags/')
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(await readJson(refused)).toEqual({
      detail: expect.stringMatching(/^Request was throttled\. Expected available in \d+ seconds?\.$/),
    })
    // Another caller (the admin's token) has a bucket of its own.
    expect((await req('/api/tags/', { token: ADMIN_TOKEN })).status).toBe(200)
  })

  it.each(['/health', '/livez', '/readyz'])('never limits the probe %s', async (path) => {
    const { req } = await makeApp({ config: { rateLimit: 1 } })
    for (let i = 0; i < 10; i++) expect((await req(path)).status).toBe(200)
  })

  it('keys on the user a token names, however the scheme is spelled', async () => {
    const { app } = await makeApp({ config: { rateLimit: 3 } })
    const statuses = []
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'Bearer ', 'bEaReR'])
      statuses.push(
        (
          await app.handle(
            new Request('http://localhost/api/tags/', { headers: { authorization: `${scheme} ${ADMIN_TOKEN}` } }),
          )
        ).status,
      )
    expect(statuses).toEqual([200, 200, 200, 429, 429])
  })

  it('counts every wrong token against the address it comes from, so guessing is limited', async () => {
    const { app } = await makeApp({ config: { rateLimit: 3 } })
    const statuses = []
    for (let i = 0; i < 6; i++)
      statuses.push(
        (
          await app.handle(
            new Request('http://localhost/api/tags/', { headers: { authorization: `Bearer guess-${i}` } }),
          )
        ).status,
      )
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429])
  })
})
