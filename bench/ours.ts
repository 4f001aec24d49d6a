// OURS at one size: start-up, the reads, durable creates, the mix, and RSS throughout.
import { join } from 'node:path'
import { count, measure, settler, type LoadOf, type Recorder } from './measure'
import { rssMb, sampleRss, sleep } from './procs'
import { ADMIN_TOKEN, startOurs, type Server } from './servers'

export const STARTS = 3
const GZIP_AT = 1000

export interface OursResult {
  /** The list representation OURS answered, for json-server's db.json. */
  readonly list: { code: string }[]
  /** Its exact bytes, for the ceiling. */
  readonly listBody: Uint8Array
  /** A club in the middle of the list, for retrieve. */
  readonly code: string
  readonly startupMs: number[]
  /** Once started (after the first list answer); peaks during and after the list load, all reads, the writes. */
  readonly rssMb: { started: number; list: number; reads: number; writes: number }
  readonly gzip: { plain: number; gzip: number } | null
}

async function rawBody(url: string, encoding: string) {
  const res = await fetch(url, { headers: { 'Accept-Encoding': encoding }, decompress: false })
  const body = new Uint8Array(await res.arrayBuffer())
  return { body, etag: res.headers.get('etag') ?? '', encoding: res.headers.get('content-encoding') }
}

async function liveClubs(server: Server): Promise<number> {
  return ((await (await fetch(`${server.base}/health`)).json()) as { clubs: number }).clubs
}

/** `measure` with the peak RSS of `pid` over it, and over `afterMs` more. */
async function withRss(pid: number, load: LoadOf, settle: () => Promise<void>, afterMs = 0) {
  const sampler = sampleRss(pid)
  const result = await measure(pid, load, settle)
  if (afterMs) await sleep(afterMs)
  return { ...result, rssMb: await sampler.stop() }
}

/** Starts OURS `STARTS` times for the start-up figure; the last one stays up. */
async function startUp(dataSet: string, copyOf: (i: number) => string) {
  const startupMs: number[] = []
  let server: Server | null = null
  for (let i = 1; i <= STARTS; i++) {
    await server?.stop()
    server = await startOurs(dataSet, copyOf(i))
    startupMs.push(server.startupMs)
  }
  return { server: server!, startupMs }
}

export async function benchOurs(size: number, dataSet: string, tmp: string, rec: Recorder): Promise<OursResult> {
  const { server, startupMs } = await startUp(dataSet, (i) => join(tmp, `ours-${size}-${i}.json`))
  const base = server.base
  const rssStarted = (await rssMb(server.child.pid)) ?? 0
  rec.say(`  start-up to first 200: ${startupMs.map((ms) => ms.toFixed(0)).join(', ')} ms`)

  const plain = await rawBody(`${base}/api/clubs/`, 'identity')
  if (plain.encoding !== null) throw new Error('OURS gzipped a list for a client that does not take gzip')
  const list = JSON.parse(new TextDecoder().decode(plain.body)) as { code: string }[]
  if (list.length !== size) throw new Error(`OURS lists ${list.length} clubs, expected ${size}`)
  const zipped = size === GZIP_AT ? await rawBody(`${base}/api/clubs/`, 'gzip') : null
  if (zipped && zipped.encoding !== 'gzip') throw new Error(`OURS did not gzip the list at ${size} clubs`)
  const code = list[Math.floor(size / 2)]!.code

  const settle = settler(`${base}/health`)
  const get =
    (path: string, script?: string, headers?: Record<string, string>): LoadOf =>
    () => ({ url: base + path, script, headers })
  const pid = server.child.pid

  // Just after the list load too: memory not yet given back counts.
  const listed = await withRss(pid, get('/api/clubs/'), settle, 1000)
  rec.record('ours', 'list', 'list', listed)
  const reads = [listed]
  const read = async (key: string, label: string, load: LoadOf) => {
    const result = await withRss(pid, load, settle)
    reads.push(result)
    rec.record('ours', key, label, result)
  }
  await read('ordering', 'list ?ordering=name', get('/api/clubs/?ordering=name'))
  await read('search', 'list ?search=chess', get('/api/clubs/?search=chess'))
  await read('page', 'list ?page=2&page_size=20', get('/api/clubs/?page=2&page_size=20'))
  await read('retrieve', 'retrieve /api/clubs/<code>/', get(`/api/clubs/${code}/`))
  const cached = await withRss(pid, get('/api/clubs/', 'statuses.lua', { 'If-None-Match': plain.etag }), settle)
  reads.push(cached)
  const n304 = cached.statuses['304'] ?? 0
  rec.record('ours', 'not-modified', 'list, If-None-Match (304)', cached, {
    check: `${count(n304)} of ${count(cached.requests)} answers were 304`,
    ok: n304 > 0 && n304 === cached.requests,
  })

  const before = await liveClubs(server)
  const creates: LoadOf = (phase) => ({
    url: `${base}/api/clubs/`,
    script: 'create.lua',
    args: [`o${size}c${phase}`],
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
  })
  const created = await withRss(pid, creates, settle)
  const n201 = created.statuses['201'] ?? 0
  const after = await liveClubs(server)
  rec.record('ours', 'create', 'create (durable, admin token)', created, {
    check: `${count(n201)} of ${count(created.requests)} answers were 201; clubs ${count(before)} → ${count(after)} (every run included)`,
    ok: n201 > 0 && n201 === created.requests,
  })
  await server.stop()

  // The mix starts again from the data set, so that the creates above do not weigh on it.
  const fresh = await startOurs(dataSet, join(tmp, `ours-${size}-mix.json`))
  const paths = ['/api/clubs/', '/api/clubs/?page=2&page_size=20', '/api/clubs/?search=chess', `/api/clubs/${code}/`]
  const mix: LoadOf = (phase) => ({
    url: `${fresh.base}/api/clubs/`,
    script: 'mix.lua',
    args: [`o${size}x${phase}`, ADMIN_TOKEN, '/api/clubs/', ...paths],
  })
  const mixBefore = await liveClubs(fresh)
  const mixed = await withRss(fresh.child.pid, mix, settler(`${fresh.base}/health`))
  const mixAfter = await liveClubs(fresh)
  rec.record('ours', 'mix', 'mix: 95% reads / 5% creates', mixed, {
    check: `clubs ${count(mixBefore)} → ${count(mixAfter)} (every run included); ${count(mixed.non2xx3xx)} non-2xx/3xx answers`,
    ok: mixAfter > mixBefore && mixed.non2xx3xx === 0,
  })
  await fresh.stop()

  return {
    list,
    listBody: plain.body,
    code,
    startupMs,
    rssMb: {
      started: rssStarted,
      list: listed.rssMb,
      reads: Math.max(...reads.map((r) => r.rssMb)),
      writes: Math.max(created.rssMb, mixed.rssMb),
    },
    gzip: zipped ? { plain: plain.body.length, gzip: zipped.body.length } : null,
  }
}
