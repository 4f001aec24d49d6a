// The three servers under test, each a separate process on a free loopback port.
import type { Subprocess } from 'bun'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { firstOk, freePort, HOST, start, stop } from './procs'

export const ROOT = join(import.meta.dir, '..')
export const ADMIN_TOKEN = 'bench-admin-token'

export interface Server {
  readonly child: Subprocess
  readonly base: string
  /** From spawn to the first 200 on the readiness URL. */
  readonly startupMs: number
  readonly stop: () => Promise<void>
}

async function launch(cmd: string[], ready: string, options: Parameters<typeof start>[1] & { port: number }) {
  const base = `http://${HOST}:${options.port}`
  const since = performance.now()
  const child = start(cmd, options)
  try {
    const startupMs = await Promise.race([
      firstOk(base + ready, since, 60_000),
      child.exited.then((code) =>
        Promise.reject(new Error(`${cmd.join(' ')} exited with ${code}; see ${options.log}.err`)),
      ),
    ])
    return { child, base, startupMs, stop: () => stop(child) }
  } catch (error) {
    await stop(child)
    throw error
  }
}

/** OURS: `bun src/index.ts` over a fresh copy of `dataSet` (the service writes to its file); `logLevel` info writes the access log (to `<copy>.out`). */
export function startOurs(
  dataSet: string,
  copy: string,
  logLevel: 'warn' | 'info' = 'warn',
  env: Record<string, string> = {},
): Promise<Server> {
  copyFileSync(dataSet, copy)
  return startOursOn(copy, logLevel, env)
}

/** OURS over `dataFile` as it is: a restart over the file an earlier run wrote. */
export function startOursOn(
  dataFile: string,
  logLevel: 'warn' | 'info' = 'warn',
  env: Record<string, string> = {},
): Promise<Server> {
  const port = freePort()
  return launch([process.execPath, 'src/index.ts'], '/api/clubs/', {
    port,
    cwd: ROOT,
    log: dataFile,
    env: {
      PORT: String(port),
      HOST,
      CLUBS_DATA_FILE: dataFile,
      CLUBS_ADMIN_TOKEN: ADMIN_TOKEN,
      CLUBS_LOG_LEVEL: logLevel,
      // Whatever the caller's environment says: no limit, writable, new clubs pending.
      CLUBS_RATE_LIMIT: '0',
      CLUBS_READ_ONLY: 'false',
      CLUBS_AUTO_APPROVE: 'false',
      ...env,
    },
  })
}

/** OURS on PostgreSQL (docs/reference.md §19): `databaseUrl`, loaded from `seedFile` on a first start over an empty database; its output in `<log>.out`, `<log>.err`. */
export function startOursOnDatabase(
  databaseUrl: string,
  seedFile: string,
  log: string,
  env: Record<string, string> = {},
): Promise<Server> {
  return startOursOn(log, 'warn', {
    CLUBS_DATA_FILE: '',
    CLUBS_DATABASE_URL: databaseUrl,
    CLUBS_SEED_FILE: seedFile,
    ...env,
  })
}

/** A bare Bun.serve answering every request with one recorded answer (status, headers, body): bench/answer-ceiling.ts. */
export function startAnswerCeiling(answerFile: string): Promise<Server> {
  const port = freePort()
  return launch([process.execPath, join(import.meta.dir, 'answer-ceiling.ts'), answerFile, String(port)], '/ready', {
    port,
    log: `${answerFile}.ceiling`,
  })
}

/** CEILING: a minimal Bun.serve answering every GET with the bytes in `listFile`. */
export function startCeiling(listFile: string): Promise<Server> {
  const port = freePort()
  return launch([process.execPath, join(import.meta.dir, 'ceiling.ts'), listFile, String(port)], '/', {
    port,
    log: `${listFile}.ceiling`,
  })
}

/** json-server 1.0 beta over `dir`/db.json; `ready` is a path it answers 200 once loaded. */
export function startJsonServer(dir: string, ready: string): Promise<Server> {
  const port = freePort()
  const bin = join(ROOT, 'node_modules', '.bin', 'json-server')
  return launch([bin, 'db.json', '--port', String(port), '--host', HOST], ready, {
    port,
    cwd: dir,
    log: join(dir, 'json-server'),
    // Its CLI does not pass --host on to listen(); the preload keeps it on loopback.
    env: { NODE_OPTIONS: `--import ${join(import.meta.dir, 'loopback.mjs')}` },
  })
}
