import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

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
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
}
