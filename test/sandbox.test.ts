// The sandbox for prototyping (docs/reference.md §25), on real processes: off by default; reset, delays,
// faults and the request log when CLUBS_SANDBOX=true; a generated campus with CLUBS_SEED_FILE=demo.
import { afterAll, describe, expect, it } from 'bun:test'
import type { Subprocess } from 'bun'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { freePort, runToEnd, spawnService, stopService, waitForHealth, ENTRY, ROOT } from '../harness/service'
import { startPostgres, type Postgres } from '../harness/postgres'
import { SseReader } from '../harness/sse'
import { tempDir } from '../harness/temp-dirs'

const TOKEN = 'sandbox-admin-token'
const running: Subprocess[] = []
afterAll(() => Promise.all(running.map(stopService)))

async function start(env: Record<string, string>) {
  const port = freePort()
  const proc = spawnService(port, { CLUBS_ADMIN_TOKEN: TOKEN, CLUBS_LOG_LEVEL: 'warn', ...env }, { stderr: 'pipe' })
  running.push(proc)
  const base = `http://127.0.0.1:${port}`
  await waitForHealth(base, proc)
  const send = (method: string, path: string, json?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
      body: json === undefined ? undefined : JSON.stringify(json),
    })
  return { base, send, proc }
}

const club = (name: string) => ({
  name,
  subtitle: 'A club made by a test',
  description: 'Made, read and reset again.',
  size: 1,
  accepting_members: true,
  application_required: 1,
  recruiting_cycle: 1,
  tags: ['Games'],
})

describe('the sandbox off (the default)', () => {
  it('has no /api/_sandbox/ routes, and _delay, _fail and Prefer change nothing', async () => {
    const { send } = await start({ CLUBS_DATA_FILE: ':memory:' })
    expect((await send('POST', '/api/_sandbox/reset')).status).toBe(404)
    expect((await send('GET', '/api/_sandbox/requests')).status).toBe(404)
    const plain = await (await send('GET', '/api/clubs/?fields=code')).json()
    const asked = await send('GET', '/api/clubs/?fields=code&_fail=500&_delay=abc', undefined, {
      prefer: 'code=503, delay=20000',
    })
    expect(asked.status).toBe(200)
    expect(await asked.json()).toEqual(plain)
    const created = await send('POST', '/api/clubs/?_fail=409', club('Unfailing Club'))
    expect(created.status).toBe(201)
    const paths = (await (await send('GET', '/swagger/json')).json()).paths
    expect(Object.keys(paths).filter((path) => path.includes('_sandbox'))).toEqual([])
  })
})

describe('the sandbox on', () => {
  it('runs a client test suite twice with identical answers: reset, create, assert, reset', async () => {
    const { send } = await start({ CLUBS_DATA_FILE: join(tempDir(), 'db.json'), CLUBS_SANDBOX: 'true' })
    const suite = async () => {
      const reset = await send('POST', '/api/_sandbox/reset')
      expect(reset.status).toBe(200)
      const { clubs } = await reset.json()
      const created = await send('POST', '/api/clubs/', club('Suite Club'))
      expect(created.status).toBe(201)
      const body = await created.json()
      // An admin's new club is public at once in the sandbox.
      const seen = await fetch(created.headers.get('location')!)
      expect(seen.status).toBe(200)
      const list = await (await send('GET', '/api/clubs/?fields=code,name&ordering=code')).json()
      expect(list.length).toBe(clubs + 1)
      const strip = ({ created_at, updated_at, approved_on, ...rest }: Record<string, unknown>) => rest
      return { clubs, body: strip(body), list }
    }
    const first = await suite()
    const second = await suite()
    expect(second).toEqual(first)
    expect((await (await send('POST', '/api/_sandbox/reset')).json()).clubs).toBe(first.clubs)
    expect((await send('GET', '/api/clubs/suite-club/')).status).toBe(404)
    // The seed's logos are back, and served.
    const logos = (await (await send('GET', '/api/clubs/?fields=image_url')).json())
      .map((c: { image_url: string | null }) => c.image_url)
      .filter(Boolean)
    expect(logos.length).toBeGreaterThan(0)
    for (const url of logos) expect((await fetch(url)).status).toBe(200)
  })

  it('answers a delayed request no sooner than asked, and holds no other request meanwhile', async () => {
    const { send } = await start({ CLUBS_DATA_FILE: ':memory:', CLUBS_SANDBOX: 'true' })
    const order: string[] = []
    const started = performance.now()
    const slow = send('GET', '/api/clubs/?_delay=600&fields=code').then((res) => (order.push('slow'), res))
    const header = send('GET', '/api/tags/', undefined, { prefer: 'delay=300' }).then(
      (res) => (order.push('header'), res),
    )
    const quick = await send('GET', '/api/tags/')
    order.push('quick')
    expect(quick.status).toBe(200)
    expect((await header).status).toBe(200)
    expect((await slow).status).toBe(200)
    expect(performance.now() - started).toBeGreaterThanOrEqual(600)
    expect(order).toEqual(['quick', 'header', 'slow'])
  })

  it('fails as asked with nothing done, by _fail or Prefer: code=, in the reference error shape', async () => {
    const { send } = await start({ CLUBS_DATA_FILE: ':memory:', CLUBS_SANDBOX: 'true' })
    for (const status of [400, 401, 403, 404, 409, 429, 500, 502, 503]) {
      const failed = await send('POST', `/api/clubs/?_fail=${status}`, club(`Failed ${status}`))
      expect(failed.status).toBe(status)
      expect(typeof (await failed.json()).detail).toBe('string')
    }
    const byHeader = await send('POST', '/api/clubs/', club('Failed Header'), { prefer: 'code=500' })
    expect(byHeader.status).toBe(500)
    const codes = (await (await send('GET', '/api/clubs/?fields=code&approved=false')).json()).map(
      (c: { code: string }) => c.code,
    )
    expect(codes.filter((code: string) => code.startsWith('failed'))).toEqual([])
  })

  it('answers a failure as every error is answered: the headers every answer carries, the browsable view for a browser', async () => {
    const { send } = await sandboxed()
    const failed = await send('GET', '/api/clubs/?_fail=401')
    expect(failed.headers.get('access-control-allow-origin')).toBe('*')
    expect(failed.headers.get('x-content-type-options')).toBe('nosniff')
    expect(failed.headers.get('www-authenticate')).toBe('Bearer realm="api"')
    const refused = await send('GET', '/api/clubs/?_delay=soon')
    expect(refused.headers.get('access-control-allow-origin')).toBe('*')
    const page = await send('GET', '/api/clubs/?_fail=503', undefined, { accept: 'text/html' })
    expect(page.status).toBe(503)
    expect(page.headers.get('retry-after')).toBe('1')
    expect(page.headers.get('content-type')).toStartWith('text/html')
    expect(await page.text()).toContain('A failure asked for')
  })

  it.each([
    ['/api/clubs/?_delay=10001', '_delay'],
    ['/api/clubs/?_delay=soon', '_delay'],
    ['/api/clubs/?_fail=418', '_fail'],
    ['/api/clubs/?_fail=', '_fail'],
  ])('refuses %s with a 400 naming %s', async (path, name) => {
    const { send } = await sandboxed()
    const answer = await send('GET', path)
    expect(answer.status).toBe(400)
    expect((await answer.json()).detail).toContain(name)
  })

  it('refuses a bad Prefer value with a 400 naming it', async () => {
    const { send } = await sandboxed()
    for (const [prefer, name] of [
      ['delay=99999', 'Prefer: delay'],
      ['code=299', 'Prefer: code'],
    ]) {
      const answer = await send('GET', '/api/tags/', undefined, { prefer: prefer! })
      expect(answer.status).toBe(400)
      expect((await answer.json()).detail).toContain(name)
    }
  })

  it('logs the newest requests for an admin only: method, path with query, status, duration, sizes, time', async () => {
    const { send, base } = await start({ CLUBS_DATA_FILE: ':memory:', CLUBS_SANDBOX: 'true' })
    await send('GET', '/api/clubs/?search=chess')
    await send('POST', '/api/clubs/', club('Logged Club'))
    expect((await fetch(`${base}/api/_sandbox/requests`)).status).toBe(401)
    const answer = await send('GET', '/api/_sandbox/requests?limit=3')
    expect(answer.status).toBe(200)
    const [refused, created, searched] = await answer.json()
    expect(refused).toMatchObject({ method: 'GET', path: '/api/_sandbox/requests', status: 401 })
    expect(refused.response_bytes).toBeGreaterThan(0)
    expect(created).toMatchObject({ method: 'POST', path: '/api/clubs/', status: 201 })
    expect(created.request_bytes).toBeGreaterThan(0)
    expect(searched).toMatchObject({ method: 'GET', path: '/api/clubs/?search=chess', status: 200 })
    expect(searched.duration_ms).toBeGreaterThanOrEqual(0)
    expect(Date.parse(searched.at)).not.toBeNaN()
    expect((await send('GET', '/api/_sandbox/requests?limit=0')).status).toBe(400)
  })

  it('sends a follower of the change log 410 after a reset, and the list starts it again', async () => {
    const { send, base } = await start({ CLUBS_DATA_FILE: join(tempDir(), 'db.json'), CLUBS_SANDBOX: 'true' })
    const listed = await send('GET', '/api/clubs/?fields=code')
    const seq = listed.headers.get('x-changes-seq')!
    const stream = new SseReader(await fetch(`${base}/api/changes/stream?since=${seq}`))
    await send('POST', '/api/clubs/', club('Followed Club'))
    await stream.waitFor((m) => m.event !== undefined || m.data !== undefined)
    const lastSeen = Number(stream.messages.findLast((m) => m.id)!.id)
    expect((await send('POST', '/api/_sandbox/reset')).status).toBe(200)
    // The stream ends; coming back where it was, the follower is told to list again.
    await stream.done
    expect((await fetch(`${base}/api/changes/?since=${lastSeen}`)).status).toBe(410)
    const again = await send('GET', '/api/clubs/?fields=code')
    const from = Number(again.headers.get('x-changes-seq'))
    expect(from).toBeGreaterThan(lastSeen)
    expect((await fetch(`${base}/api/changes/?since=${from}`)).status).toBe(200)
  })

  it('lets writes racing a reset each land wholly before or after it', async () => {
    const { send } = await start({ CLUBS_DATA_FILE: join(tempDir(), 'db.json'), CLUBS_SANDBOX: 'true' })
    const { clubs } = await (await send('POST', '/api/_sandbox/reset')).json()
    const writes = Array.from({ length: 12 }, (_, i) => send('POST', '/api/clubs/', club(`Racer ${i}`)))
    const reset = send('POST', '/api/_sandbox/reset')
    const answers = await Promise.all([...writes, reset])
    expect(answers.map((a) => a.status)).toEqual([...Array(12).fill(201), 200])
    const codes = (await (await send('GET', '/api/clubs/?fields=code')).json()).map((c: { code: string }) => c.code)
    const racers = codes.filter((code: string) => code.startsWith('racer-'))
    // Those after the reset are there, whole; those before it are gone.
    expect(codes.length).toBe(clubs + racers.length)
    for (const code of racers) expect((await send('GET', `/api/clubs/${code}/`)).status).toBe(200)
  })
})

let shared: Awaited<ReturnType<typeof start>> | null = null
const sandboxed = async () => (shared ??= await start({ CLUBS_DATA_FILE: ':memory:', CLUBS_SANDBOX: 'true' }))

describe('a generated campus: CLUBS_SEED_FILE=demo', () => {
  it('makes the same clubs for the same N, with meetings, officers, tags and logos the service serves', async () => {
    const answers = []
    for (let run = 0; run < 2; run++) {
      const { send, base } = await start({ CLUBS_DATA_FILE: join(tempDir(), 'db.json'), CLUBS_SEED_FILE: 'demo:300' })
      const clubs = await (await send('GET', '/api/clubs/?ordering=code')).json()
      answers.push(clubs)
      expect(clubs.length).toBe(300)
      const withLogo = clubs.filter((c: { image_url: string | null }) => c.image_url)
      expect(withLogo.length).toBeGreaterThan(0)
      const logo = await fetch(withLogo[0].image_url.replace(/^https?:\/\/[^/]+/, base))
      expect(logo.status).toBe(200)
      expect(logo.headers.get('content-type')).toBe('image/webp')
      const meetings = await (await send('GET', '/api/clubs/?fields=meetings')).json()
      const days = new Set(meetings.flatMap((c: { meetings: { day: string }[] }) => c.meetings.map((m) => m.day)))
      expect(days.size).toBe(7)
      expect(clubs.every((c: { tags: unknown[] }) => c.tags.length > 0)).toBe(true)
      const officers = await (await send('GET', `/api/clubs/${clubs[0].code}/officers/`)).json()
      expect(officers.length).toBeGreaterThan(0)
    }
    const names = (list: { code: string; name: string; meetings: unknown }[]) =>
      list.map(({ code, name, meetings }) => ({ code, name, meetings }))
    expect(names(answers[1]!)).toEqual(names(answers[0]!))
    expect(answers[1]!.map((c: { image_url: string | null }) => c.image_url?.replace(/^https?:\/\/[^/]+/, ''))).toEqual(
      answers[0]!.map((c: { image_url: string | null }) => c.image_url?.replace(/^https?:\/\/[^/]+/, '')),
    )
  })

  it.each([
    ['CLUBS_SEED_FILE', 'demo:0'],
    ['CLUBS_SEED_FILE', 'demo:100001'],
    ['CLUBS_SANDBOX', 'maybe'],
  ])('refuses to start with %s=%p, naming it', async (name, value) => {
    const { code, stderr } = await runToEnd([process.execPath, ENTRY], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', CLUBS_DATA_FILE: ':memory:', [name]: value },
    })
    expect(code).toBe(1)
    expect(stderr).toContain(name)
  })
})

describe('the sandbox on PostgreSQL', () => {
  let pg: Postgres | null = null
  afterAll(() => pg?.stop())

  it('refuses a reset with a 409 that says what to do instead; delays, failures and the log work', async () => {
    pg = await startPostgres()
    const { send } = await start({ CLUBS_DATABASE_URL: await pg.createDatabase(), CLUBS_SANDBOX: 'true' })
    const reset = await send('POST', '/api/_sandbox/reset')
    expect(reset.status).toBe(409)
    expect((await reset.json()).detail).toContain('npm run reset')
    expect((await send('POST', '/api/clubs/?_fail=502', club('Never Made'))).status).toBe(502)
    expect((await send('GET', '/api/clubs/never-made/')).status).toBe(404)
    const [logged] = await (await send('GET', '/api/_sandbox/requests?limit=1')).json()
    expect(logged).toMatchObject({ path: '/api/clubs/never-made/', status: 404 })
  }, 60_000)
})

describe('the guide (docs/hackathon.md)', () => {
  it('git-ignores its data files and what each keeps beside it, the secret .key included', () => {
    const paths = [
      'data/mine.json',
      'data/mine.json.key',
      'data/mine.json.changes',
      'data/mine.json.logos/a.webp',
      'data/empty.json',
      'data/empty.json.key',
      'elsewhere/db.json.key',
    ]
    const ignored = spawnSync('git', ['check-ignore', ...paths], { cwd: ROOT, encoding: 'utf8' }).stdout.split('\n')
    expect(ignored.filter(Boolean)).toEqual(paths)
  })

  it('names every field of a seed row the directory does not have, and what to do', async () => {
    const seed = join(tempDir(), 'mine.json')
    await Bun.write(seed, JSON.stringify([{ name: 'Go Club', tags: ['Games'], colour: 'red', mascot: 'owl' }]))
    const { code, stderr } = await runToEnd([process.execPath, ENTRY], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', CLUBS_DATA_FILE: ':memory:', CLUBS_SEED_FILE: seed },
    })
    expect(code).toBe(1)
    expect(stderr).toContain('row 1: colour, mascot: the directory has no such fields; remove them from the seed')
  })
})
