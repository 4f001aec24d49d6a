// Soak test: runs the service as a process over its own temp data file, loads it with mixed
// traffic for a while, and watches its memory.
//
//   npx bun scripts/soak.ts [seconds]          (default 300; or SOAK_SECONDS; npm run soak)
//
// 32 workers (SOAK_WORKERS) send 90% reads (list, retrieve, a page, a search) and 10% writes
// (creates, patches, favorites). The process's RSS is sampled from /proc/<pid>/status every
// 5 s. It prints start, end and max RSS, request and error counts, latencies, and whether RSS
// stayed flat: the end within +15% of the value after the first 30 s. Exits 1 on a 5xx, a
// failed connection, a service that did not stop cleanly, or RSS that did not stay flat.
import { randomBytes } from 'node:crypto'
import { readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { SEED_FILE, tempDir } from '../harness/app'
import { freePort, sleep, spawnService, waitForHealth } from '../harness/service'
import { answerHelp } from '../src/command-help'

answerHelp(`usage: npm run soak -- [seconds]

Runs the service as a process over a temp data file and loads it with mixed traffic for
\`seconds\` (default 300, or SOAK_SECONDS) from SOAK_WORKERS workers (default 32), sampling its RSS.
Exits 1 on a 5xx, a failed connection, an unclean stop, or RSS that did not stay flat.`)

const SAMPLE_MS = 5_000
const WARMUP_S = 30
const FLAT_TOLERANCE = 0.15
/** Creates stop growing the data past this many clubs (then they patch instead), so RSS measures leaks, not data. */
const MAX_CREATED = 200
const USERS = 8

function whole(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1) {
    console.error(`soak: ${name} must be a whole number from 1, not "${raw}"`)
    process.exit(2)
  }
  return n
}

const seconds = whole(process.argv[2] ?? process.env.SOAK_SECONDS, 'the duration in seconds', 300)
const workers = whole(process.env.SOAK_WORKERS, 'SOAK_WORKERS', 32)

// ---------------------------------------------------------------------------------------------
// The service
// ---------------------------------------------------------------------------------------------

const dir = tempDir('clubs-soak-')
const dataFile = join(dir, 'db.json')
const adminToken = `soak-${randomBytes(18).toString('hex')}`
const port = freePort()
const base = `http://127.0.0.1:${port}`
const proc = spawnService(
  port,
  {
    CLUBS_DATA_FILE: dataFile,
    CLUBS_ADMIN_TOKEN: adminToken,
    CLUBS_LOG_LEVEL: 'warn',
    CLUBS_RATE_LIMIT: '0',
  },
  {
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  },
)
// Drained as they come, so a full pipe never stalls the service; kept for the report.
const output = Promise.all([
  new Response(proc.stdout as ReadableStream).text(),
  new Response(proc.stderr as ReadableStream).text(),
])

const cleanUp = () => {
  if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
}
process.on('SIGINT', () => {
  cleanUp()
  process.exit(130)
})

function rssKiB(): number | null {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'))
    return match ? Number(match[1]) : null
  } catch {
    return null
  }
}

const mib = (kib: number | null | undefined) => (kib == null ? 'n/a' : `${(kib / 1024).toFixed(1)} MiB`)

// ---------------------------------------------------------------------------------------------
// Traffic
// ---------------------------------------------------------------------------------------------

type Kind = 'list' | 'retrieve' | 'page' | 'search' | 'create' | 'patch' | 'favorite'

/** What each kind of request is, out of 100. */
const MIX: [Kind, number][] = [
  ['list', 30],
  ['retrieve', 30],
  ['page', 15],
  ['search', 15],
  ['create', 3],
  ['patch', 4],
  ['favorite', 3],
]
const WHEEL: Kind[] = MIX.flatMap(([kind, n]) => Array<Kind>(n).fill(kind))

const seed = JSON.parse(readFileSync(SEED_FILE, 'utf8')) as {
  clubs: { code: string; name: string; approved: boolean; active: boolean }[]
}
const publicCodes = seed.clubs.filter((c) => c.approved && c.active).map((c) => c.code)
const words = [...new Set(seed.clubs.flatMap((c) => c.name.toLowerCase().split(/\s+/)))].filter((w) => w.length > 2)
const created: string[] = []
let creates = 0
const userTokens: string[] = []
/** Which clubs each user has favorited, so favorites toggle rather than collide (mostly: workers race). */
const favorites = new Map<string, Set<string>>()

const counts = new Map<Kind, number>()
const statuses = new Map<string, number>()
const latencies: number[] = []
let failures = 0
let serverErrors = 0
let clientErrors = 0
const firstProblems: string[] = []

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!
const json = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' })

function note(problem: string) {
  if (firstProblems.length < 10) firstProblems.push(problem)
}

async function send(kind: Kind, method: string, path: string, init: RequestInit = {}, expected: number[] = []) {
  const started = performance.now()
  let status: number
  try {
    const res = await fetch(`${base}${path}`, { method, ...init })
    status = res.status
    await res.arrayBuffer()
  } catch (error) {
    failures++
    note(`${method} ${path}: ${(error as Error).message}`)
    return null
  } finally {
    latencies.push(performance.now() - started)
    counts.set(kind, (counts.get(kind) ?? 0) + 1)
  }
  statuses.set(`${status}`, (statuses.get(`${status}`) ?? 0) + 1)
  if (status >= 500) {
    serverErrors++
    note(`${method} ${path} → ${status}`)
  } else if (status >= 400 && !expected.includes(status)) {
    clientErrors++
    note(`${method} ${path} → ${status}`)
  }
  return status
}

async function one(): Promise<void> {
  const kind = pick(WHEEL)
  switch (kind) {
    case 'list':
      await send(kind, 'GET', '/api/clubs/', { headers: Math.random() < 0.5 ? { 'accept-encoding': 'gzip' } : {} })
      return
    case 'retrieve':
      await send(kind, 'GET', `/api/clubs/${pick(publicCodes)}/`)
      return
    case 'page': {
      const size = pick([5, 10, 15, 25, 100])
      const pages = Math.ceil(publicCodes.length / size)
      await send(kind, 'GET', `/api/clubs/?page=${1 + Math.floor(Math.random() * pages)}&page_size=${size}`)
      return
    }
    case 'search': {
      const term = Math.random() < 0.8 ? pick(words) : randomBytes(3).toString('hex')
      await send(
        kind,
        'GET',
        `/api/clubs/?search=${encodeURIComponent(term)}&ordering=${pick(['name', '-founded', 'size', '-favorite_count'])}`,
      )
      return
    }
    case 'create': {
      if (creates >= MAX_CREATED) return patch()
      const n = ++creates
      const body = JSON.stringify({
        name: `Soak Club ${n} ${randomBytes(4).toString('hex')}`,
        subtitle: 'soak',
        approved: true,
      })
      const start = performance.now()
      const res = await fetch(`${base}/api/clubs/`, { method: 'POST', headers: json(adminToken), body }).catch(
        (error) => {
          failures++
          note(`POST /api/clubs/: ${(error as Error).message}`)
          return null
        },
      )
      latencies.push(performance.now() - start)
      counts.set(kind, (counts.get(kind) ?? 0) + 1)
      if (!res) return
      statuses.set(`${res.status}`, (statuses.get(`${res.status}`) ?? 0) + 1)
      if (res.status === 201) created.push(((await res.json()) as { code: string }).code)
      else {
        await res.arrayBuffer()
        if (res.status >= 500) serverErrors++
        else clientErrors++
        note(`POST /api/clubs/ → ${res.status}`)
      }
      return
    }
    case 'patch':
      return patch()
    case 'favorite': {
      const user = Math.floor(Math.random() * userTokens.length)
      const held = favorites.get(userTokens[user]!)!
      const code = pick(publicCodes)
      if (held.has(code)) {
        held.delete(code)
        await send(kind, 'DELETE', `/api/favorites/${code}/`, { headers: json(userTokens[user]!) }, [404])
      } else {
        held.add(code)
        await send(
          kind,
          'POST',
          '/api/favorites/',
          { headers: json(userTokens[user]!), body: JSON.stringify({ club: code }) },
          [400],
        )
      }
      return
    }
  }
}

async function patch(): Promise<void> {
  const code = created.length && Math.random() < 0.7 ? pick(created) : pick(publicCodes)
  const body = JSON.stringify({
    subtitle: `soak ${randomBytes(6).toString('hex')}`,
    size: 1 + Math.floor(Math.random() * 4),
  })
  await send('patch', 'PATCH', `/api/clubs/${code}/`, { headers: json(adminToken), body })
}

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  await waitForHealth(base, proc)
  for (let i = 0; i < USERS; i++) {
    const res = await fetch(`${base}/api/users/`, {
      method: 'POST',
      headers: json(adminToken),
      body: JSON.stringify({ username: `soak-user-${i}` }),
    })
    if (res.status !== 201) throw new Error(`could not create a user: ${res.status} ${await res.text()}`)
    const token = ((await res.json()) as { token: string }).token
    userTokens.push(token)
    favorites.set(token, new Set())
  }

  console.log(
    `soak: ${seconds} s, ${workers} workers, service pid ${proc.pid} on ${base}, data ${dataFile}\n` +
      `      mix: ${MIX.map(([kind, n]) => `${kind} ${n}%`).join(', ')}`,
  )
  const started = Date.now()
  const end = started + seconds * 1000
  const samples: { t: number; rss: number }[] = []
  const sample = () => {
    const rss = rssKiB()
    if (rss !== null) samples.push({ t: (Date.now() - started) / 1000, rss })
    return rss
  }
  sample()
  let lastCount = 0
  const sampler = setInterval(() => {
    const rss = sample()
    const total = latencies.length
    const t = (Date.now() - started) / 1000
    console.log(
      `  ${t.toFixed(0).padStart(4)} s  RSS ${mib(rss).padStart(10)}  ${String(total).padStart(8)} requests  ` +
        `${((total - lastCount) / (SAMPLE_MS / 1000)).toFixed(0).padStart(6)}/s  errors ${serverErrors + failures}`,
    )
    lastCount = total
  }, SAMPLE_MS)

  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (Date.now() < end) await one()
    }),
  )
  clearInterval(sampler)
  sample()
  const elapsed = (Date.now() - started) / 1000

  proc.kill('SIGTERM')
  const exitCode = await Promise.race([proc.exited, sleep(10_000).then(() => 'timeout' as const)])
  const [stdout, stderr] = await Promise.race([output, sleep(2_000).then(() => ['', ''])])
  const fileBytes = (() => {
    try {
      return statSync(dataFile).size
    } catch {
      return null
    }
  })()

  // RSS: the start, the value after the warm-up (the first sample at or past 30 s), the end, the max.
  const first = samples[0]
  const last = samples.at(-1)
  const settled = samples.find((s) => s.t >= WARMUP_S) ?? first
  const max = samples.reduce((m, s) => Math.max(m, s.rss), 0)
  const flat = settled && last ? last.rss <= settled.rss * (1 + FLAT_TOLERANCE) : false
  latencies.sort((a, b) => a - b)
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))] ?? 0

  console.log('\nsummary')
  console.log(`  duration     ${elapsed.toFixed(1)} s, ${workers} workers`)
  console.log(
    `  requests     ${latencies.length} (${(latencies.length / elapsed).toFixed(0)}/s): ` +
      MIX.map(([kind]) => `${kind} ${counts.get(kind) ?? 0}`).join(', '),
  )
  console.log(
    `  statuses     ${[...statuses]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([s, n]) => `${s} ×${n}`)
      .join(', ')}`,
  )
  console.log(
    `  errors       5xx ${serverErrors}, failed connections ${failures}, unexpected 4xx ${clientErrors}` +
      (firstProblems.length ? `\n               first: ${firstProblems.join('; ')}` : ''),
  )
  console.log(
    `  latency      p50 ${pct(50).toFixed(2)} ms, p99 ${pct(99).toFixed(2)} ms, max ${pct(100).toFixed(1)} ms`,
  )
  console.log(
    `  clubs made   ${created.length} (at most ${MAX_CREATED}); data file ${fileBytes === null ? 'n/a' : `${(fileBytes / 1024).toFixed(0)} KiB`}`,
  )
  console.log(
    `  RSS          start ${mib(first?.rss)}, after ${settled === first ? 'start (run shorter than the warm-up)' : `${settled!.t.toFixed(0)} s`} ` +
      `${mib(settled?.rss)}, end ${mib(last?.rss)}, max ${mib(max)}`,
  )
  console.log(
    `  flat         ${flat ? 'yes' : 'NO'}: end is ${settled && last ? `${(((last.rss - settled.rss) / settled.rss) * 100).toFixed(1)}%` : 'n/a'} ` +
      `from the value after the warm-up (limit +${FLAT_TOLERANCE * 100}%)`,
  )
  console.log(`  stop         ${exitCode === 0 ? 'exit 0 on SIGTERM' : `exit ${exitCode}`}`)
  if (exitCode !== 0 || stderr.trim())
    console.log(`  service said ${(stdout + stderr).trim().split('\n').slice(-10).join('\n               ')}`)

  const ok = serverErrors === 0 && failures === 0 && flat && exitCode === 0
  console.log(ok ? '\nsoak passed' : '\nsoak FAILED')
  return ok ? 0 : 1
}

main()
  .then((code) => {
    cleanUp()
    process.exit(code)
  })
  .catch((error) => {
    console.error(error)
    cleanUp()
    process.exit(1)
  })
