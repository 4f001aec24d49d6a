import { describe, expect, it } from 'bun:test'
import { makeApp, readJson } from '../harness/app'

describe('smoke', () => {
  it('lists the sample clubs anonymously', async () => {
    const { req } = await makeApp()
    const res = await req('/api/clubs/')
    expect(res.status).toBe(200)
    const body = await readJson(res)
    expect(body.length).toBeGreaterThan(60)
  })
})
