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

  it('never limits /health', async () => {
    const { req } = await makeApp({ config: { rateLimit: 1 } })
    for (let i = 0; i < 10; i++) expect((await req('/health')).status).toBe(200)
  })
})
