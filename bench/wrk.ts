// Runs wrk (bounded in time) and reads its report.
import { join } from 'node:path'
import { capture } from './procs'

export const SCRIPTS = join(import.meta.dir, 'wrk')

export interface Load {
  readonly url: string
  /** A script in bench/wrk/, e.g. "create.lua". */
  readonly script?: string
  /** Arguments for the script's init(args). */
  readonly args?: readonly string[]
  readonly headers?: Record<string, string>
  readonly seconds: number
  readonly connections?: number
  readonly threads?: number
}

export interface WrkResult {
  readonly requests: number
  readonly rps: number
  readonly avgMs: number
  readonly p99Ms: number
  /** wrk's "Non-2xx or 3xx responses". */
  readonly non2xx3xx: number
  /** Connect, read, write errors and timeouts. */
  readonly socketErrors: number
  /** Answers by status, when the script counts them. */
  readonly statuses: Record<string, number>
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

function ms(value: string | undefined, unit: string | undefined): number {
  return value && unit ? Number(value) * UNIT_MS[unit]! : NaN
}

export function parseWrk(out: string): WrkResult {
  const latency = /^\s+Latency\s+([\d.]+)(us|ms|s|m|h)/m.exec(out)
  const p99 = /^\s+99%\s+([\d.]+)(us|ms|s|m|h)/m.exec(out)
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
  const statuses: Record<string, number> = {}
  for (const [, status, n] of out.matchAll(/^status (\d+) (\d+)$/gm)) statuses[status!] = Number(n)
  return {
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    avgMs: ms(latency?.[1], latency?.[2]),
    p99Ms: ms(p99?.[1], p99?.[2]),
    non2xx3xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    socketErrors: errors ? errors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    statuses,
  }
}

/** One wrk run: `seconds` long, 2 threads and 50 connections unless told otherwise; `cpuMs` is wrk's own CPU. */
export async function wrk(load: Load): Promise<WrkResult & { cpuMs: number }> {
  const cmd = ['wrk', `-t${load.threads ?? 2}`, `-c${load.connections ?? 50}`, `-d${load.seconds}s`]
  cmd.push('--latency', '--timeout', '10s')
  for (const [name, value] of Object.entries(load.headers ?? {})) cmd.push('-H', `${name}: ${value}`)
  if (load.script) cmd.push('-s', load.script)
  cmd.push(load.url)
  if (load.args?.length) cmd.push('--', ...load.args)
  // The scripts require("counts") from their own folder.
  const { stdout, cpuMs } = await capture(cmd, { cwd: SCRIPTS, timeoutMs: (load.seconds + 20) * 1000 })
  const result = parseWrk(stdout)
  if (result.requests === 0) console.error(`wrk: no answers from ${load.url}:\n${stdout}`)
  return { ...result, cpuMs }
}
