// RSS of a process, from /proc: the tests and the benchmarks read it the same way.

/** Resident memory of `pid` in MB (VmRSS), or null once it is gone. */
export async function rssMb(pid: number): Promise<number | null> {
  try {
    const status = await Bun.file(`/proc/${pid}/status`).text()
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1]
    return kb ? Number(kb) / 1024 : null
  } catch {
    return null
  }
}

/** Samples the RSS of `pid` every `everyMs` until stopped; `stop()` gives the peak seen. */
export function sampleRss(pid: number, everyMs = 50): { stop: () => Promise<number> } {
  let peak = 0
  let running = true
  const loop = (async () => {
    while (running) {
      peak = Math.max(peak, (await rssMb(pid)) ?? 0)
      await Bun.sleep(everyMs)
    }
  })()
  return {
    stop: async () => {
      running = false
      await loop
      return peak
    },
  }
}
