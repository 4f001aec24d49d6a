// Child processes of the benchmark: started on loopback, always stopped, RSS read from /proc.
import type { Subprocess } from 'bun'
import { rssMb, sampleRss } from '../harness/rss'

export { rssMb, sampleRss }

export const HOST = '127.0.0.1'
const children = new Set<Subprocess>()
/** Set once stopAll has begun: no new child may start after it (Ctrl-C during a run). */
let closed = false

/** Spawns through `spawn`, and keeps the child for `stopAll`. */
function adopt<T extends Subprocess>(spawn: () => T): T {
  if (closed) throw new Error('stopping: no new processes')
  const child = spawn()
  children.add(child)
  return child
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A port nothing listens on right now, on the loopback interface. */
export function freePort(): number {
  const probe = Bun.serve({ hostname: HOST, port: 0, fetch: () => new Response(null) })
  const port = probe.port!
  probe.stop(true)
  return port
}

export interface SpawnOptions {
  readonly cwd?: string
  readonly env?: Record<string, string>
  /** Keep the child's output in `<log>.out` and `<log>.err`; dropped unless given. */
  readonly log?: string
}

/** Starts a child that `stopAll` will stop. */
export function start(cmd: string[], { cwd, env, log }: SpawnOptions = {}): Subprocess {
  const stdout = log ? Bun.file(`${log}.out`) : 'ignore'
  const stderr = log ? Bun.file(`${log}.err`) : 'ignore'
  const child = adopt(() => Bun.spawn(cmd, { cwd, env: { ...process.env, ...env }, stdout, stderr, stdin: 'ignore' }))
  void child.exited.then(() => children.delete(child))
  return child
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the child is gone. */
export async function stop(child: Subprocess, graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill('SIGTERM')
  const done = await Promise.race([child.exited.then(() => true), sleep(graceMs).then(() => false)])
  if (!done) {
    child.kill('SIGKILL')
    await child.exited
  }
  children.delete(child)
}

export async function stopAll(): Promise<void> {
  closed = true
  await Promise.all([...children].map((child) => stop(child)))
}

/** Polls `url` every `everyMs` until it answers 200; returns the ms since `since`. */
export async function firstOk(url: string, since: number, timeoutMs = 30_000, everyMs = 5): Promise<number> {
  while (performance.now() - since < timeoutMs) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) })
      await res.arrayBuffer()
      if (res.status === 200) return performance.now() - since
    } catch {}
    await sleep(everyMs)
  }
  throw new Error(`no 200 from ${url} within ${timeoutMs} ms`)
}

/** Runs `cmd` to its end (killed after `timeoutMs`); resolves with its stdout and the CPU it used. */
export async function capture(cmd: string[], { cwd, env, timeoutMs = 60_000 }: SpawnOptions & { timeoutMs?: number }) {
  const child = adopt(() =>
    Bun.spawn(cmd, { cwd, env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' }),
  )
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  clearTimeout(timer)
  children.delete(child)
  if (code !== 0) throw new Error(`${cmd.join(' ')} exited with ${code}: ${stderr.trim() || stdout.trim()}`)
  return { stdout, cpuMs: Number(child.resourceUsage()?.cpuTime.total ?? 0) / 1000 }
}
