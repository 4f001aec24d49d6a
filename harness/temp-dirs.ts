import { mkdtempSync, renameSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

/** The folders tempDir made in this run, which harness/test-end.ts removes after its last file. */
const made: string[] = []

/** A new empty folder in the system's temp folder, named `<prefix>XXXXXX`; it goes when the run ends. */
export function tempDir(prefix = 'clubs-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}

/** Removes every folder tempDir made (a run makes thousands, which were left behind). */
export function removeTempDirs(): void {
  removeInBackground(made.splice(0))
}

let removals = 0

/**
 * Takes the folders out of their places at once (a rename each) and leaves deleting their files
 * to an `rm -rf` of its own session, which outlives this process. A run's clusters and folders
 * hold gigabytes: deleting them in a test hook ran past the hook's time on a busy machine.
 */
export function removeInBackground(dirs: string[]): void {
  const moved: string[] = []
  for (const dir of dirs) {
    // A name no other call uses: a folder renamed onto one not yet deleted would stay where it was.
    const away = join(dirname(dir), `clubs-removing-${process.pid}-${++removals}`)
    try {
      renameSync(dir, away)
      moved.push(away)
    } catch {}
  }
  if (moved.length === 0) return
  Bun.spawn(['setsid', '-f', 'rm', '-rf', '--', ...moved], { stdio: ['ignore', 'ignore', 'ignore'] }).unref()
}
