// An error no rule expects (a bug, a broken dependency) is answered with the reference's 500 and
// logged once; the write it interrupted leaves nothing behind. The endpoints answer every error
// themselves (src/edge/endpoint.ts), on the asynchronous path too.
import { expect, test } from 'bun:test'
import { createApp } from '../src/app'
import { openDataFile } from '../src/data-file'
import { IN_MEMORY } from '../src/store/store'
import { ADMIN_TOKEN, readJson, SEED_FILE } from '../harness/app'
import { LogoMemory } from '../src/store/logo-store'

test('a fault while creating a club: the reference 500, logged, and no club', async () => {
  const faults: { error: string; method: string; url: string }[] = []
  const { store, data } = await openDataFile(IN_MEMORY, SEED_FILE)
  const app = createApp({
    store,
    data,
    logos: new LogoMemory(),
    config: { adminToken: ADMIN_TOKEN, autoApprove: false, readOnly: false },
    now: () => {
      throw new Error('the clock broke')
    },
    logFault: (error, request) => faults.push({ error: String(error), method: request.method, url: request.url }),
  })
  const res = await app.handle(
    new Request('http://localhost/api/clubs/', {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Clockwork Club' }),
    }),
  )
  expect(res.status).toBe(500)
  expect(res.headers.get('content-type')).toBe('application/json')
  expect(res.headers.get('allow')).toBe('GET, POST')
  expect(await readJson(res)).toEqual({ detail: 'Internal server error.' })
  expect(faults).toEqual([{ error: 'Error: the clock broke', method: 'POST', url: 'http://localhost/api/clubs/' }])
  expect((await app.handle(new Request('http://localhost/api/clubs/clockwork-club/'))).status).toBe(404)
})
