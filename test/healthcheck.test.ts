import { describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { probeHost } from '../src/healthcheck'
import { freePort, ROOT, spawnService, stopService, waitForHealth } from '../harness/service'

describe('the container health check asks where the server listens (HOST)', () => {
  it.each([
    [undefined, '127.0.0.1'],
    ['0.0.0.0', '127.0.0.1'],
    ['::', '[::1]'],
    ['::1', '[::1]'],
    ['127.0.0.2', '127.0.0.2'],
    ['clubs.internal', 'clubs.internal'],
  ])('HOST=%p → %s', (host, expected) => {
    expect(probeHost(host)).toBe(expected)
  })

  it('passes against a server on HOST=127.0.0.2, which 127.0.0.1 would not reach', async () => {
    const port = freePort()
    const proc = spawnService(port, { CLUBS_DATA_FILE: ':memory:', HOST: '127.0.0.2', CLUBS_LOG_LEVEL: 'warn' })
    try {
      await waitForHealth(`http://127.0.0.2:${port}`, proc)
      const check = (host: string) =>
        Bun.spawnSync([process.execPath, join(ROOT, 'src', 'healthcheck.ts')], {
          env: { ...process.env, PORT: String(port), HOST: host },
        }).exitCode
      expect(check('127.0.0.2')).toBe(0)
      expect(check('0.0.0.0')).toBe(1)
    } finally {
      await stopService(proc)
    }
  })
})
