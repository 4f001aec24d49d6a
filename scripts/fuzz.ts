// Long fuzzing run of the properties test/fuzz.test.ts checks in CI (harness/fuzz-properties.ts).
//
//   npx bun scripts/fuzz.ts [runs] [sequence-runs]     (npm run fuzz -- 50000)
//
// `runs` (default 10,000) is the number of runs of each request property; `sequence-runs`
// (default: runs) of the write-sequence invariants. FUZZ_SEED=<n> replays a seed. Prints a
// summary, and the counterexample of each failure; exits 1 when a property failed.
import fc from 'fast-check'
import {
  listRequestArb,
  requestArb,
  requestsProperty,
  writeRequestArb,
  writeSequenceProperty,
} from '../harness/fuzz-properties'
import { answerHelp } from '../src/command-help'

answerHelp(`usage: npm run fuzz -- [runs] [sequence-runs]

Runs the properties test/fuzz.test.ts checks, longer: \`runs\` (default 10000) runs of each request
property and \`sequence-runs\` (default: runs) write sequences, against the app in memory.
FUZZ_SEED=<n> replays a seed. Prints a summary and each failure's counterexample; exits 1 on one.`)

const positive = (raw: string | undefined, fallback: number) => {
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1) {
    console.error(`usage: npx bun scripts/fuzz.ts [runs] [sequence-runs]  ("${raw}" is not a whole number from 1)`)
    process.exit(2)
  }
  return n
}

const runs = positive(process.argv[2] ?? process.env.FUZZ_RUNS, 10_000)
const sequenceRuns = positive(process.argv[3], runs)
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() ^ (Math.random() * 0x100000000)

interface Outcome {
  name: string
  runs: number
  seconds: number
  failed: boolean
  tally: Map<string, number>
}

const count = (tally: Map<string, number>) => (key: string | number) =>
  tally.set(String(key), (tally.get(String(key)) ?? 0) + 1)

async function run(
  name: string,
  numRuns: number,
  property: (record: (key: string | number) => void) => fc.IAsyncPropertyWithHooks<any>,
): Promise<Outcome> {
  const tally = new Map<string, number>()
  const started = performance.now()
  let done = 0
  const progress = setInterval(
    () =>
      process.stdout.write(
        `  ${name}: ${done}/${numRuns} runs, ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
      ),
    30_000,
  )
  // Counts runs as they start, for the progress line.
  const counted = property(count(tally)).beforeEach(async (previous) => {
    done++
    await previous()
  })
  const result = await fc.check(counted, { numRuns, seed })
  clearInterval(progress)
  const seconds = (performance.now() - started) / 1000
  if (result.failed) {
    console.log(
      `\nFAILED ${name} after ${result.numRuns} runs (seed ${result.seed}, path "${result.counterexamplePath}")`,
    )
    console.log(`  counterexample: ${fc.stringify(result.counterexample)}`)
    console.log(
      `  ${String(result.errorInstance ?? '')
        .split('\n')
        .join('\n  ')}`,
    )
  }
  return { name, runs: result.numRuns, seconds, failed: result.failed, tally }
}

console.log(`fuzzing with seed ${seed}: ${runs} runs of each request property, ${sequenceRuns} write sequences`)
const outcomes = [
  await run('random requests', runs, (record) => requestsProperty(requestArb, 4, record)),
  await run('list queries', runs, (record) => requestsProperty(listRequestArb, 3, record)),
  await run('write bodies', runs, (record) => requestsProperty(writeRequestArb, 3, record)),
  await run('write sequences', sequenceRuns, (record) => writeSequenceProperty(25, record)),
]

console.log('\nsummary')
for (const { name, runs, seconds, failed, tally } of outcomes) {
  const total = [...tally.values()].reduce((a, b) => a + b, 0)
  const shown = [...tally]
    .sort((a, b) => b[1] - a[1])
    .map(([key, n]) => `${key} ×${n}`)
    .join(', ')
  console.log(
    `  ${failed ? 'FAIL' : 'ok  '} ${name}: ${runs} runs, ${total} requests/writes in ${seconds.toFixed(1)} s`,
  )
  console.log(`       ${shown}`)
}
const failures = outcomes.filter((o) => o.failed).length
console.log(
  failures ? `\n${failures} propert${failures === 1 ? 'y' : 'ies'} failed (seed ${seed})` : '\nno property failed',
)
process.exit(failures ? 1 : 0)
