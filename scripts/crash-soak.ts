// SIGKILL soak for the real service (docs/reference.md §9): N crash rounds (default 200) of 50 writing
// clients, each round killing the process at a random moment and checking, after a restart on
// the same data file, that every acknowledged write survived and nothing is half-applied.
// A fresh data folder every 20 rounds keeps the file (and the checks) small.
//   npx bun scripts/crash-soak.ts [rounds]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CrashHarness, summarise, type RoundReport } from '../harness/crash-rounds'
import { answerHelp } from '../src/command-help'

answerHelp(`usage: npx bun scripts/crash-soak.ts [rounds]

Kills the service with SIGKILL under 50 writing clients, \`rounds\` times (default 200), and checks
after each restart that every acknowledged write survived and none is half-applied. Uses its
own temp data files; exits 1 when a round failed.`)

const ROUNDS_PER_FOLDER = 20
const ADMIN_TOKEN = 'crash-soak-admin-token'

async function main(): Promise<number> {
  const arg = process.argv[2]
  const rounds = arg === undefined ? 200 : Number(arg)
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 100_000) {
    console.error(`crash-soak: rounds must be a whole number from 1 to 100000, not ${JSON.stringify(arg)}`)
    return 2
  }
  const reports: RoundReport[] = []
  const started = performance.now()
  let harness: CrashHarness | null = null
  let dir = ''
  const cleanUp = async () => {
    await harness?.tearDown()
    if (dir) rmSync(dir, { recursive: true, force: true })
    harness = null
  }
  process.on('SIGINT', () => void cleanUp().then(() => process.exit(130)))
  try {
    for (let done = 0; done < rounds; done++) {
      if (done % ROUNDS_PER_FOLDER === 0) {
        await cleanUp()
        dir = mkdtempSync(join(tmpdir(), 'clubs-crash-soak-'))
        harness = new CrashHarness({ dir, adminToken: ADMIN_TOKEN })
        await harness.setUp()
      }
      const report = await harness!.round()
      reports.push(report)
      const mark = report.problems.length ? 'FAIL' : 'ok'
      console.log(
        `round ${String(done + 1).padStart(4)}/${rounds} ${mark} kill@${report.killAfterMs}ms ` +
          `creates ${report.creates.acknowledged}/${report.creates.sent} ` +
          `patches ${report.patches.acknowledged}/${report.patches.sent} ` +
          `requests ${report.requests.acknowledged}/${report.requests.sent} ` +
          `clubs ${report.clubsOnDisk} restart ${report.restartMs}ms`,
      )
      for (const problem of report.problems.slice(0, 10)) console.log(`    ${problem}`)
      // A service that does not come back ends the soak: later rounds would only repeat it.
      if (report.restartMs < 0) break
    }
  } finally {
    await cleanUp()
  }
  const summary = summarise(reports)
  console.log(
    JSON.stringify(
      {
        ...summary,
        problems: summary.problems.slice(0, 50),
        seconds: Math.round((performance.now() - started) / 1000),
      },
      null,
      2,
    ),
  )
  return summary.failedRounds === 0 && reports.length === rounds ? 0 : 1
}

main().then((code) => process.exit(code))
