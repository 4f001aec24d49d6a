// Crash rounds for the real service (docs/reference.md §9): many clients write (creates, PATCHes, join
// requests asked and withdrawn) while the process is killed with SIGKILL at a random moment;
// after each kill the service restarts on the same data file and every acknowledged write must
// still be there, and nothing half-applied may show.
// Used by test/crash.test.ts (a few rounds) and scripts/crash-soak.ts (many rounds).
import type { Subprocess } from 'bun'
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { snapshotProblem } from '../src/domain/snapshot-format'
import { lockFileOf } from '../src/store/store'
import { Asker, foundRequests, type FoundRequests } from './crash-requests'
import { ENTRY, freePort, ROOT, sleep, waitForHealth } from './service'
import { directoryOnDisk } from './on-disk'

export interface CrashOptions {
  /** A folder of its own: the data file and the server logs go here. */
  readonly dir: string
  readonly adminToken: string
  /**
   * Concurrent writing clients; each owns one club that only it PATCHes, and a user who asks to
   * join the clubs (at most 50 pending, as docs/reference.md §12 allows). Default 50.
   */
  readonly clients?: number
  /** The kill comes this many ms into the load, uniformly at random. Default [100, 400]. */
  readonly killWindowMs?: readonly [number, number]
  /** At most this many requests per client per round (bounds the data file's growth). Default 40. */
  readonly maxOpsPerClient?: number
  /** More of the service's variables (CLUBS_JOURNAL_BYTES, to have kills land during compactions). */
  readonly env?: Readonly<Record<string, string>>
}

export interface RoundReport {
  readonly round: number
  readonly killAfterMs: number
  readonly creates: { sent: number; acknowledged: number }
  readonly patches: { sent: number; acknowledged: number }
  /** Join requests asked and withdrawn. */
  readonly requests: { sent: number; acknowledged: number }
  /** Answers other than 200/201 and connection failures, by kind (`503`, `network`, ...). */
  readonly other: Record<string, number>
  /** Clubs in the data file the kill left behind. */
  readonly clubsOnDisk: number
  readonly restartMs: number
  /** Whether the killed process left its lock file behind (the restart has to take it over). */
  readonly staleLock: boolean
  /** Everything found wrong; empty when the round passed. */
  readonly problems: string[]
}

/** One club a client PATCHes, with every token sent to it by sequence number. */
interface Target {
  readonly index: number
  code: string
  nextSeq: number
  /** The highest sequence number known to be durable (acknowledged, or seen after a restart). */
  durableSeq: number
  readonly sent: Map<number, string>
}

const TOKEN = /^crash~(\d+)~(\d+)~[a-z0-9]+$/

const tokenFor = (target: Target, seq: number) =>
  `crash~${target.index}~${seq}~${Math.random().toString(36).slice(2, 8)}`

/** Runs a service process over one data file, kills it, restarts it, and checks what survived. */
export class CrashHarness {
  readonly dataFile: string
  readonly #dir: string
  readonly #token: string
  readonly #clients: number
  readonly #window: readonly [number, number]
  readonly #maxOps: number
  readonly #env: Readonly<Record<string, string>>
  readonly #spawned: Subprocess[] = []
  readonly #targets: Target[] = []
  readonly #askers: Asker[] = []
  /** Names of every create answered 201, with the code when the body arrived too. */
  readonly #created = new Map<string, string | null>()
  #proc: Subprocess | null = null
  #base = ''
  #starts = 0
  #rounds = 0

  constructor(options: CrashOptions) {
    this.#dir = options.dir
    this.dataFile = join(options.dir, 'db.json')
    this.#token = options.adminToken
    this.#clients = options.clients ?? 50
    this.#window = options.killWindowMs ?? [100, 400]
    this.#maxOps = options.maxOpsPerClient ?? 40
    this.#env = options.env ?? {}
  }

  get base(): string {
    return this.#base
  }

  /** Acknowledged creates so far. */
  get createdCount(): number {
    return this.#created.size
  }

  /** Starts the service (seeding the data file) and creates the clubs the clients will PATCH. */
  async setUp(): Promise<void> {
    await this.#start()
    for (let i = 0; i < this.#clients; i++) {
      const target: Target = { index: i, code: '', nextSeq: 1, durableSeq: 0, sent: new Map() }
      const token = tokenFor(target, 0)
      target.sent.set(0, token)
      const res = await this.#send('POST', '/api/clubs/', {
        name: `Crash Target ${i} ${Math.random().toString(36).slice(2, 8)}`,
        subtitle: token,
        description: token,
      })
      if (res.status !== 201) throw new Error(`crash: creating target ${i} answered ${res.status}: ${await res.text()}`)
      target.code = ((await res.json()) as { code: string }).code
      this.#targets.push(target)
      // Public and open, so that the clients' users may ask to join it.
      const opened = await this.#send('PATCH', `/api/clubs/${target.code}/`, {
        approved: true,
        accepting_members: true,
      })
      if (opened.status !== 200) throw new Error(`crash: opening target ${i} answered ${opened.status}`)
      const username = `crash-asker-${i}`
      const issued = await this.#send('POST', '/api/users/', { username })
      if (issued.status !== 201) throw new Error(`crash: issuing ${username} answered ${issued.status}`)
      this.#askers.push(new Asker(username, ((await issued.json()) as { token: string }).token))
    }
  }

  /** Load, SIGKILL at a random moment, check the file, restart on it, check the service. */
  async round(): Promise<RoundReport> {
    const round = ++this.#rounds
    const proc = this.#proc
    if (!proc) throw new Error('crash: the service is not running; call setUp() first')
    const [low, high] = this.#window
    const killAfterMs = Math.round(low + Math.random() * (high - low))
    const problems: string[] = []
    const tally = {
      creates: { sent: 0, acknowledged: 0 },
      patches: { sent: 0, acknowledged: 0 },
      requests: { sent: 0, acknowledged: 0 },
    }
    const codes = this.#targets.map((target) => target.code)
    const other: Record<string, number> = {}
    const count = (kind: string) => (other[kind] = (other[kind] ?? 0) + 1)

    let stopped = false
    const client = async (target: Target) => {
      const asker = this.#askers[target.index]!
      for (let op = 0; op < this.#maxOps && !stopped; op++) {
        try {
          if (op % 3 === 2) {
            const change = asker.next(codes, round)
            if (!change) continue
            tally.requests.sent++
            const res = await this.#send(change.method, change.path, change.body, asker.token)
            change.answered(res.status === change.expected)
            if (res.status !== change.expected) count(String(res.status))
            else tally.requests.acknowledged++
          } else if (op % 3 === 0) {
            const name = `Crash r${round} c${target.index} n${op} ${Math.random().toString(36).slice(2, 8)}`
            tally.creates.sent++
            const res = await this.#send('POST', '/api/clubs/', { name })
            if (res.status !== 201) {
              count(String(res.status))
              continue
            }
            tally.creates.acknowledged++
            this.#created.set(name, null)
            const code = await res
              .json()
              .then((body) => (body as { code: string }).code)
              .catch(() => null)
            this.#created.set(name, code)
          } else {
            const seq = target.nextSeq++
            const token = tokenFor(target, seq)
            target.sent.set(seq, token)
            tally.patches.sent++
            const res = await this.#send('PATCH', `/api/clubs/${target.code}/`, {
              subtitle: token,
              description: token,
            })
            if (res.status !== 200) {
              count(String(res.status))
              continue
            }
            tally.patches.acknowledged++
            target.durableSeq = Math.max(target.durableSeq, seq)
          }
        } catch {
          // The connection failed: the process is gone (or going). This client's round is over.
          count('network')
          return
        }
      }
    }

    const load = Promise.all(this.#targets.map(client))
    await sleep(killAfterMs)
    this.#kill(proc)
    stopped = true
    await proc.exited
    // Every request has a 5 s timeout, so this ends; the race is one more bound.
    await Promise.race([load, sleep(10_000)])
    this.#proc = null
    const staleLock = lockPid(lockFileOf(this.dataFile)) === proc.pid

    // The file the kill left: complete JSON, a valid snapshot, holding every acknowledged write.
    const onDisk = this.#checkFile(this.dataFile, problems, directoryOnDisk)
    if (onDisk) this.#checkRequests('file', foundRequests(onDisk.requests), problems)
    const backup = `${this.dataFile}.bak`
    if (existsSync(backup)) this.#checkFile(backup, problems)
    if (onDisk) {
      const byName = new Map(onDisk.clubs.map((club) => [club.name, club]))
      for (const [name, code] of this.#created) {
        const club = byName.get(name)
        if (!club || club.archived_at !== null) problems.push(`file: acknowledged create "${name}" is missing`)
        else if (code !== null && club.code !== code)
          problems.push(`file: "${name}" has code ${club.code}, answered ${code}`)
      }
      const byCode = new Map(onDisk.clubs.map((club) => [club.code, club]))
      for (const target of this.#targets) this.#checkTarget('file', target, byCode.get(target.code), problems)
    }

    // Restart on the same file: the stale lock of the killed process must not stop it.
    const started = performance.now()
    let restartMs = -1
    try {
      await this.#start()
      restartMs = Math.round(performance.now() - started)
    } catch (e) {
      problems.push(`restart: ${(e as Error).message}`)
    }
    if (restartMs >= 0) {
      await this.#checkService(problems)
      // What the restarted service holds is durable now; later rounds must not go back before it.
      for (const target of this.#targets) {
        for (const seq of target.sent.keys()) if (seq < target.durableSeq) target.sent.delete(seq)
      }
    }
    return {
      round,
      killAfterMs,
      ...tally,
      other,
      clubsOnDisk: onDisk?.clubs.length ?? 0,
      restartMs,
      staleLock,
      problems,
    }
  }

  /** Kills every service process this harness started (their process groups too). */
  async tearDown(): Promise<void> {
    for (const proc of this.#spawned.splice(0)) {
      if (proc.exitCode === null && proc.signalCode === null) this.#kill(proc)
      await Promise.race([proc.exited, sleep(5_000)])
    }
    this.#proc = null
  }

  async #start(): Promise<void> {
    const port = freePort()
    const log = join(this.#dir, `server-${++this.#starts}.log`)
    const fd = openSync(log, 'a')
    let proc: Subprocess
    try {
      proc = Bun.spawn([process.execPath, ENTRY], {
        cwd: ROOT,
        env: {
          ...process.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          CLUBS_DATA_FILE: this.dataFile,
          CLUBS_ADMIN_TOKEN: this.#token,
          CLUBS_LOG_LEVEL: 'warn',
          CLUBS_RATE_LIMIT: '',
          CLUBS_READ_ONLY: '',
          CLUBS_AUTO_APPROVE: '',
          ...this.#env,
        },
        stdin: 'ignore',
        stdout: fd,
        stderr: fd,
        // Not detached: a Ctrl-C at the terminal reaches the service too, so none is left behind.
      })
    } finally {
      closeSync(fd)
    }
    this.#spawned.push(proc)
    const base = `http://127.0.0.1:${port}`
    try {
      await waitForHealth(base, proc)
    } catch (e) {
      this.#kill(proc)
      const output = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : ''
      throw new Error(`${(e as Error).message} ${output}`.trim())
    }
    this.#proc = proc
    this.#base = base
  }

  /** `bun src/index.ts` is a single process (it starts no children): killing it is enough. */
  #kill(proc: Subprocess): void {
    try {
      proc.kill('SIGKILL')
    } catch {}
  }

  #send(method: string, path: string, json?: unknown, token = this.#token): Promise<Response> {
    return fetch(`${this.#base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: json === undefined ? undefined : JSON.stringify(json),
      signal: AbortSignal.timeout(5_000),
    })
  }

  #checkRequests(where: string, found: FoundRequests, problems: string[]): void {
    for (const asker of this.#askers) asker.check(where, found, problems)
  }

  /** Every asker's own pending requests, as the restarted service answers them. */
  async #requestsOfService(problems: string[]): Promise<FoundRequests | null> {
    const lists = await Promise.all(
      this.#askers.map(async ({ username, token }) => {
        const res = await this.#send('GET', '/api/users/me/requests/', undefined, token)
        if (res.status !== 200) problems.push(`service: ${username}'s requests answered ${res.status}`)
        const mine = res.status === 200 ? ((await res.json()) as { club: string; message: string }[]) : null
        return mine?.map((request) => ({ ...request, username })) ?? null
      }),
    )
    return lists.includes(null)
      ? null
      : foundRequests(lists.flat() as { club: string; username: string; message: string }[])
  }

  #checkFile(
    file: string,
    problems: string[],
    read: (file: string) => unknown = (file) => JSON.parse(readFileSync(file, 'utf8')),
  ): SnapshotOnDisk | null {
    let data: unknown
    try {
      data = read(file)
    } catch (e) {
      problems.push(`${file}: not readable JSON (${(e as Error).message})`)
      return null
    }
    const problem = snapshotProblem(data)
    if (problem) {
      problems.push(`${file}: not a snapshot (${problem})`)
      return null
    }
    return data as SnapshotOnDisk
  }

  /** subtitle === description, a token sent to this club, no older than the last durable one. */
  #checkTarget(where: string, target: Target, club: ClubText | undefined, problems: string[]): void {
    if (!club) return void problems.push(`${where}: target club ${target.code} is missing`)
    if (club.subtitle !== club.description)
      return void problems.push(
        `${where}: ${target.code} is half-updated: subtitle ${club.subtitle}, description ${club.description}`,
      )
    const match = TOKEN.exec(club.subtitle)
    const seq = match ? Number(match[2]) : NaN
    if (!match || Number(match[1]) !== target.index || target.sent.get(seq) !== club.subtitle)
      return void problems.push(`${where}: ${target.code} holds ${club.subtitle}, which was never sent to it`)
    if (seq < target.durableSeq)
      problems.push(`${where}: ${target.code} went back to #${seq}; #${target.durableSeq} was acknowledged`)
  }

  async #checkService(problems: string[]): Promise<void> {
    // The body is decompressed here rather than by fetch, so that a corrupt gzip answer is told
    // apart (with its sizes) from a fault in the client's own decompression.
    const get = async (path: string) => {
      const res = await fetch(`${this.#base}${path}`, {
        headers: { authorization: `Bearer ${this.#token}`, 'accept-encoding': 'gzip' },
        decompress: false,
        signal: AbortSignal.timeout(5_000),
      })
      const raw = new Uint8Array(await res.arrayBuffer())
      if (res.status !== 200) {
        problems.push(`service: GET ${path} answered ${res.status}`)
        return null
      }
      const length = res.headers.get('content-length')
      if (length !== null && Number(length) !== raw.byteLength)
        problems.push(`service: GET ${path} sent ${raw.byteLength} bytes with Content-Length ${length}`)
      let text: string
      try {
        text = new TextDecoder().decode(res.headers.get('content-encoding') === 'gzip' ? gunzipSync(raw) : raw)
      } catch (e) {
        problems.push(
          `service: GET ${path} sent a corrupt gzip body (${raw.byteLength} bytes): ${(e as Error).message}`,
        )
        return null
      }
      return JSON.parse(text) as unknown
    }
    try {
      const pending = (await get('/api/clubs/?approved=false&fields=code,name')) as { code: string; name: string }[]
      if (pending && !Array.isArray(pending)) problems.push('service: ?approved=false is not an array')
      else if (pending) {
        const byName = new Map(pending.map((club) => [club.name, club.code]))
        for (const [name, code] of this.#created) {
          if (!byName.has(name)) problems.push(`service: acknowledged create "${name}" is missing`)
          else if (code !== null && byName.get(name) !== code)
            problems.push(`service: "${name}" is ${byName.get(name)}, answered ${code}`)
        }
      }
      const details = await Promise.all(
        this.#targets.map((target) => get(`/api/clubs/${target.code}/`) as Promise<ClubText | null>),
      )
      this.#targets.forEach((target, i) => {
        const club = details[i]
        if (!club) return
        this.#checkTarget('service', target, club, problems)
        const seq = Number(TOKEN.exec(club.subtitle)?.[2])
        if (Number.isInteger(seq)) target.durableSeq = Math.max(target.durableSeq, seq)
      })
      const requests = await this.#requestsOfService(problems)
      if (requests) {
        this.#checkRequests('service', requests, problems)
        for (const asker of this.#askers) asker.settle(requests)
      }
      for (const path of ['/api/clubs/', '/api/clubs/?approved=true', '/api/tags/', '/health']) await get(path)
      // And it writes again: the lock it took over is its own.
      const name = `Crash probe ${this.#rounds} ${Math.random().toString(36).slice(2, 8)}`
      const probe = await this.#send('POST', '/api/clubs/', { name })
      if (probe.status !== 201) problems.push(`service: a create after the restart answered ${probe.status}`)
      else this.#created.set(name, ((await probe.json()) as { code: string }).code)
    } catch (e) {
      problems.push(`service: ${(e as Error).message}`)
    }
  }
}

/** The pid a lock file names, or null when there is none. */
function lockPid(file: string): number | null {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { pid: number }).pid
  } catch {
    return null
  }
}

interface ClubText {
  code: string
  name: string
  subtitle: string
  description: string
}
interface ClubOnDisk extends ClubText {
  archived_at: string | null
}
interface SnapshotOnDisk {
  clubs: ClubOnDisk[]
  requests: { club: string; username: string; message: string }[]
}

/** Adds up round reports for a summary. */
export function summarise(reports: readonly RoundReport[]) {
  const sum = (pick: (r: RoundReport) => number) => reports.reduce((n, r) => n + pick(r), 0)
  const restarts = reports.map((r) => r.restartMs).filter((ms) => ms >= 0)
  const other: Record<string, number> = {}
  for (const r of reports) for (const [k, v] of Object.entries(r.other)) other[k] = (other[k] ?? 0) + v
  return {
    rounds: reports.length,
    failedRounds: reports.filter((r) => r.problems.length > 0).length,
    staleLocks: reports.filter((r) => r.staleLock).length,
    creates: { sent: sum((r) => r.creates.sent), acknowledged: sum((r) => r.creates.acknowledged) },
    patches: { sent: sum((r) => r.patches.sent), acknowledged: sum((r) => r.patches.acknowledged) },
    requests: { sent: sum((r) => r.requests.sent), acknowledged: sum((r) => r.requests.acknowledged) },
    other,
    restartMs: {
      max: Math.max(0, ...restarts),
      mean: restarts.length ? Math.round(restarts.reduce((a, b) => a + b, 0) / restarts.length) : 0,
    },
    problems: reports.flatMap((r) => r.problems.map((p) => `round ${r.round}: ${p}`)),
  }
}
