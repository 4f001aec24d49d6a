import { afterAll, describe, expect, it } from 'bun:test'
import type { Subprocess } from 'bun'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { ADMIN_TOKEN, readJson, tempDir } from '../harness/app'
import { ENTRY, freePort, ROOT, stopService, waitForHealth } from '../harness/service'
import { CAN_STAGE_DNS_OUTAGE, startDnsServer } from '../harness/dns-server'
import { startReceiver, until } from '../harness/webhook-receiver'

// Issue 35: a DNS outage must not stall writes. Host names of webhooks used to be looked up with
// getaddrinfo on the thread pool that the data file's writes use: with a resolver that never
// answers, three lookups held it and writes waited 10 s and more behind them. Here a real server
// runs in a mount namespace whose only DNS server drops every query; adding webhooks to three
// host names and then delivering to them leaves lookups outstanding for seconds, and every write
// made meanwhile must be answered while they still are. The same server, answering, gives the
// address an attempt goes to (c-ares reads no /etc/hosts, so this is its path, not the file's).

const HOSTS = ['hooks.campus-a.example', 'hooks.campus-b.example', 'hooks.campus-c.example']
const WRITES = 50

const cleanups: (() => unknown)[] = []
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
}, 30_000)

/** The service as a real process whose only DNS server is `dns`, on a new data file: `call` makes a request as the admin. */
async function serviceUsing(dns: Awaited<ReturnType<typeof startDnsServer>>, env: Record<string, string> = {}) {
  const dir = tempDir('clubs-dns-')
  const port = freePort()
  const proc: Subprocess = Bun.spawn(dns.wrap([process.execPath, ENTRY]), {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      CLUBS_DATA_FILE: join(dir, 'db.json'),
      CLUBS_ADMIN_TOKEN: ADMIN_TOKEN,
      CLUBS_LOG_LEVEL: 'warn',
      CLUBS_RATE_LIMIT: '',
      ...env,
    },
    stdout: 'ignore',
    stderr: 'pipe',
  })
  cleanups.push(() => stopService(proc))
  const base = `http://127.0.0.1:${port}`
  await waitForHealth(base, proc)
  const call = (path: string, method = 'GET', json?: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: json === undefined ? undefined : JSON.stringify(json),
    })
  return { call }
}

describe.skipIf(!CAN_STAGE_DNS_OUTAGE)('webhook host names in DNS', () => {
  it('hold no write back when the DNS server never answers: not while webhooks are added, nor while their deliveries are sent', async () => {
    const dir = tempDir('clubs-dns-outage-')
    const dns = await startDnsServer(dir)
    cleanups.push(dns.stop)
    const { call } = await serviceUsing(dns)
    /** `count` writes at once, each renaming a club: their statuses, once every one is answered. */
    const writes = (round: string, count = WRITES) =>
      Promise.all(
        Array.from({ length: count }, async (_, i) => {
          const res = await call('/api/clubs/penn-chess-society/', 'PATCH', { subtitle: `${round} ${i}` })
          await res.arrayBuffer()
          return res.status
        }),
      )
    const askedFor = (from: number) => (host: string) => dns.asked.slice(from).includes(host)

    // Adding a webhook checks its host name (public addresses only, by default): each lookup is
    // asked and never answered, and writes go on meanwhile.
    let added = 0
    const adding = HOSTS.map(async (host) => {
      const res = await call('/api/webhooks/', 'POST', { url: `https://${host}/hook` })
      added++
      return res
    })
    await until(() => HOSTS.some(askedFor(0)), 'a lookup')
    expect(await writes('While adding')).toEqual(Array(WRITES).fill(200))
    expect(added).toBe(0)
    // All three were asked at once: no lookup waits for a thread another holds.
    expect(HOSTS.filter(askedFor(0))).toEqual(HOSTS)
    // A name that does not resolve yet is taken (each attempt looks again).
    const hooks = await Promise.all(
      adding.map(async (res) => {
        const made = await res
        expect(made.status).toBe(201)
        return (await readJson(made)) as { id: number }
      }),
    )

    // Now every write's event goes to three webhooks whose names do not resolve: once a first
    // write's attempts are looking them up, more writes are answered while the lookups are still
    // outstanding, before any attempt has come to anything.
    const from = dns.asked.length
    expect(await writes('First', 1)).toEqual([200])
    await until(() => HOSTS.some(askedFor(from)), 'an attempt’s lookup')
    expect(await writes('While delivering')).toEqual(Array(WRITES).fill(200))
    await until(() => HOSTS.every(askedFor(from)), 'every webhook’s lookup')
    for (const { id } of hooks) {
      const deliveries = (await readJson(await call(`/api/webhooks/${id}/deliveries/`))) as { attempts: number }[]
      expect(deliveries.length).toBe(WRITES + 1)
      expect(deliveries.filter((delivery) => delivery.attempts > 0)).toEqual([])
    }

    // Then the lookups give up, and each attempt says why.
    for (const { id } of hooks)
      await until(
        async () =>
          ((await readJson(await call(`/api/webhooks/${id}/deliveries/`))) as { last_error: string | null }[]).some(
            (delivery) => delivery.last_error?.includes('does not resolve (ETIMEOUT)'),
          ),
        'an attempt that gave up on DNS',
        15_000,
      )
    expect(await writes('After')).toEqual(Array(WRITES).fill(200))
  })

  it('are resolved from the DNS server, and the attempt goes to the address it gave under the name', async () => {
    const got = startReceiver()
    cleanups.push(got.stop)
    const dir = tempDir('clubs-dns-answers-')
    const dns = await startDnsServer(
      dir,
      { 'receiver.campus.example': '127.0.0.1', 'intranet.campus.example': '10.20.30.40' },
      ['campus.example'],
    )
    cleanups.push(dns.stop)
    // By default a name the DNS server points to a private address is refused.
    const strict = await serviceUsing(dns)
    const refused = await strict.call('/api/webhooks/', 'POST', { url: 'https://intranet.campus.example/hook' })
    expect(refused.status).toBe(400)
    expect((await readJson(refused)).url).toEqual([
      expect.stringMatching(
        /^The host name intranet\.campus\.example resolves to 10\.20\.30\.40, which points to a loopback, private/,
      ),
    ])
    // The receiver is on loopback, which only CLUBS_WEBHOOK_ALLOW_PRIVATE lets a webhook reach.
    const { call } = await serviceUsing(dns, { CLUBS_WEBHOOK_ALLOW_PRIVATE: 'true' })
    const made = await call('/api/webhooks/', 'POST', { url: `http://receiver.campus.example:${got.port}/hook` })
    expect(made.status).toBe(201)
    const { secret } = (await readJson(made)) as { secret: string }
    expect((await call('/api/clubs/penn-chess-society/', 'PATCH', { subtitle: 'Found by name' })).status).toBe(200)
    await until(() => got.received.length === 1, 'the delivery')
    expect(dns.asked).toContain('receiver.campus.example')
    expect(got.received[0]!.headers.host).toBe(`receiver.campus.example:${got.port}`)
    const event = new Webhook(secret).verify(got.received[0]!.body, got.received[0]!.headers) as { club: unknown }
    expect((event.club as { subtitle: string }).subtitle).toBe('Found by name')
    // A short name is tried with the search domains of resolv.conf, as getaddrinfo would.
    const short = await call('/api/webhooks/', 'POST', { url: `http://receiver:${got.port}/short` })
    expect(short.status).toBe(201)
    expect((await call('/api/clubs/penn-chess-society/', 'PATCH', { subtitle: 'Found by a short name' })).status).toBe(
      200,
    )
    await until(() => got.received.some((request) => request.headers.host === `receiver:${got.port}`), 'the short name')
  })
})
