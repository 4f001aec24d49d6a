// How much of the machine other work took: it skews every figure on a shared 2-CPU machine.
import { sleep } from './procs'

/** /proc/stat and /proc/<pid>/stat count in clock ticks (USER_HZ, 100 on Linux). */
const TICK_MS = 10

/** Busy (user, nice, system, steal) and total ticks of all CPUs. */
async function machineTicks() {
  const [user, nice, system, idle, iowait, irq, softirq, steal] = (await Bun.file('/proc/stat').text())
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number) as number[]
  const busy = user! + nice! + system! + (steal ?? 0)
  return { busy, total: busy + idle! + (iowait ?? 0) + (irq ?? 0) + (softirq ?? 0) }
}

/** CPU time `pid` has used (user + system), in ms; 0 once it is gone. */
async function processMs(pid: number): Promise<number> {
  try {
    const stat = await Bun.file(`/proc/${pid}/stat`).text()
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS
  } catch {
    return 0
  }
}

const harnessMs = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/**
 * Starts counting; `stop(ownMs)` gives the share of all CPUs (0–1) used by anything but the
 * server `pid`, the harness, and `ownMs` of CPU that the caller's own children (wrk) used.
 */
export async function otherWork(pid: number) {
  const [machine, server, harness] = [await machineTicks(), await processMs(pid), harnessMs()]
  return {
    stop: async (ownMs: number) => {
      const now = await machineTicks()
      const total = (now.total - machine.total) * TICK_MS
      const ours = (await processMs(pid)) - server + (harnessMs() - harness) + ownMs
      return total > 0 ? Math.max(0, (now.busy - machine.busy) * TICK_MS - ours) / total : 0
    },
  }
}

/** How busy all CPUs are over `ms` (0–1): while the benchmark idles, that is other work. */
export async function cpuBusy(ms = 1000): Promise<number> {
  const before = await machineTicks()
  await sleep(ms)
  const after = await machineTicks()
  const total = after.total - before.total
  return total > 0 ? (after.busy - before.busy) / total : 0
}

/** Share of the CPUs other work may use before a measurement starts without waiting for it. */
const QUIET = 0.15

/** Waits up to 15 s for other work to fall to QUIET; answers the last second's share of the CPUs. */
export async function calmer(): Promise<number> {
  let busy = await cpuBusy(1000)
  for (let waited = 1; busy > QUIET && waited < 15; waited++) busy = await cpuBusy(1000)
  return busy
}
