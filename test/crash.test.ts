import { afterAll, describe, expect, it } from 'bun:test'
import { CrashHarness, summarise, type RoundReport } from '../harness/crash-rounds'
import { ADMIN_TOKEN, tempDir } from '../harness/app'

// docs/reference.md §9 under SIGKILL: a real service process with 50 clients writing (creates, PATCHes
// that set subtitle and description to one token, so a half-applied update would show, and join
// requests asked with a unique message and withdrawn again, docs/reference.md §12) is killed
// at a random moment 100–400 ms into the load, 20 times. After each kill it restarts on the same
// data file, taking over the dead process's lock, and every acknowledged write must be there.
// The rounds live in harness/crash-rounds.ts; scripts/crash-soak.ts runs many more of them.
// Run again with a journal of 4 KiB, the data file is written again every few writes, so the
// kills land in the middle of compactions too: while the snapshot is written, before the
// journal is cut, and between them.

const ROUNDS = 20
const harnesses: CrashHarness[] = []

afterAll(async () => {
  for (const harness of harnesses) await harness.tearDown()
})

describe.each([
  ['', {}],
  [', compacting every few writes', { CLUBS_JOURNAL_BYTES: '4096' }],
])('SIGKILL under 50 concurrent writers%s', (_, env) => {
  it(`keeps every acknowledged write and never shows a half-applied one, over ${ROUNDS} kills and restarts`, async () => {
    const harness = new CrashHarness({
      dir: tempDir('clubs-crash-'),
      adminToken: ADMIN_TOKEN,
      clients: 50,
      killWindowMs: [100, 400],
      env,
    })
    harnesses.push(harness)
    await harness.setUp()
    const reports: RoundReport[] = []
    const deadline = performance.now() + 45_000
    for (let i = 0; i < ROUNDS && performance.now() < deadline; i++) {
      const report = await harness.round()
      reports.push(report)
      if (report.restartMs < 0) break
    }
    const summary = summarise(reports)
    console.log(
      `crash: ${summary.rounds} rounds, creates ${summary.creates.acknowledged}/${summary.creates.sent}, ` +
        `patches ${summary.patches.acknowledged}/${summary.patches.sent}, ` +
        `join requests ${summary.requests.acknowledged}/${summary.requests.sent} acknowledged, ` +
        `restart mean ${summary.restartMs.mean} ms (max ${summary.restartMs.max} ms), other ${JSON.stringify(summary.other)}`,
    )
    expect(summary.problems.slice(0, 20)).toEqual([])
    expect(summary.rounds).toBe(ROUNDS)
    // Each kill left its lock file behind, and each restart took it over.
    expect(summary.staleLocks).toBe(ROUNDS)
    // The load was real, and the kills landed in the middle of it.
    expect(summary.creates.acknowledged).toBeGreaterThan(ROUNDS)
    expect(summary.patches.acknowledged).toBeGreaterThan(ROUNDS)
    expect(summary.requests.acknowledged).toBeGreaterThan(ROUNDS)
    expect(summary.creates.sent + summary.patches.sent).toBeGreaterThan(
      summary.creates.acknowledged + summary.patches.acknowledged,
    )
    // No answer other than 200/201 or a dropped connection: never a 5xx before the kill.
    expect(Object.keys(summary.other).filter((kind) => kind !== 'network')).toEqual([])
  }, 58_000)
})
