// Preloaded by bunfig.toml into every `bun test` run: after its last file, the PostgreSQL
// clusters the harness started go, files and all (a run of the API suites on PostgreSQL leaves
// gigabytes otherwise; bun test emits no exit event for harness/postgres.ts to clean up on),
// and so do the temp folders tempDir made.
import { afterAll } from 'bun:test'
import { removeClusters } from './postgres'
import { removeTempDirs } from './temp-dirs'

afterAll(() => {
  removeClusters()
  removeTempDirs()
})
