import { afterEach, describe, expect, it } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { ADMIN_TOKEN, makeApp, NOW, readJson, SEED_FILE, tempDir } from '../harness/app'
import { freePort, sleep, spawnService, stopService, waitForHealth } from '../harness/service'
import { heldReceiver, startReceiver, until } from '../harness/webhook-receiver'
import { snapshotProblem } from '../src/domain/snapshot-format'
import { isPublicAddress } from '../src/domain/webhook-targets'
import { MAX_WAITING } from '../src/domain/webhooks'
import { attemptDelivery, signature } from '../src/edge/webhook-sender'
import { directoryOnDisk } from '../harness/on-disk'
import { blockWrites } from '../harness/write-fault'
import { users } from '../harness/users'

// Webhooks (docs/reference.md §18): admins add them; every change to what the public sees is POSTed to
// each webhook that wants its type, signed as the Standard Webhooks specification says (checked
// here with its own package), retried on the schedule with the same webhook-id, and kept on
// disk until delivered. Receivers are real servers on 127.0.0.1, so these apps allow private
// targets unless a test is about refusing them; the retry schedule is shortened (the real one
// waits hours).

const CHESS_URL = '/api/clubs/penn-chess-society/'
const ROBOTICS_URL = '/api/clubs/robotics-collective/'
const QUICK_RETRIES = [30, 30, 30]
const ALL_TYPES = ['club.added', 'club.changed', 'club.removed']
const seed = () => JSON.parse(readFileSync(SEED_FILE, 'utf8'))

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A receiver stopped after the test. */
function receiver(...args: Parameters<typeof startReceiver>) {
  const started = startReceiver(...args)
  cleanups.push(started.stop)
  return started
}

/** A receiver that answers nothing until released (after the test at the latest), then answers `status`. */
function hungReceiver(status = 200) {
  const hung = heldReceiver(status)
  cleanups.push(hung.stop)
  cleanups.unshift(hung.release)
  return { hung, release: hung.release }
}

/** The app on the real clock (deliveries are due by it), allowing receivers on this machine. */
async function world(options: { allowPrivate?: boolean; dataFile?: string; retries?: number[] } = {}) {
  const app = await makeApp({
    now: () => new Date(),
    config: { webhookAllowPrivate: options.allowPrivate ?? true },
    webhookRetries: options.retries ?? QUICK_RETRIES,
    dataFile: options.dataFile,
  })
  const addHook = async (body: Record<string, unknown>) => {
    const res = await app.admin.post('/api/webhooks/', body)
    expect(res.status).toBe(201)
    return (await readJson(res)) as { id: number; secret: string; url: string; events: string[] }
  }
  const deliveries = async (id: number) => readJson(await app.admin.get(`/api/webhooks/${id}/deliveries/`))
  const rename = async (url: string, subtitle: string) => {
    const res = await app.admin.patch(url, { subtitle })
    expect(res.status).toBe(200)
  }
  return { ...app, addHook, deliveries, rename }
}

/** The body of a request the receiver got, verified with the webhook's secret (throws when the signature is wrong). */
const verified = (secret: string, { headers, body }: { headers: Record<string, string>; body: string }) =>
  new Webhook(secret).verify(body, headers) as { seq: number; type: string; code: string; club: unknown }

/** Whether every delivery a data file keeps was attempted: no record unattempted, no event waiting for a first attempt. */
const everyOneAttempted = (saved: {
  webhook_deliveries: { attempts: number }[]
  webhook_events: { waiting?: number[] }[]
}) => saved.webhook_deliveries.every((d) => d.attempts > 0) && saved.webhook_events.every((e) => !e.waiting?.length)

describe('managing webhooks', () => {
  it('adds one with its secret shown once, lists and reads it without, and deletes it', async () => {
    const app = await world()
    const res = await app.admin.post('/api/webhooks/', {
      url: 'https://hooks.example.org/clubs',
      description: 'Mirror',
      events: ['club.removed', 'club.added'],
    })
    expect(res.status).toBe(201)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const made = await readJson(res)
    expect(made).toEqual({
      id: 1,
      url: 'https://hooks.example.org/clubs',
      description: 'Mirror',
      events: ['club.added', 'club.removed'],
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      created_at: expect.any(String),
      dropped_deliveries: 0,
    })
    expect(Buffer.from(made.secret.slice(6), 'base64')).toHaveLength(32)
    expect(res.headers.get('location')).toBe('http://localhost/api/webhooks/1/')
    const { secret: _, ...shown } = made
    expect(await readJson(await app.admin.get('/api/webhooks/'))).toEqual([shown])
    expect(await readJson(await app.admin.get('/api/webhooks/1/'))).toEqual(shown)
    expect(await readJson(await app.admin.get('/api/webhooks/1/deliveries/'))).toEqual([])
    // Every type when none is said.
    expect((await app.addHook({ url: 'http://hooks.example.org/all' })).events).toEqual(ALL_TYPES)
    expect((await app.admin.delete('/api/webhooks/1/')).status).toBe(204)
    expect((await app.admin.get('/api/webhooks/1/')).status).toBe(404)
    expect((await app.admin.delete('/api/webhooks/1/')).status).toBe(404)
    expect((await readJson(await app.admin.get('/api/webhooks/'))).map((hook: { id: number }) => hook.id)).toEqual([2])
  })

  it('answers anonymous callers 401 and users 403 on every operation', async () => {
    const app = await world()
    await app.addHook({ url: 'https://hooks.example.org/x' })
    const { alice: token } = await users(app, 'alice')
    const calls = [
      ['GET', '/api/webhooks/'],
      ['POST', '/api/webhooks/'],
      ['GET', '/api/webhooks/1/'],
      ['DELETE', '/api/webhooks/1/'],
      ['GET', '/api/webhooks/1/deliveries/'],
    ] as const
    for (const [method, path] of calls) {
      const json = method === 'POST' ? { url: 'https://hooks.example.org/y' } : undefined
      const anonymous = await app.req(path, { method, json })
      expect([method, path, anonymous.status]).toEqual([method, path, 401])
      expect(anonymous.headers.get('www-authenticate')).toStartWith('Bearer')
      const user = await app.req(path, { method, json, token })
      expect([method, path, user.status]).toEqual([method, path, 403])
    }
    expect(await readJson(await app.admin.get('/api/webhooks/'))).toHaveLength(1)
  })

  it.each([
    [{}, { url: ['This field is required.'] }],
    [{ url: 'not a url' }, { url: ['Enter a valid URL (http or https).'] }],
    [{ url: 'ftp://hooks.example.org/' }, { url: ['Enter a valid URL (http or https).'] }],
    [{ url: 'javascript:alert(1)' }, { url: ['Enter a valid URL (http or https).'] }],
    [{ url: 42 }, { url: ['Enter a valid URL (http or https).'] }],
    [
      { url: 'https://me:pw@hooks.example.org/' },
      { url: ['A webhook URL may not hold a user name or password: each delivery is signed instead.'] },
    ],
    [{ url: 'https://hooks.example.org/', events: [] }, { events: ['Choose at least one event type.'] }],
    [
      { url: 'https://hooks.example.org/', events: ['club.deleted'] },
      { events: ['Event type 1: "club.deleted" is not a valid choice.'] },
    ],
    [
      { url: 'https://hooks.example.org/', events: 'club.added' },
      { events: ['Expected a list of items but got type "string".'] },
    ],
    [
      { url: 'https://hooks.example.org/', description: 'x'.repeat(501) },
      { description: ['Ensure this field has no more than 500 characters.'] },
    ],
    [{ url: 'https://hooks.example.org/', secret: 'mine' }, { secret: ['Unknown field.'] }],
    [
      [],
      { non_field_errors: ['Send an object: {"url": "https://...", "description": "...", "events": ["club.added"]}.'] },
    ],
  ])('refuses %j with a 400 naming the field', async (body, errors) => {
    const app = await world()
    const res = await app.admin.post('/api/webhooks/', body)
    expect(res.status).toBe(400)
    expect(await readJson(res)).toEqual(errors)
    expect(await readJson(await app.admin.get('/api/webhooks/'))).toEqual([])
  })

  it.each([
    'http://127.0.0.1:8080/',
    'http://127.9.9.9/',
    'http://10.1.2.3/',
    'http://172.20.0.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://0.0.0.0/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://[::1]/',
    'http://[::]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:a00:1]/',
    'http://[fe80::1]/',
    'http://[fd12:3456::1]/',
    'http://[ff02::1]/',
    'http://localhost:3000/hook',
  ])('refuses %s, which is not a public address, unless private targets are allowed', async (url) => {
    const refusing = await world({ allowPrivate: false })
    const res = await refusing.admin.post('/api/webhooks/', { url })
    expect(res.status).toBe(400)
    expect((await readJson(res)).url[0]).toContain('loopback, private or link-local')
    const allowing = await world({ allowPrivate: true })
    expect((await allowing.admin.post('/api/webhooks/', { url })).status).toBe(201)
  })

  it('takes public addresses, and a host name that does not resolve yet', async () => {
    const app = await world({ allowPrivate: false })
    for (const url of ['https://93.184.215.14/hook', 'http://[2606:4700::1111]/', 'https://hooks.invalid/x'])
      expect([url, (await app.admin.post('/api/webhooks/', { url })).status]).toEqual([url, 201])
  })
})

describe('which addresses are public', () => {
  it.each([
    ['8.8.8.8', true],
    ['93.184.215.14', true],
    ['2606:4700::1111', true],
    ['::ffff:8.8.8.8', true],
    ['127.0.0.1', false],
    ['10.0.0.1', false],
    ['100.64.1.1', false],
    ['172.31.255.255', false],
    ['192.168.0.1', false],
    ['169.254.169.254', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['0.0.0.0', false],
    ['::', false],
    ['::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['::ffff:a9fe:a9fe', false],
    ['fe80::1', false],
    ['fc00::1', false],
    ['ff02::1', false],
    ['not an address', false],
  ])('%s: %p', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected)
  })
})

describe('delivering events', () => {
  it('POSTs each event signed as Standard Webhooks says, and records it delivered', async () => {
    const got = receiver()
    const app = await world()
    const hook = await app.addHook({ url: got.url })
    await app.rename(CHESS_URL, 'Signed and delivered')
    await until(() => got.received.length === 1, 'the delivery')
    const [request] = got.received
    expect(request!.headers['content-type']).toBe('application/json')
    expect(request!.headers['webhook-id']).toMatch(/^msg_/)
    expect(Number(request!.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2)
    const event = verified(hook.secret, request!)
    expect(event).toMatchObject({ type: 'club.changed', code: 'penn-chess-society' })
    expect((event.club as { subtitle: string }).subtitle).toBe('Signed and delivered')
    // Another secret's signature does not match.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(request!.body, request!.headers),
    ).toThrow()
    await until(async () => (await app.deliveries(hook.id))[0]?.status === 'delivered', 'the delivered status')
    expect(await app.deliveries(hook.id)).toEqual([
      {
        seq: event.seq,
        message_id: request!.headers['webhook-id'],
        status: 'delivered',
        attempts: 1,
        last_status_code: 200,
        last_error: null,
        next_attempt_at: null,
      },
    ])
  })

  it('saves what an attempt came to within a second, with no write of its own needed; delivered ones stay in memory', async () => {
    const got = receiver()
    const dir = tempDir('clubs-webhooks-')
    const dataFile = join(dir, 'db.json')
    const app = await world({ dataFile })
    const hook = await app.addHook({ url: got.url })
    await app.rename(CHESS_URL, 'Saved soon')
    await until(() => got.received.length === 1, 'the delivery')
    const onDisk = () => {
      const saved = directoryOnDisk(dataFile)
      const waits = (saved.webhook_events as { waiting?: number[] }[]).some((e) => e.waiting?.includes(hook.id))
      const record = ((saved.webhook_deliveries ?? []) as { webhook: number }[]).some((d) => d.webhook === hook.id)
      return waits || record
    }
    // Not attempted yet, the delivery is on disk as a webhook its event waits for.
    expect(onDisk()).toBe(true)
    // Delivered, it leaves the data file (only pending and failed deliveries are kept on disk):
    // within a second on an idle machine; the wait allows a loaded one, and no write comes meanwhile.
    await until(() => !onDisk(), 'the outcome on disk', 5_000)
    expect((await app.deliveries(hook.id))[0]?.status).toBe('delivered')
  })

  it('sends each webhook only the types it wants, and only events after it was added', async () => {
    const all = receiver()
    const removals = receiver()
    const app = await world()
    await app.rename(CHESS_URL, 'Before any webhook')
    const allHook = await app.addHook({ url: all.url })
    const removalHook = await app.addHook({ url: removals.url, events: ['club.removed'] })
    await app.rename(CHESS_URL, 'After')
    expect((await app.admin.delete(ROBOTICS_URL)).status).toBe(204)
    await until(() => all.received.length === 2 && removals.received.length === 1, 'both deliveries')
    expect(all.received.map((request) => verified(allHook.secret, request).type)).toEqual([
      'club.changed',
      'club.removed',
    ])
    expect(verified(removalHook.secret, removals.received[0]!)).toMatchObject({
      type: 'club.removed',
      code: 'robotics-collective',
      club: null,
    })
    await sleep(100)
    expect(removals.received).toHaveLength(1)
    expect(await app.deliveries(removalHook.id)).toHaveLength(1)
  })

  it('tries a refused delivery again with the same webhook-id, and lists deliveries newest first', async () => {
    const got = receiver((n) => (n === 1 ? new Response('database is down', { status: 500 }) : new Response('ok')))
    const app = await world()
    const hook = await app.addHook({ url: got.url })
    await app.rename(CHESS_URL, 'Retried')
    await until(() => got.received.length === 1, 'the first attempt')
    await until(async () => (await app.deliveries(hook.id))[0]?.attempts === 1, 'the first outcome')
    expect((await app.deliveries(hook.id))[0]).toMatchObject({
      status: 'pending',
      last_status_code: 500,
      last_error: 'The receiver answered 500: database is down',
      next_attempt_at: expect.any(String),
    })
    await until(() => got.received.length === 2, 'the second attempt')
    const [first, second] = got.received
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']!)
    expect(verified(hook.secret, second!)).toEqual(verified(hook.secret, first!))
    await until(async () => (await app.deliveries(hook.id))[0]?.status === 'delivered', 'the delivered status')
    expect((await app.deliveries(hook.id))[0]).toMatchObject({ attempts: 2, last_status_code: 200, last_error: null })
    await app.rename(CHESS_URL, 'Again')
    await until(() => got.received.length === 3, 'the next event')
    const seqs = (await app.deliveries(hook.id)).map((delivery: { seq: number }) => delivery.seq)
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a))
    expect(seqs).toHaveLength(2)
  })

  it('marks a delivery failed after the whole schedule of a receiver answering 500, then sends it nothing more', async () => {
    const got = receiver(() => new Response('no', { status: 500 }))
    const app = await world()
    const hook = await app.addHook({ url: got.url })
    await app.rename(CHESS_URL, 'Never taken')
    await until(async () => (await app.deliveries(hook.id))[0]?.status === 'failed', 'the failed status')
    expect(got.received).toHaveLength(1 + QUICK_RETRIES.length)
    expect(new Set(got.received.map((request) => request.headers['webhook-id'])).size).toBe(1)
    expect((await app.deliveries(hook.id))[0]).toMatchObject({
      attempts: 1 + QUICK_RETRIES.length,
      last_status_code: 500,
      next_attempt_at: null,
    })
    await sleep(10 * QUICK_RETRIES[0]!)
    expect(got.received).toHaveLength(1 + QUICK_RETRIES.length)
  })

  it('lets a hung receiver delay neither a write nor another receiver, and holds back only its own deliveries', async () => {
    const { hung, release } = hungReceiver()
    const quick = receiver()
    const app = await world()
    await app.addHook({ url: hung.url })
    const quickHook = await app.addHook({ url: quick.url })
    await app.rename(CHESS_URL, 'One')
    await until(() => hung.received.length === 1 && quick.received.length === 1, 'the first event at both')
    // The hung receiver holds its request open; writes are acknowledged and the other receiver served.
    for (let i = 2; i <= 8; i++) await app.rename(CHESS_URL, `Write ${i}`)
    await until(() => quick.received.length === 8, 'every event at the quick receiver')
    expect(quick.received.map((request) => verified(quickHook.secret, request).type)).toEqual(
      Array(8).fill('club.changed'),
    )
    // At most 5 attempts at once to one webhook: the fifth arrives, and no sixth while they hang.
    await until(() => hung.received.length === 5, 'five attempts at the hung receiver')
    await sleep(100)
    expect(hung.received).toHaveLength(5)
    release()
    await until(() => hung.received.length === 8, 'the held-back deliveries once it answers')
  })

  it('shares 64 attempts at once among more than 12 webhooks: twenty get 3 each', async () => {
    const { hung, release } = hungReceiver()
    const quick = receiver()
    const app = await world()
    await app.addHook({ url: hung.url })
    for (let i = 0; i < 19; i++) await app.addHook({ url: quick.url })
    for (let i = 1; i <= 6; i++) await app.rename(CHESS_URL, `Write ${i}`)
    await until(() => quick.received.length === 6 * 19, 'every event at the quick receivers')
    await until(() => hung.received.length === 3, 'three attempts at the hung receiver')
    await sleep(100)
    expect(hung.received).toHaveLength(3)
    release()
    await until(() => hung.received.length === 6, 'the held-back deliveries once it answers')
  })

  it('sends a webhook added in place of a deleted one (the same id) to its own URL, signed with its own secret', async () => {
    const before = receiver()
    const after = receiver()
    const app = await world()
    const first = await app.addHook({ url: before.url })
    await app.rename(CHESS_URL, 'To the first')
    await until(() => before.received.length === 1, 'the first delivery')
    expect((await app.admin.delete(`/api/webhooks/${first.id}/`)).status).toBe(204)
    const second = await app.addHook({ url: after.url })
    expect(second.id).toBe(first.id)
    await app.rename(CHESS_URL, 'To the second')
    await until(() => after.received.length === 1, 'the second delivery')
    expect((verified(second.secret, after.received[0]!).club as { subtitle: string }).subtitle).toBe('To the second')
    expect(before.received).toHaveLength(1)
  })

  it('does not follow redirects', async () => {
    const elsewhere = receiver()
    const redirecting = receiver(() => Response.redirect(elsewhere.url, 307))
    const app = await world()
    const hook = await app.addHook({ url: redirecting.url })
    await app.rename(CHESS_URL, 'Redirected')
    await until(async () => (await app.deliveries(hook.id))[0]?.attempts === 1, 'the first outcome')
    expect((await app.deliveries(hook.id))[0]).toMatchObject({
      status: 'pending',
      last_status_code: 307,
      last_error: `Redirects are not followed (307 to ${elsewhere.url}).`,
    })
    expect(elsewhere.received).toEqual([])
  })

  it('signs with node:crypto exactly as the standardwebhooks package does, whatever the body', () => {
    const secret = `whsec_${Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7)).toString('base64')}`
    const sentAt = new Date()
    for (const body of ['{}', '{"name":"Échecs — 国际象棋 🏁"}', JSON.stringify({ long: 'x'.repeat(100_000) }), ''])
      for (const id of ['msg_a', `msg_${'n'.repeat(22)}_12`]) {
        const signed = signature(secret, id, sentAt, body)
        expect(signed).toBe(new Webhook(secret).sign(id, sentAt, body))
        const headers = { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)) }
        expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-signature': signed })).not.toThrow()
        const forged = signature(secret, id, sentAt, `${body} `)
        expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-signature': forged })).toThrow()
      }
  })

  it('checks the address when it connects: a name resolving to a private address is refused unless allowed', async () => {
    const got = receiver()
    const delivery = {
      webhook: 1,
      seq: 1,
      messageId: 'msg_test',
      url: `http://localhost:${got.port}/hook`,
      secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
      body: '{"seq":1}',
    }
    const refused = await attemptDelivery(delivery, false)
    expect(refused).toEqual({
      delivered: false,
      statusCode: null,
      error: expect.stringContaining(
        'resolves to 127.0.0.1, which points to a loopback, private or link-local address',
      ),
    })
    expect(got.received).toEqual([])
    expect(await attemptDelivery(delivery, true)).toEqual({ delivered: true, statusCode: 200 })
    // Sent to the address resolved, with the name in the Host header.
    expect(got.received[0]!.headers.host).toBe(`localhost:${got.port}`)
  })

  it('reads no more than the start of a long refusal', async () => {
    const got = receiver(() => new Response('x'.repeat(5_000_000), { status: 503 }))
    const result = await attemptDelivery(
      {
        webhook: 1,
        seq: 1,
        messageId: 'msg_long',
        url: got.url,
        secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
        body: '{}',
      },
      true,
    )
    expect(result).toEqual({
      delivered: false,
      statusCode: 503,
      error: `The receiver answered 503: ${'x'.repeat(1024)}`,
    })
  })
})

describe('deliveries on disk', () => {
  function dataFile() {
    const dir = tempDir('clubs-webhooks-')
    return join(dir, 'db.json')
  }

  it('keeps webhooks and pending deliveries across a restart, and drops those of a deleted webhook', async () => {
    const file = dataFile()
    const down = `http://127.0.0.1:${freePort()}`
    const first = await world({ dataFile: file, retries: [60_000] })
    const hook = await first.addHook({ url: `${down}/kept` })
    const dropped = await first.addHook({ url: `${down}/dropped` })
    await first.rename(CHESS_URL, 'While the receiver is down')
    await until(async () => (await first.deliveries(hook.id))[0]?.attempts === 1, 'a refused attempt')
    const pending = await first.deliveries(hook.id)
    expect(pending).toEqual([
      {
        seq: expect.any(Number),
        message_id: expect.stringMatching(/^msg_/),
        status: 'pending',
        attempts: 1,
        last_status_code: null,
        last_error: expect.stringContaining('The request failed'),
        next_attempt_at: expect.any(String),
      },
    ])
    expect((await first.admin.delete(`/api/webhooks/${dropped.id}/`)).status).toBe(204)
    const second = await world({ dataFile: file, retries: [60_000] })
    expect((await readJson(await second.admin.get('/api/webhooks/'))).map((h: { id: number }) => h.id)).toEqual([
      hook.id,
    ])
    expect(await second.deliveries(hook.id)).toEqual(pending)
    const saved = directoryOnDisk(file)
    expect(saved.webhook_deliveries.map((d: { webhook: number }) => d.webhook)).toEqual([hook.id])
    // The event waits on disk with the delivery (its body once), whatever the change log keeps.
    expect(saved.webhook_events.map((e: { seq: number }) => e.seq)).toEqual([saved.webhook_deliveries[0].seq])
    expect(JSON.parse(saved.webhook_events[0].body).club.subtitle).toBe('While the receiver is down')
  })

  it('takes the events only a deleted webhook waited to send off the data file with it', async () => {
    const file = dataFile()
    const app = await world({ dataFile: file, retries: [60_000] })
    const hook = await app.addHook({ url: `http://127.0.0.1:${freePort()}/down` })
    await app.rename(CHESS_URL, 'Tried once')
    await until(() => directoryOnDisk(file).webhook_deliveries?.[0]?.attempts === 1, 'a refused attempt on disk')
    expect(directoryOnDisk(file).webhook_events).toHaveLength(1)
    expect((await app.admin.delete(`/api/webhooks/${hook.id}/`)).status).toBe(204)
    expect(directoryOnDisk(file)).toMatchObject({ webhooks: [], webhook_deliveries: [], webhook_events: [] })
  })

  it('saves an outcome noted while writes are refused with the first write that lands', async () => {
    const file = dataFile()
    const app = await world({ dataFile: file, retries: [60_000] })
    const hook = await app.addHook({ url: `http://127.0.0.1:${freePort()}/down` })
    await app.rename(CHESS_URL, 'Before the fault')
    const blocked = blockWrites(file)
    let unblocked = false
    cleanups.unshift(() => {
      if (!unblocked) blocked.unblock()
    })
    // The refused attempt is noted in memory; the save a second later is refused with the disk.
    await until(async () => (await app.deliveries(hook.id))[0]?.attempts === 1, 'a refused attempt')
    await sleep(1_500)
    expect((await app.admin.patch(CHESS_URL, { subtitle: 'Refused' })).status).toBe(503)
    blocked.unblock()
    unblocked = true
    await app.rename(CHESS_URL, 'After the fault')
    const [delivery] = directoryOnDisk(file).webhook_deliveries as { status: string; attempts: number }[]
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1 })
  })

  it('keeps on disk the failed deliveries among the newest 100 finished, and drops one pushed out by newer ones', async () => {
    let refusing = true
    const got = receiver(() => new Response(null, { status: refusing ? 500 : 204 }))
    const file = dataFile()
    const app = await world({ dataFile: file, retries: [] })
    const hook = await app.addHook({ url: got.url })
    await app.rename(CHESS_URL, 'Failed once')
    await until(async () => (await app.deliveries(hook.id))[0]?.status === 'failed', 'the failed delivery')
    const failedSeq = ((await app.deliveries(hook.id)) as { seq: number }[])[0]!.seq
    const failedOnDisk = () =>
      ((directoryOnDisk(file).webhook_deliveries ?? []) as { seq: number; status: string }[]).some(
        (d) => d.seq === failedSeq && d.status === 'failed',
      )
    await until(failedOnDisk, 'the failed delivery on disk', 5_000)
    refusing = false
    for (let i = 1; i <= 100; i++) await app.rename(CHESS_URL, `Delivered ${i}`)
    await until(() => got.received.length === 101, 'every delivery')
    await until(
      async () => ((await app.deliveries(hook.id)) as { seq: number }[]).every((d) => d.seq !== failedSeq),
      'the failed one out of the newest 100',
    )
    await until(() => !failedOnDisk(), 'the failed delivery gone from disk', 5_000)
  })

  it('keeps a fan-out not attempted yet as its event and the webhooks it waits for, and sends it after a restart with the same webhook-id', async () => {
    const file = dataFile()
    const first = await world({ dataFile: file })
    // The receiver of one webhook never answers: its first attempt is still under way at the restart.
    const hung = receiver(() => new Promise<Response>(() => {}))
    const hooks = [await first.addHook({ url: hung.url })]
    const down = `http://127.0.0.1:${freePort()}/hook`
    for (let i = 0; i < 4; i++) hooks.push(await first.addHook({ url: down }))
    await first.rename(CHESS_URL, 'Fanned out')
    await until(() => hung.received.length === 1, 'the first attempt')
    const [underWay] = await first.deliveries(hooks[0]!.id)
    expect(underWay).toMatchObject({
      status: 'pending',
      attempts: 0,
      message_id: hung.received[0]!.headers['webhook-id'],
    })
    const saved = directoryOnDisk(file)
    // One record for the event, naming the webhook whose attempt is under way, however many it went to.
    const event = saved.webhook_events.find((e: { seq: number }) => e.seq === underWay.seq)
    expect(event.waiting).toContain(hooks[0]!.id)
    expect((saved.webhook_deliveries ?? []).filter((d: { seq: number }) => d.seq === underWay.seq).length).toBeLessThan(
      5,
    )
    const second = await world({ dataFile: file })
    await until(() => hung.received.length === 2, 'the attempt after the restart')
    expect(hung.received[1]!.headers['webhook-id']).toBe(underWay.message_id)
    expect(verified(hooks[0]!.secret, hung.received[1]!).seq).toBe(underWay.seq)
    // Each webhook's delivery of one event has an id of its own.
    const ids = await Promise.all(hooks.map(async ({ id }) => (await second.deliveries(id))[0].message_id))
    expect(new Set(ids).size).toBe(hooks.length)
  })

  it('refuses a data file whose deliveries do not fit its webhooks, saying what is wrong', () => {
    const hook = {
      id: 1,
      url: 'http://example.com/',
      description: '',
      events: ALL_TYPES,
      created_at: NOW.toISOString(),
      secret: 'whsec_x',
    }
    const delivery = {
      webhook: 1,
      seq: 5,
      message_id: 'msg_a',
      status: 'pending',
      attempts: 1,
      last_status_code: 500,
      last_error: 'The receiver answered 500.',
      next_attempt_at: NOW.toISOString(),
    }
    const event = { seq: 5, body: '{}', nonce: 'n0nce', waiting: [] as number[] }
    const rows: [string, Record<string, unknown>, string | null][] = [
      ['a pending delivery with its event', { webhook_deliveries: [delivery], webhook_events: [event] }, null],
      ['an event waiting for a webhook', { webhook_events: [{ ...event, waiting: [1] }] }, null],
      ['a file from before waiting lists', { webhook_events: [{ seq: 5, body: '{}' }] }, null],
      ['two webhooks with one id', { webhooks: [hook, hook] }, '/webhooks: a webhook id appears twice'],
      [
        'a delivery to no webhook',
        { webhook_deliveries: [{ ...delivery, webhook: 2 }], webhook_events: [event] },
        '/webhook_deliveries: a delivery names the webhook 2, which does not exist',
      ],
      [
        'a pending delivery without its event',
        { webhook_deliveries: [delivery] },
        '/webhook_deliveries: the pending delivery of event 5 has no body in /webhook_events',
      ],
      [
        'an event waiting with no nonce',
        { webhook_events: [{ seq: 5, body: '{}', waiting: [1] }] },
        '/webhook_events: event 5 waits for webhooks but has no nonce',
      ],
      [
        'an event waiting for no webhook',
        { webhook_events: [{ ...event, waiting: [3] }] },
        '/webhook_events: event 5 waits for the webhook 3, which does not exist',
      ],
      [
        'an event waiting for a webhook that has a delivery of it',
        { webhook_deliveries: [delivery], webhook_events: [{ ...event, waiting: [1] }] },
        '/webhook_events: event 5 waits for the webhook 1, which has a delivery of it',
      ],
    ]
    for (const [what, webhooks, problem] of rows)
      expect({ what, problem: snapshotProblem({ ...seed(), webhooks: [hook], ...webhooks }) }).toEqual({
        what,
        problem,
      })
  })

  it('keeps the newest 100 finished deliveries of a webhook', async () => {
    const got = receiver()
    const app = await world()
    const hook = await app.addHook({ url: got.url })
    for (let i = 1; i <= 103; i++) await app.rename(CHESS_URL, `Rename ${i}`)
    await until(() => got.received.length === 103, 'every delivery')
    await until(
      async () => (await app.deliveries(hook.id)).every((d: { status: string }) => d.status === 'delivered'),
      'every delivered status',
    )
    const listed = await app.deliveries(hook.id)
    expect(listed).toHaveLength(100)
    expect(listed[0].seq).toBe(Math.max(...got.events().map((event) => event.seq)))
  })

  it('gives up deliveries not attempted yet too, and their events leave the data file with them', async () => {
    // The receiver holds the first attempts while the events pile up, then fails them: the
    // oldest given up then are mostly ones never attempted, whose events wait on disk.
    const { hung, release } = hungReceiver(500)
    const file = dataFile()
    const app = await world({ dataFile: file, retries: [60_000] })
    const hook = await app.addHook({ url: hung.url })
    for (let i = 1; i <= MAX_WAITING + 50; i++) await app.rename(CHESS_URL, `Piling up ${i}`)
    release()
    await until(() => {
      const saved = directoryOnDisk(file)
      return saved.webhooks[0].dropped_deliveries === 50 && everyOneAttempted(saved)
    }, '50 given up and every waiting one attempted, on disk')
    const saved = directoryOnDisk(file)
    const seqs = (records: { seq: number }[]) => records.map(({ seq }) => seq).sort((a, b) => a - b)
    expect(saved.webhook_deliveries).toHaveLength(MAX_WAITING)
    expect(seqs(saved.webhook_events)).toEqual(seqs(saved.webhook_deliveries))
    const pending = (await app.deliveries(hook.id)).filter((d: { status: string }) => d.status === 'pending')
    expect(seqs(pending)).toEqual(seqs(saved.webhook_deliveries))
  })

  it('keeps at most 100 deliveries waiting for a receiver that is down: the oldest are given up, listed failed and counted', async () => {
    const file = dataFile()
    const app = await world({ dataFile: file, retries: [60_000] })
    const hook = await app.addHook({ url: `http://127.0.0.1:${freePort()}/down` })
    const events = MAX_WAITING + 50
    for (let i = 1; i <= events; i++) await app.rename(CHESS_URL, `While the receiver is down ${i}`)
    type Listed = { seq: number; status: string; attempts: number; last_error: string | null }
    const listed = async () => (await app.deliveries(hook.id)) as Listed[]
    await until(
      async () => (await listed()).every((d) => d.attempts > 0 || d.status === 'failed'),
      'every delivery attempted or given up',
    )
    const deliveries = await listed()
    const seqs = deliveries.map((d) => d.seq)
    const pending = deliveries.filter((d) => d.status === 'pending')
    const failed = deliveries.filter((d) => d.status === 'failed')
    // The newest wait for the receiver; the oldest were given up, each saying why.
    expect(pending.map((d) => d.seq)).toEqual(seqs.slice(0, MAX_WAITING))
    expect(failed.map((d) => d.seq)).toEqual(seqs.slice(MAX_WAITING))
    expect(failed).toHaveLength(50)
    for (const d of failed)
      expect(d.last_error).toBe(
        `Given up unsent: the receiver kept failing while 100 newer deliveries waited (GET /api/changes/?since=${d.seq - 1} has the event while the change log keeps it).`,
      )
    expect((await readJson(await app.admin.get(`/api/webhooks/${hook.id}/`))).dropped_deliveries).toBe(50)
    // The data file holds the waiting ones, their events once each, and the count: not the ones
    // given up, one per event while the receiver is down, which the count stands for.
    const onDisk = () => directoryOnDisk(file)
    const settledOnDisk = async (dropped: number) => {
      await until(
        () => onDisk().webhooks[0].dropped_deliveries === dropped && everyOneAttempted(onDisk()),
        `${dropped} given up and every waiting one attempted, on disk`,
      )
      const saved = onDisk()
      expect(saved.webhook_deliveries.filter((d: { status: string }) => d.status === 'pending')).toHaveLength(
        MAX_WAITING,
      )
      expect(saved.webhook_deliveries).toHaveLength(MAX_WAITING)
      expect(saved.webhook_events).toHaveLength(MAX_WAITING)
      return saved
    }
    const saved = await settledOnDisk(50)
    const newestFirst = (records: { seq: number }[]) => records.map(({ seq }) => seq).sort((a, b) => b - a)
    expect(newestFirst(saved.webhook_events)).toEqual(pending.map((d) => d.seq))
    expect(newestFirst(saved.webhook_deliveries)).toEqual(pending.map((d) => d.seq))
    // Past the bound it stays there: the count goes on, and more events add no weight.
    const weight = ({ webhook_events, webhook_deliveries }: Record<string, unknown>) =>
      JSON.stringify([webhook_events, webhook_deliveries]).length
    const downFor = async (round: string, dropped: number) => {
      for (let i = 1; i <= 50; i++) await app.rename(CHESS_URL, `${round} ${i}`)
      return weight(await settledOnDisk(dropped))
    }
    const atTheBound = await downFor('Still down', 100)
    expect(await downFor('Down for a day', 150)).toBeLessThan(atTheBound * 1.02)
    // A restart keeps the waiting ones and the count.
    const again = await world({ dataFile: file, retries: [60_000] })
    expect((await readJson(await again.admin.get(`/api/webhooks/${hook.id}/`))).dropped_deliveries).toBe(150)
    expect(await again.deliveries(hook.id)).toHaveLength(MAX_WAITING)
  })

  it('sends a burst of more than 100 events in full to a receiver that takes them, however late', async () => {
    // The receiver holds its answers until every write is made: the burst waits, and nothing fails.
    const { hung: got, release: open } = hungReceiver(204)
    const app = await world()
    const hook = await app.addHook({ url: got.url })
    const events = MAX_WAITING + 50
    for (let i = 1; i <= events; i++) await app.rename(CHESS_URL, `Burst ${i}`)
    const waiting = (await app.deliveries(hook.id)).filter((d: { status: string }) => d.status === 'pending')
    expect(waiting).toHaveLength(events)
    open()
    await until(() => got.received.length === events, 'every delivery', 20_000)
    expect(new Set(got.events().map((event) => event.seq)).size).toBe(events)
    expect((await readJson(await app.admin.get(`/api/webhooks/${hook.id}/`))).dropped_deliveries).toBe(0)
  })

  it("sends the deliveries an earlier release's data file keeps as records, a fan-out not attempted yet among them, each with its webhook-id", async () => {
    // Before waiting lists, each delivery of an event, attempted or not, was a record of its own,
    // and its event had neither nonce nor list.
    const got = receiver()
    const file = dataFile()
    const secret = `whsec_${Buffer.alloc(32, 9).toString('base64')}`
    const hook = (id: number) => ({
      id,
      url: got.url,
      description: '',
      events: ALL_TYPES,
      created_at: NOW.toISOString(),
      secret,
    })
    const body = (seq: number) =>
      JSON.stringify({ seq, type: 'club.changed', code: 'penn-chess-society', at: NOW.toISOString(), club: null })
    const record = (webhook: number, seq: number, attempts: number) => ({
      webhook,
      seq,
      message_id: `msg_earlier_${webhook}_${seq}`,
      status: 'pending',
      attempts,
      last_status_code: attempts ? 500 : null,
      last_error: attempts ? 'The receiver answered 500.' : null,
      next_attempt_at: NOW.toISOString(),
    })
    writeFileSync(
      file,
      JSON.stringify({
        ...seed(),
        webhooks: [hook(1), hook(2)],
        webhook_deliveries: [record(1, 2, 0), record(2, 2, 0), record(1, 3, 1)],
        webhook_events: [
          { seq: 2, body: body(2) },
          { seq: 3, body: body(3) },
        ],
        changes_seq: 3,
      }),
    )
    const app = await world({ dataFile: file })
    await until(() => got.received.length === 3, 'the three deliveries')
    const sent = got.received.map((request) => [request.headers['webhook-id'], verified(secret, request).seq])
    expect(sent.sort()).toEqual([
      ['msg_earlier_1_2', 2],
      ['msg_earlier_1_3', 3],
      ['msg_earlier_2_2', 2],
    ])
    const delivered = async (id: number) =>
      ((await app.deliveries(id)) as { seq: number; status: string; attempts: number }[]).map(
        ({ seq, status, attempts }) => [seq, status, attempts],
      )
    await until(async () => (await delivered(2))[0]?.[1] === 'delivered', 'the outcomes noted')
    await until(async () => (await delivered(1)).every(([, status]) => status === 'delivered'), 'the outcomes noted')
    expect(await delivered(1)).toEqual([
      [3, 'delivered', 2],
      [2, 'delivered', 1],
    ])
    expect(await delivered(2)).toEqual([[2, 'delivered', 1]])
    // Saved within a second: nothing waits on disk any more, records or events.
    await until(() => {
      const saved = directoryOnDisk(file)
      return saved.webhook_deliveries.length === 0 && saved.webhook_events.length === 0
    }, 'the outcomes saved')
    await sleep(300)
    expect(got.received.length).toBe(3)
  })

  it('delivers an event whose write was acknowledged just before a SIGKILL, once the service is back', async () => {
    const dir = tempDir('clubs-webhooks-kill-')
    const port = freePort()
    const receiverPort = freePort()
    const env = {
      CLUBS_DATA_FILE: join(dir, 'db.json'),
      CLUBS_ADMIN_TOKEN: ADMIN_TOKEN,
      CLUBS_WEBHOOK_ALLOW_PRIVATE: 'true',
      CLUBS_LOG_LEVEL: 'warn',
      CLUBS_RATE_LIMIT: '',
    }
    const base = `http://127.0.0.1:${port}`
    const call = (path: string, method = 'GET', json?: unknown) =>
      fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', connection: 'close' },
        body: json === undefined ? undefined : JSON.stringify(json),
      })
    let proc = spawnService(port, env, { stdout: 'ignore', stderr: 'pipe' })
    cleanups.push(() => stopService(proc))
    await waitForHealth(base, proc)
    const made = await call('/api/webhooks/', 'POST', { url: `http://127.0.0.1:${receiverPort}/hook` })
    expect(made.status).toBe(201)
    const hook = await readJson(made)
    const write = await call(CHESS_URL, 'PATCH', { subtitle: 'Survives the kill' })
    expect(write.status).toBe(200)
    proc.kill('SIGKILL')
    await proc.exited
    const got = receiver(undefined, receiverPort)
    proc = spawnService(port, env, { stdout: 'ignore', stderr: 'pipe' })
    await waitForHealth(base, proc)
    // The first attempt may have been refused before the kill: the next comes 5 s later.
    await until(() => got.received.length >= 1, 'the delivery after the restart', 20_000)
    const event = verified(hook.secret, got.received[0]!)
    expect(event).toMatchObject({ type: 'club.changed', code: 'penn-chess-society' })
    expect((event.club as { subtitle: string }).subtitle).toBe('Survives the kill')
    await until(
      async () => (await readJson(await call(`/api/webhooks/${hook.id}/deliveries/`)))[0]?.status === 'delivered',
      'the delivered status',
    )
  }, 40_000)
})
