import { readFileSync, rmSync, writeFileSync } from 'node:fs'

/** The pid recorded in `lockFile`, when that process is still alive. */
export function lockHolder(lockFile: string): number | null {
  let pid: number
  try {
    pid = Number(readFileSync(lockFile, 'utf8').trim())
  } catch {
    return null
  }
  if (!Number.isInteger(pid) || pid <= 0) return null
  try {
    process.kill(pid, 0)
    return pid
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' ? pid : null
  }
}

/**
 * Marks a data file as in use by this process, so that no second process (another server,
 * or an operator command) ever writes it. A lock left by a process that died is taken over.
 */
export function acquireLock(lockFile: string): { release: () => void } | { heldBy: number } {
  const holder = lockHolder(lockFile)
  if (holder !== null && holder !== process.pid) return { heldBy: holder }
  writeFileSync(lockFile, `${process.pid}\n`)
  return {
    release: () => {
      if (lockHolder(lockFile) === process.pid) rmSync(lockFile, { force: true })
    },
  }
}
