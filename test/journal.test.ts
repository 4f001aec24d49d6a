// Journal (src/domain/journal.ts) over a GroupCommit (src/store/group-commit.ts), as the
// service wires them: a change applies in memory at once and its commit resolves once a write
// lands. When a write fails (the store says so at once), every change not yet on disk is taken back, newest first (also
// ones made after the failed write began, which may build on the refused ones), and each of
// them is refused with StorageUnavailable, even if a later write without them lands. Each write
// keeps the change sets of the changes made before it began and not yet kept; a change taken back
// is never kept.
// Each row is a script:
//   A, B, …    commit a change that adds A to the in-memory state ("D1+D2": one change in two
//              steps, each with its own undo)
//   ok, fail   the running write lands, or fails
// and the state, the undo steps in the order they ran, how each commit ended, and the change sets
// the writes that landed kept.
import { describe, expect, test } from 'bun:test'
import { StorageUnavailable } from '../src/domain/errors'
import { Journal } from '../src/domain/journal'
import { GroupCommit } from '../src/store/group-commit'

const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

async function run(script: string[]) {
  const writes: { resolve: () => void; reject: (e: Error) => void }[] = []
  const kept: string[] = []
  let finished = 0
  const group = new GroupCommit(() => {
    const sets = journal.handOver()
    return new Promise<void>((resolve, reject) =>
      writes.push({ resolve: () => (kept.push(...sets), resolve()), reject: (e) => (journal.refuse(), reject(e)) }),
    )
  })
  const journal = new Journal<string>(() => group.commit())
  const state: string[] = []
  const undone: string[] = []
  const outcome: Record<string, string> = {}
  for (const step of script) {
    if (step === 'ok' || step === 'fail') {
      const write = writes[finished++]
      if (!write) throw new Error(`script error: "${step}" with no write running`)
      if (step === 'ok') write.resolve()
      else write.reject(new Error('disk full'))
    } else {
      const parts = step.split('+')
      outcome[step] = 'pending'
      journal
        .commit(() => ({
          undo: parts.map((part) => {
            state.push(part)
            return () => {
              undone.push(part)
              state.splice(state.lastIndexOf(part), 1)
            }
          }),
          changes: step,
        }))
        .then(
          () => (outcome[step] = 'ok'),
          (error) =>
            (outcome[step] =
              error instanceof StorageUnavailable ? `${error.status} ${error.headers['Retry-After']}` : String(error)),
        )
    }
    await settle()
  }
  return { state, undone, outcome, kept }
}

describe('Journal', () => {
  const rows: {
    name: string
    script: string[]
    state: string[]
    undone: string[]
    outcome: Record<string, string>
    kept: string[]
  }[] = [
    {
      name: 'a change that lands stays',
      script: ['A', 'ok'],
      state: ['A'],
      undone: [],
      outcome: { A: 'ok' },
      kept: ['A'],
    },
    {
      name: 'a change is applied before its write lands',
      script: ['A'],
      state: ['A'],
      undone: [],
      outcome: { A: 'pending' },
      kept: [],
    },
    {
      name: 'a failed write takes its change back and refuses it',
      script: ['A', 'fail'],
      state: [],
      undone: ['A'],
      outcome: { A: '503 5' },
      kept: [],
    },
    {
      name: 'a change in several steps is taken back step by step, newest first',
      script: ['D1+D2+D3', 'fail'],
      state: [],
      undone: ['D3', 'D2', 'D1'],
      outcome: { 'D1+D2+D3': '503 5' },
      kept: [],
    },
    {
      name: 'changes made after the failed write began are taken back too, newest first, at once',
      script: ['A', 'B', 'C', 'fail'],
      state: [],
      undone: ['C', 'B', 'A'],
      outcome: { A: '503 5', B: 'pending', C: 'pending' },
      kept: [],
    },
    {
      name: '…and refused even when the next write (without them) lands',
      script: ['A', 'B', 'C', 'fail', 'ok'],
      state: [],
      undone: ['C', 'B', 'A'],
      outcome: { A: '503 5', B: '503 5', C: '503 5' },
      kept: [],
    },
    {
      name: 'a landed change is not taken back by a later failure',
      script: ['A', 'ok', 'B', 'fail'],
      state: ['A'],
      undone: ['B'],
      outcome: { A: 'ok', B: '503 5' },
      kept: ['A'],
    },
    {
      name: 'a failure in the second write takes back its changes and those queued behind it',
      script: ['A', 'B', 'ok', 'C', 'fail', 'ok'],
      state: ['A'],
      undone: ['C', 'B'],
      outcome: { A: 'ok', B: '503 5', C: '503 5' },
      kept: ['A'],
    },
    {
      name: 'every change grouped into a failed write is taken back once',
      script: ['A', 'B', 'C', 'ok', 'fail'],
      state: ['A'],
      undone: ['C', 'B'],
      outcome: { A: 'ok', B: '503 5', C: '503 5' },
      kept: ['A'],
    },
    {
      name: 'a change made after the rollback is kept',
      script: ['A', 'B', 'fail', 'C', 'ok', 'ok'],
      state: ['C'],
      undone: ['B', 'A'],
      outcome: { A: '503 5', B: '503 5', C: 'ok' },
      kept: ['C'],
    },
    {
      name: 'after a failure, the journal works as before',
      script: ['A', 'fail', 'B', 'ok', 'C', 'D', 'ok', 'ok'],
      state: ['B', 'C', 'D'],
      undone: ['A'],
      outcome: { A: '503 5', B: 'ok', C: 'ok', D: 'ok' },
      kept: ['B', 'C', 'D'],
    },
  ]
  test.each(rows)('$name', async ({ script, state, undone, outcome, kept }) => {
    const result = await run(script)
    expect(result.kept).toEqual(kept)
    expect(result.state).toEqual(state)
    expect(result.undone).toEqual(undone)
    expect(result.outcome).toEqual(outcome)
  })
})
