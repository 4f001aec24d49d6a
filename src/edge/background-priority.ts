import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { setPriority } from 'node:os'

/** The lowest priority (nice 19): the thread runs when no other of the machine's wants the core. */
const LOWEST = 19

/**
 * Puts the calling thread, and the threads of this process named `names` (Bun's own, which it
 * starts as needed), at the lowest priority, so that the request thread gets a core first on a
 * busy machine. Linux only (threads are found in /proc); elsewhere, or when refused, nothing changes.
 */
export function runInBackground(...names: string[]): void {
  try {
    lower(Number(readlinkSync('/proc/thread-self').split('/').pop()))
    for (const tid of readdirSync('/proc/self/task'))
      if (names.includes(readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim())) lower(Number(tid))
  } catch {
    // No /proc: another system, where the threads keep their priority.
  }
}

function lower(tid: number): void {
  try {
    setPriority(tid, LOWEST)
  } catch {
    // Refused (a sandbox): the thread keeps its priority.
  }
}
