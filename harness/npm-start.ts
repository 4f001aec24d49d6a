// The service started the README's way, `npm start` (bun src/index.ts from the repository), for
// the tests of what a newcomer sees: the start-up output, the development admin token, the README.
import type { Subprocess } from 'bun'
import { existsSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { ENTRY, ROOT, sleep } from './service'

export interface StartedService {
  readonly proc: Subprocess<'ignore', 'pipe', 'pipe'>
  readonly base: string
  /** What it printed so far. */
  stdout(): string
  stderr(): string
  /** The development admin token its start-up printed (`export TOKEN=...`), or null. */
  readonly developmentToken: string | null
  /** SIGTERM, then its exit code. */
  stop(): Promise<number>
}

/** This process's environment as a newcomer's shell has it: no NODE_ENV (bun test sets one), no CLUBS_* variable. */
export function shellEnvironment(env: Record<string, string>): Record<string, string> {
  const inherited = Object.entries(process.env).filter(
    (entry): entry is [string, string] =>
      entry[1] !== undefined && entry[0] !== 'NODE_ENV' && !entry[0].startsWith('CLUBS_'),
  )
  return { ...Object.fromEntries(inherited), ...env }
}

/**
 * `path` without the folders that hold a `bun` (node_modules/.bin among them, which npm scripts and
 * `bun test` under npm put there): the PATH of a fresh machine, where bun is a dev dependency only.
 */
export function pathWithoutBun(path: string): string {
  return path
    .split(delimiter)
    .filter((dir) => dir !== '' && !existsSync(join(dir, 'bun')))
    .join(delimiter)
}

/** Collects a stream's text as it comes, so a long-running process never blocks on a full pipe. */
function collect(stream: ReadableStream<Uint8Array>): () => string {
  let text = ''
  void (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk)
  })()
  return () => text
}

const TOKEN_LINE = /^ *export TOKEN=(\S+)$/m
const STARTED = /club directory started.*\n/

/** Where the start-up line says the development token is printed below it, waits for that too. */
const PRINTS_TOKEN = 'printed below'

/**
 * Starts `bun src/index.ts` on 127.0.0.1:`port` with a newcomer's environment plus `env`, and waits
 * for the end of its start-up output (it serves by then).
 */
export async function npmStart(port: number, env: Record<string, string>): Promise<StartedService> {
  const proc = Bun.spawn([process.execPath, ENTRY], {
    cwd: ROOT,
    env: shellEnvironment({ PORT: String(port), HOST: '127.0.0.1', ...env }),
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const stdout = collect(proc.stdout)
  const stderr = collect(proc.stderr)
  const base = `http://127.0.0.1:${port}`
  const done = () => {
    const started = STARTED.exec(stdout())
    return started !== null && (!started[0].includes(PRINTS_TOKEN) || TOKEN_LINE.test(stdout()))
  }
  for (let i = 0; i < 500 && !done() && proc.exitCode === null; i++) await sleep(20)
  if (!done()) throw new Error(`the service did not start (exit code ${proc.exitCode}):\n${stdout()}${stderr()}`)
  const health = await fetch(`${base}/health`).catch((error) => error as Error)
  if (!(health instanceof Response) || health.status !== 200)
    throw new Error(`the service started but ${base}/health does not answer 200: ${health}`)
  return {
    proc,
    base,
    stdout,
    stderr,
    developmentToken: TOKEN_LINE.exec(stdout())?.[1] ?? null,
    stop: async () => {
      if (proc.exitCode === null) proc.kill('SIGTERM')
      return proc.exited
    },
  }
}
