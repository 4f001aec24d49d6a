import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Subprocess } from 'bun'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN_TOKEN, tempDir } from '../harness/app'
import { startNginx } from '../harness/nginx'
import { freePort, sleep, spawnService, waitForHealth } from '../harness/service'

// docs/reference.md §17 behind a real reverse proxy: Debian's nginx on loopback terminates TLS with a
// certificate this test makes, and passes X-Forwarded-Proto, -Host and -For to the service,
// which trusts them from 127.0.0.1 only (CLUBS_TRUST_PROXY=127.0.0.1). Clients connect from
// other loopback addresses (127.0.0.2, 127.0.0.3), so each has an address of its own.

const SKIP = process.env.SKIP_PROXY_TESTS === '1'
const dir = tempDir('clubs-proxy-')
const processes: Subprocess[] = []
let proxied = ''
let direct = ''
let certificate = ''
const lines: Record<string, any>[] = []

function run(cmd: string[]) {
  const result = Bun.spawnSync(cmd, { stderr: 'pipe', stdout: 'pipe' })
  if (result.exitCode !== 0) throw new Error(`${cmd.join(' ')} failed: ${result.stderr.toString()}`)
  return result.stdout.toString()
}

/** A GET through the proxy from `address`, with curl (fetch cannot choose its source address). */
function curlFrom(address: string, path: string): { status: number; body: string } {
  const out = run([
    'curl',
    '-sS',
    '--cacert',
    join(dir, 'cert.pem'),
    '--interface',
    address,
    '-w',
    '\n%{http_code}',
    `${proxied}${path}`,
  ])
  const at = out.lastIndexOf('\n')
  return { status: Number(out.slice(at + 1)), body: out.slice(0, at) }
}

const viaProxy = (path: string, init: RequestInit = {}) =>
  fetch(`${proxied}${path}`, { ...init, tls: { ca: certificate } } as RequestInit)

beforeAll(async () => {
  if (SKIP) return
  run([
    'openssl',
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
    '-keyout',
    join(dir, 'key.pem'),
    '-out',
    join(dir, 'cert.pem'),
  ])
  certificate = readFileSync(join(dir, 'cert.pem'), 'utf8')
  const servicePort = freePort()
  const service = spawnService(
    servicePort,
    {
      CLUBS_DATA_FILE: ':memory:',
      CLUBS_ADMIN_TOKEN: ADMIN_TOKEN,
      CLUBS_TRUST_PROXY: '127.0.0.1',
      CLUBS_RATE_LIMIT: '10',
      CLUBS_LOG_LEVEL: 'info',
    },
    { stdout: 'pipe', stderr: 'pipe' },
  )
  processes.push(service)
  await waitForHealth(`http://127.0.0.1:${servicePort}`, service)
  void (async () => {
    let rest = ''
    for await (const chunk of service.stdout as unknown as AsyncIterable<Uint8Array>) {
      rest += new TextDecoder().decode(chunk)
      const parts = rest.split('\n')
      rest = parts.pop()!
      for (const part of parts) if (part.trim()) lines.push(JSON.parse(part))
    }
  })()

  const tlsPort = freePort()
  proxied = `https://127.0.0.1:${tlsPort}`
  const server = `server {
    listen 127.0.0.1:${tlsPort} ssl;
    ssl_certificate ${join(dir, 'cert.pem')};
    ssl_certificate_key ${join(dir, 'key.pem')};
    location / {
      proxy_pass http://127.0.0.1:${servicePort};
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-Host $host:$server_port;
      proxy_set_header X-Forwarded-For $remote_addr;
    }
  }`
  processes.push(await startNginx(dir, server, () => viaProxy('/health').then((r) => r.ok)))

  // The same service, trusting nobody, for the forged-header check.
  const untrustingPort = freePort()
  const untrusting = spawnService(untrustingPort, { CLUBS_DATA_FILE: ':memory:', CLUBS_LOG_LEVEL: 'warn' })
  processes.push(untrusting)
  direct = `http://127.0.0.1:${untrustingPort}`
  await waitForHealth(direct, untrusting)
})

afterAll(async () => {
  for (const proc of processes) {
    proc.kill('SIGTERM')
    await proc.exited
  }
})

describe.skipIf(SKIP)('behind nginx terminating TLS (CLUBS_TRUST_PROXY=127.0.0.1)', () => {
  it('builds paging links and the API root with the client’s https scheme and host', async () => {
    const page = await (await viaProxy('/api/clubs/?page=1&page_size=5')).json()
    expect(page.next).toBe(`${proxied}/api/clubs/?page=2&page_size=5`)
    const root = await (await viaProxy('/api/')).json()
    expect(root.clubs).toBe(`${proxied}/api/clubs/`)
    const home = await viaProxy('/', { redirect: 'manual' })
    expect(home.headers.get('location')).toBe(`${proxied}/api/`)
  })

  it('answers a create with an https Location', async () => {
    const res = await viaProxy('/api/clubs/', {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Proxied Club' }),
    })
    expect(res.status).toBe(201)
    expect(res.headers.get('location')).toBe(`${proxied}/api/clubs/proxied-club/`)
  })

  it('shows https links in the browsable view', async () => {
    const html = await (await viaProxy('/api/clubs/?page=1&page_size=5&format=api')).text()
    expect(html).toContain(`&quot;next&quot;: &quot;${proxied}/api/clubs/?page=2&amp;page_size=5&amp;format=api&quot;`)
  })

  it('limits each client by its own address, not the proxy’s, and logs that address', async () => {
    const first = Array.from({ length: 11 }, () => curlFrom('127.0.0.2', '/api/tags/').status)
    expect(first).toEqual([...Array(10).fill(200), 429])
    expect(curlFrom('127.0.0.3', '/api/tags/').status).toBe(200)
    await sleep(200)
    const addresses = lines.filter((line) => line.path === '/api/tags/').map((line) => line.address)
    expect(addresses).toContain('127.0.0.2')
    expect(addresses).toContain('127.0.0.3')
    expect(addresses).not.toContain('127.0.0.1')
  })

  it('ignores forged X-Forwarded-* headers when the proxy is not trusted (the default)', async () => {
    const root = await (
      await fetch(`${direct}/api/`, {
        headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-For': '6.6.6.6' },
      })
    ).json()
    expect(root.clubs).toBe(`${direct}/api/clubs/`)
  })
})
