// Debian's PostgreSQL as the tests run it: a fresh cluster in a temp folder (initdb), one postmaster
// on a private loopback port with its socket in that folder, password auth, fsync on. It runs as the
// `postgres` OS user when the tests run as root (initdb and postgres both refuse root), and dies
// with the test process (setpriv --pdeathsig), so a crashed run leaves no server behind.
import { SQL } from 'bun'
import type { Subprocess } from 'bun'
import { chownSync, closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, sleep } from './service'
import { removeInBackground } from './temp-dirs'

export interface Postgres {
  /** The temp folder: the cluster in `data/`, the socket, `postgres.log`. */
  readonly dir: string
  readonly port: number
  /** `postgres://postgres:<password>@127.0.0.1:<port>/<db>`, `db` defaulting to `postgres`. */
  url(db?: string): string
  /** Creates a database (a fresh name unless given) and answers its URL. */
  createDatabase(name?: string): Promise<string>
  /** Fast shutdown (SIGINT: connections ended, nothing committed lost); the folder is removed unless `keep`. */
  stop(options?: { keep?: boolean }): Promise<void>
  /** SIGKILLs the postmaster and every process it forked: the database is gone, as in a crash. */
  kill(): void
  /** Starts the cluster again on the same folder and port (after `kill` or `stop({ keep: true })`; stops it first if it runs). */
  restart(): Promise<void>
}

/** A cleanUp for each running cluster: it kills the cluster and answers its folder. */
const live = new Set<() => string>()

/** Kills every cluster still running and removes its files: a `bun test` run ends with no exit event, so harness/test-end.ts calls this after its last file. */
export function removeClusters(): void {
  const dirs = [...live].map((cleanUp) => cleanUp())
  live.clear()
  removeInBackground(dirs)
}
process.on('exit', removeClusters)

/** The newest `<root>/<version>/bin` that has initdb, else `pg_config --bindir`. */
export function postgresBinDir(root = '/usr/lib/postgresql', pgConfig = Bun.which('pg_config')): string {
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => parseFloat(b) - parseFloat(a))
    : []
  if (versions[0]) return join(root, versions[0], 'bin')
  const bindir = pgConfig ? Bun.spawnSync([pgConfig, '--bindir']).stdout.toString().trim() : ''
  if (bindir && existsSync(join(bindir, 'initdb'))) return bindir
  throw new Error(
    `PostgreSQL is not installed: no initdb in ${root}/*/bin, nor in \`pg_config --bindir\`. ` +
      "Install Debian's postgresql package (apt-get install postgresql), as .ci/run does.",
  )
}

/** The `postgres` user's uid and gid, to run as when this process is root. */
function postgresUser(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'))
  if (!line) throw new Error("no `postgres` OS user to run PostgreSQL as (Debian's postgresql package creates it)")
  const [, , uid, gid] = line.split(':')
  return { uid: Number(uid), gid: Number(gid) }
}

/** `cmd` as the `postgres` user when root, dying with this process either way. */
function asPostgres(cmd: string[]): string[] {
  const setpriv = Bun.which('setpriv')
  if (!setpriv) throw new Error('setpriv (util-linux) is needed to run PostgreSQL from the tests')
  const user = process.getuid?.() === 0 ? ['--reuid=postgres', '--regid=postgres', '--init-groups'] : []
  return [setpriv, ...user, '--pdeathsig=KILL', '--', ...cmd]
}

const logTail = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').slice(-2000) : '')

let databases = 0

/** Starts a fresh cluster and resolves once it accepts connections. */
export async function startPostgres(): Promise<Postgres> {
  const bin = postgresBinDir()
  const dir = mkdtempSync(join(tmpdir(), 'clubs-pg-'))
  const owner = process.getuid?.() === 0 ? postgresUser() : null
  if (owner) chownSync(dir, owner.uid, owner.gid)
  const data = join(dir, 'data')
  const log = join(dir, 'postgres.log')
  const password = crypto.randomUUID().replaceAll('-', '')
  const pwfile = join(dir, 'password')
  await Bun.write(pwfile, password)
  if (owner) chownSync(pwfile, owner.uid, owner.gid)
  // --no-sync: only initdb's own files skip fsync; the server below runs with fsync on.
  const init = Bun.spawnSync(
    asPostgres([
      join(bin, 'initdb'),
      '-D',
      data,
      '-U',
      'postgres',
      '--pwfile',
      pwfile,
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]),
    { stdout: 'pipe', stderr: 'pipe' },
  )
  if (init.exitCode !== 0) {
    rmSync(dir, { recursive: true, force: true })
    throw new Error(`initdb failed: ${init.stderr.toString() || init.stdout.toString()}`)
  }

  let port = 0
  let proc: Subprocess | null = null
  /** Postmaster and children killed by `kill()`, which `restart()` waits to be gone. */
  let killed: number[] = []

  const spawn = () => {
    const fd = openSync(log, 'a')
    try {
      // A private port on loopback only, the socket in the temp folder; fsync and synchronous
      // commit on (the defaults, said here because the kill tests depend on them); small buffers.
      return Bun.spawn(
        asPostgres([
          join(bin, 'postgres'),
          '-D',
          data,
          '-p',
          String(port),
          '-k',
          dir,
          '-c',
          'listen_addresses=127.0.0.1',
          '-c',
          'fsync=on',
          '-c',
          'synchronous_commit=on',
          '-c',
          'shared_buffers=16MB',
        ]),
        { stdin: 'ignore', stdout: fd, stderr: fd },
      )
    } finally {
      closeSync(fd)
    }
  }

  const waitReady = async (started: Subprocess) => {
    for (let i = 0; i < 600; i++) {
      if (started.exitCode !== null || started.signalCode !== null)
        throw new Error(`postgres exited (${started.exitCode ?? started.signalCode}): ${logTail(log)}`)
      const ready = Bun.spawnSync([join(bin, 'pg_isready'), '-q', '-h', '127.0.0.1', '-p', String(port), '-t', '1'])
      if (ready.exitCode === 0) return
      await sleep(100)
    }
    started.kill('SIGKILL')
    throw new Error(`postgres did not accept connections on port ${port} within 60 s: ${logTail(log)}`)
  }

  /** Starts on `port`; on the first start, another free port when that one was taken meanwhile. */
  const start = async (fixedPort: boolean) => {
    for (let attempt = 0; ; attempt++) {
      if (!fixedPort) port = freePort()
      proc = spawn()
      // The test process may end with it running; its exit handler then kills it.
      proc.unref()
      try {
        await waitReady(proc)
        return
      } catch (error) {
        const taken = /could not bind|Address already in use/.test(logTail(log))
        if (fixedPort || !taken || attempt >= 4) throw error
      }
    }
  }

  const kill = () => {
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return
    const postmaster = proc.pid
    // Stopped, it forks nothing more while its children are listed, and cannot react to their
    // deaths; the children go first, so no backend outlives it long enough to say goodbye.
    process.kill(postmaster, 'SIGSTOP')
    killed = [...childrenOf(postmaster), postmaster]
    for (const pid of killed) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {}
    }
  }

  const stop = async () => {
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return
    proc.kill('SIGINT')
    const done = await Promise.race([proc.exited.then(() => true), sleep(30_000).then(() => false)])
    if (!done) kill()
    await proc.exited
  }

  const cleanUp = () => {
    kill()
    return dir
  }
  live.add(cleanUp)

  try {
    await start(false)
  } catch (error) {
    live.delete(cleanUp)
    rmSync(cleanUp(), { recursive: true, force: true })
    throw error
  }

  const url = (db = 'postgres') => `postgres://postgres:${password}@127.0.0.1:${port}/${db}`
  return {
    dir,
    get port() {
      return port
    },
    url,
    async createDatabase(name = `clubs_${process.pid}_${++databases}`) {
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a plain database name: ${name}`)
      const sql = new SQL(url())
      try {
        await sql.unsafe(`CREATE DATABASE "${name}"`)
      } finally {
        await sql.close()
      }
      return url(name)
    },
    async stop({ keep = false } = {}) {
      await stop()
      if (!keep) {
        live.delete(cleanUp)
        rmSync(dir, { recursive: true, force: true })
      }
    },
    kill,
    async restart() {
      await stop()
      await proc?.exited
      // A new postmaster refuses to start while a killed one's children still hold shared memory.
      for (let i = 0; i < 300 && killed.some(isRunning); i++) await sleep(20)
      killed = []
      await start(true)
    },
  }
}

/** The pids whose parent is `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  const out: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      // Fields after the parenthesised command name: state, then the parent's pid.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid === pid) out.push(Number(entry))
    } catch {}
  }
  return out
}

/** True while `pid` exists and is not a zombie. */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}
