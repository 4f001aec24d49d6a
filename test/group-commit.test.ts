// GroupCommit (src/store/group-commit.ts): while one write runs, every request joins one next
// write; each caller settles when a write that began after its request lands (or fails); idle()
// waits until no write runs or is queued. Each row is a script run against a write the test
// finishes by hand:
//   c1, c2, …  a caller asks for a commit
//   idle       someone waits for idle()
//   ok, fail   the running write lands, or fails
// and says how many writes began and how each caller ended: "ok@2" is "resolved when write 2
// landed", "failed@1" "rejected when write 1 failed", "pending" not settled at the end.
import { describe, expect, test } from 'bun:test'
import { GroupCommit } from '../src/store/group-commit'

/** Lets every promise reaction that can run, run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

async function run(script: string[]) {
  const writes: { requestsBefore: number; resolve: () => void; reject: (e: Error) => void }[] = []
  let requests = 0
  let finished = 0
  const gc = new GroupCommit(
    () =>
      new Promise<void>((resolve, reject) => {
        writes.push({ requestsBefore: requests, resolve, reject })
      }),
  )
  const outcome: Record<string, string> = {}
  const requestNumber: Record<string, number> = {}
  let idles = 0
  for (const step of script) {
    if (/^c\d+$/.test(step)) {
      requestNumber[step] = ++requests
      outcome[step] = 'pending'
      gc.commit().then(
        () => (outcome[step] = `ok@${finished}`),
        () => (outcome[step] = `failed@${finished}`),
      )
    } else if (step === 'idle') {
      const name = `idle${++idles}`
      outcome[name] = 'pending'
      gc.idle().then(
        () => (outcome[name] = `ok@${finished}`),
        () => (outcome[name] = `failed@${finished}`),
      )
    } else if (step === 'ok' || step === 'fail') {
      const write = writes[finished]
      if (!write) throw new Error(`script error: "${step}" with no write running`)
      finished++
      if (step === 'ok') write.resolve()
      else write.reject(new Error('disk full'))
    } else throw new Error(`script error: unknown step ${step}`)
    await settle()
  }
  return { writes, outcome, requestNumber }
}

describe('GroupCommit', () => {
  const rows: { name: string; script: string[]; writes: number; outcome: Record<string, string> }[] = [
    { name: 'one request, one write', script: ['c1', 'ok'], writes: 1, outcome: { c1: 'ok@1' } },
    { name: 'a failed write rejects its caller', script: ['c1', 'fail'], writes: 1, outcome: { c1: 'failed@1' } },
    {
      name: 'requests during a write join one next write',
      script: ['c1', 'c2', 'c3', 'c4', 'ok', 'ok'],
      writes: 2,
      outcome: { c1: 'ok@1', c2: 'ok@2', c3: 'ok@2', c4: 'ok@2' },
    },
    {
      name: 'the next write waits for the running one',
      script: ['c1', 'c2', 'ok'],
      writes: 2,
      outcome: { c1: 'ok@1', c2: 'pending' },
    },
    {
      name: 'the next write starts after a failed one',
      script: ['c1', 'c2', 'fail', 'ok'],
      writes: 2,
      outcome: { c1: 'failed@1', c2: 'ok@2' },
    },
    {
      name: 'the next write fails on its own',
      script: ['c1', 'c2', 'c3', 'ok', 'fail'],
      writes: 2,
      outcome: { c1: 'ok@1', c2: 'failed@2', c3: 'failed@2' },
    },
    {
      name: 'a request during the next write waits for a third',
      script: ['c1', 'c2', 'ok', 'c3', 'ok', 'ok'],
      writes: 3,
      outcome: { c1: 'ok@1', c2: 'ok@2', c3: 'ok@3' },
    },
    {
      name: 'after every write landed, a request starts a write at once',
      script: ['c1', 'ok', 'c2', 'ok'],
      writes: 2,
      outcome: { c1: 'ok@1', c2: 'ok@2' },
    },
    { name: 'idle with nothing to do', script: ['idle'], writes: 0, outcome: { idle1: 'ok@0' } },
    {
      name: 'idle waits for the running and the queued write',
      script: ['c1', 'c2', 'idle', 'ok', 'ok'],
      writes: 2,
      outcome: { c1: 'ok@1', c2: 'ok@2', idle1: 'ok@2' },
    },
    {
      name: 'idle waits for a write queued while it waited',
      script: ['c1', 'c2', 'idle', 'ok', 'c3', 'ok', 'ok'],
      writes: 3,
      outcome: { c1: 'ok@1', c2: 'ok@2', c3: 'ok@3', idle1: 'ok@3' },
    },
    {
      name: 'idle resolves, not rejects, after failed writes',
      script: ['c1', 'c2', 'idle', 'fail', 'fail'],
      writes: 2,
      outcome: { c1: 'failed@1', c2: 'failed@2', idle1: 'ok@2' },
    },
    {
      name: 'idle is pending while a write runs',
      script: ['c1', 'idle'],
      writes: 1,
      outcome: { c1: 'pending', idle1: 'pending' },
    },
  ]
  test.each(rows)('$name', async ({ script, writes, outcome }) => {
    const result = await run(script)
    expect(result.writes.length).toBe(writes)
    expect(result.outcome).toEqual(outcome)
    // Whatever the script: a caller settles only through a write that began after its request.
    for (const [caller, end] of Object.entries(result.outcome)) {
      const n = result.requestNumber[caller]
      const write = /@(\d+)$/.exec(end)?.[1]
      if (n === undefined || write === undefined) continue
      const begunAfter = result.writes[+write - 1]!.requestsBefore >= n
      expect(`${caller} settled by write ${write}, begun after its request: ${begunAfter}`).toBe(
        `${caller} settled by write ${write}, begun after its request: true`,
      )
    }
  })
})
