import { closeSync, openSync, statfsSync, writeSync } from 'node:fs'

/**
 * Small tmpfs mounts for the full-disk tests. Mounting needs root (CAP_SYS_ADMIN); without it a
 * test fails with a clear message, unless SKIP_TMPFS_TESTS=1 (set by .ci/run when it cannot
 * mount) says to skip it.
 */
export const SKIP_TMPFS = process.env.SKIP_TMPFS_TESTS === '1'

/** Mounts a tmpfs of `kib` KiB on `dir`, or throws saying why it cannot. */
export function mountTmpfs(dir: string, kib: number): void {
  const run = Bun.spawnSync(['mount', '-t', 'tmpfs', '-o', `size=${kib}k,mode=0700`, 'tmpfs', dir], {
    stdout: 'pipe',
    stderr: 'pipe',
  })
  if (run.exitCode === 0) return
  const why = run.stderr.toString().trim() || `mount exited with ${run.exitCode}`
  throw new Error(
    `cannot mount a tmpfs for a full-disk test (${why}); run as root, or set SKIP_TMPFS_TESTS=1 to skip it`,
  )
}

export function umount(dir: string): void {
  if (Bun.spawnSync(['umount', dir], { stderr: 'pipe' }).exitCode !== 0)
    Bun.spawnSync(['umount', '-l', dir], { stderr: 'pipe' })
}

/** Bytes free on the filesystem that holds `dir`. */
export function freeBytes(dir: string): number {
  const { bavail, bsize } = statfsSync(dir)
  return bavail * bsize
}

/**
 * Writes `file` until the filesystem holding it has at most `leave` bytes free (0: full);
 * answers the bytes written.
 */
export function fillUp(file: string, leave = 0): number {
  const dir = file.slice(0, file.lastIndexOf('/'))
  const fd = openSync(file, 'w')
  let written = 0
  try {
    for (const size of [64 * 1024, 4096, 512, 1]) {
      const chunk = Buffer.alloc(size, 120)
      while (freeBytes(dir) - size >= leave) {
        try {
          written += writeSync(fd, chunk)
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOSPC') break
          throw e
        }
      }
    }
  } finally {
    closeSync(fd)
  }
  return written
}
