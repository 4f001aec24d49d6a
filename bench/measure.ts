// One scenario = a warm-up run and a measured run of wrk; what each scenario found is recorded.
import { cpuBusy, otherWork } from './cpu'
import { sleep } from './procs'
import { wrk, type Load, type WrkResult } from './wrk'

export const WARMUP_S = 1
export const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5)

/** Other work above this share of the CPUs during a run is called out next to its figures. */
export const NOISY = 0.1

export type ServerName = 'ours' | 'json-server' | 'ceiling'

export interface Scenario extends WrkResult {
  readonly server: ServerName
  /** Scenarios with the same key are compared across servers. */
  readonly key: string
  readonly label: string
  /** What the scenario checked, when it checks something (304s, 201s, clubs created). */
  readonly check?: string
  readonly ok?: boolean
  /** Peak RSS of the server over the scenario, when it was sampled. */
  readonly rssMb?: number
  /** Share of all CPUs that other work on the machine took during the measured run (0–1). */
  readonly otherCpu: number
  /** Measured runs made: more than one when other work disturbed the first. */
  readonly attempts: number
}

/** Gives each run its own tag (phase "w" for the warm-up, "m" for the measured run). */
export type LoadOf = (phase: string) => Omit<Load, 'seconds'>

export type Measured = WrkResult & { readonly otherCpu: number; readonly attempts: number }

/** Time a whole run may spend measuring again the runs that other work disturbed. */
let retryBudgetMs = 75_000

/**
 * A warm-up run, then the measured run of the server `pid`, counting what other work on the
 * machine took meanwhile; `settle` waits out any backlog after each. A run that other work
 * disturbed is measured again once it has calmed down (while the retry budget lasts), and the
 * least disturbed run is kept. `maxAttempts` 1 for rows that alternate runs and keep the best instead.
 */
export async function measure(
  pid: number,
  load: LoadOf,
  settle: () => Promise<void>,
  maxAttempts = 3,
): Promise<Measured> {
  await wrk({ ...load('w'), seconds: WARMUP_S })
  await settle()
  let best: Measured | null = null
  for (let attempt = 1; ; attempt++) {
    const started = performance.now()
    const other = await otherWork(pid)
    const { cpuMs, ...result } = await wrk({ ...load(`m${attempt}`), seconds: DURATION_S })
    const run = { ...result, otherCpu: await other.stop(cpuMs), attempts: attempt }
    await settle()
    if (!best || run.otherCpu < best.otherCpu) best = run
    if (best.otherCpu <= NOISY || attempt >= maxAttempts || retryBudgetMs <= 0) return best
    await quiet(10_000)
    retryBudgetMs -= performance.now() - started
  }
}

/** Waits (at most `limitMs`) until other work takes under NOISY of the CPUs. */
async function quiet(limitMs: number): Promise<void> {
  const deadline = performance.now() + limitMs
  while (performance.now() < deadline && (await cpuBusy(500)) > NOISY) {}
}

/**
 * Waits (up to a minute) until `url` answers, i.e. the server has worked off what wrk left
 * queued. A new connection each try: a pooled one the server has since closed fails at once.
 */
export const settler = (url: string) => async () => {
  const deadline = performance.now() + 60_000
  while (performance.now() < deadline) {
    try {
      const res = await fetch(url, { keepalive: false, signal: AbortSignal.timeout(deadline - performance.now()) })
      await res.arrayBuffer()
      return
    } catch {
      await sleep(50)
    }
  }
}

export const count = (n: number) => n.toLocaleString('en')

/** Collects the scenarios of one size and prints a line for each. */
export class Recorder {
  readonly scenarios: Scenario[] = []

  constructor(readonly say: (line: string) => void) {}

  record(server: ServerName, key: string, label: string, result: Measured, extra: Partial<Scenario> = {}): void {
    this.scenarios.push({ server, key, label, ...result, ...extra })
    const retried = result.attempts > 1 ? `, best of ${result.attempts} runs` : ''
    const busy =
      result.otherCpu > NOISY || retried
        ? `  (other work took ${(100 * result.otherCpu).toFixed(0)}% of the CPUs${retried})`
        : ''
    const flag = (extra.ok === false ? `  CHECK FAILED: ${extra.check}` : '') + busy
    this.say(
      `  ${server.padEnd(11)} ${label.padEnd(34)} ${result.rps.toFixed(0).padStart(8)} req/s  p99 ${result.p99Ms.toFixed(1)} ms${flag}`,
    )
  }
}
