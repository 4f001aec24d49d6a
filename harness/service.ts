import type { Subprocess } from 'bun'
import { join } from 'node:path'

/** The repository, and the service's entry point, for tests that run it as a real process. */
export const ROOT = join(import.meta.dir, '..')
export const ENTRY = join(ROOT, 'src', 'index.ts')

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A free loopback port from 20000–40000 (PORT=0 would not tell the test which port was taken). */
export function freePort(): number {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 20000)
    try {
      const probe = Bun.listen({ hostname: '127.0.0.1', port, socket: { data() {} } })
      probe.stop(true)
      return port
    } catch {}
  }
  throw new Error('no free port found in 20000–40000')
}

/** Waits until `base`/health answers 200; fails early, with its stderr, if the process exits. */
export async function waitForHealth(base: string, proc: Subprocess) {
  for (let i = 0; i < 300; i++) {
    if (proc.exitCode !== null) {
      const stderr = proc.stderr instanceof ReadableStream ? await new Response(proc.stderr).text() : ''
      throw new Error(`the service exited early with ${proc.exitCode}: ${stderr}`)
    }
    const ok = await fetch(`${base}/health`)
      .then((res) => res.status === 200)
      .catch(() => false)
    if (ok) return
    await sleep(50)
  }
  throw new Error(`the service did not answer ${base}/health in time`)
}

type ServiceOptions = Omit<NonNullable<Parameters<typeof Bun.spawn>[1]>, 'cwd' | 'env'>

/** Starts `bun src/index.ts` on 127.0.0.1:`port` with `env` on top of this process's environment. */
export function spawnService<const O extends ServiceOptions>(port: number, env: Record<string, string>, options?: O) {
  return Bun.spawn([process.execPath, ENTRY], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', ...env },
    ...(options as O),
  })
}

/** Stops a service process: SIGTERM, then SIGKILL if it has not exited within 5 s. */
export async function stopService(proc: Subprocess | undefined): Promise<void> {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return
  proc.kill('SIGTERM')
  const exited = await Promise.race([proc.exited.then(() => true), sleep(5_000).then(() => false)])
  if (!exited) proc.kill('SIGKILL')
}

/** Runs `cmd` (an operator command, say) to its end: its exit code and what it printed. */
export async function runToEnd(cmd: string[], options: { cwd: string; env: Record<string, string | undefined> }) {
  const proc = Bun.spawn(cmd, { cwd: options.cwd, env: options.env, stdout: 'pipe', stderr: 'pipe' })
  const [code, stdout, stderr] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ])
  return { code, stdout, stderr }
}

/** Sends a request to the service at `base` as the admin (`token`), with a JSON body when given; 10 s at most. */
export const adminSender =
  (base: string, token: string) =>
  (method: string, path: string, json?: unknown): Promise<Response> =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', connection: 'close' },
      body: json === undefined ? undefined : JSON.stringify(json),
      signal: AbortSignal.timeout(10_000),
    })

/**
 * A service process over the data file `dataFile` whose admin token is `token` (no rate limit,
 * warnings and errors logged on its stdout, `env` on top), once it is healthy: the process, and a
 * sender with the admin token. `spawned` is told of the process at once, so a test can end it
 * even when it never gets healthy.
 */
export async function startOnDataFile(
  dataFile: string,
  token: string,
  spawned: (proc: Subprocess) => void,
  env: Record<string, string> = {},
) {
  const port = freePort()
  const proc = spawnService(
    port,
    {
      CLUBS_DATA_FILE: dataFile,
      CLUBS_ADMIN_TOKEN: token,
      CLUBS_LOG_LEVEL: 'warn',
      CLUBS_RATE_LIMIT: '',
      CLUBS_READ_ONLY: '',
      ...env,
    },
    { stdout: 'pipe', stderr: 'pipe' },
  )
  spawned(proc)
  const base = `http://127.0.0.1:${port}`
  await waitForHealth(base, proc)
  return { proc, send: adminSender(base, token) }
}
