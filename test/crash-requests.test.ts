import { describe, expect, test } from 'bun:test'
import { Asker, foundRequests } from '../harness/crash-requests'

// The crash rounds' bookkeeping of join requests (harness/crash-requests.ts): what it holds an
// acknowledged ask or withdrawal to, and what it lets a request in flight at the kill be.

const CLUBS = ['a', 'b']

/** An asker who has asked `a` (acknowledged), then sent `steps` more changes with the given outcomes. */
function askerAfter(steps: ('ok' | 'refused' | 'killed')[]) {
  const asker = new Asker('u', 'token')
  const sent: { method: string; path: string; message?: string }[] = []
  for (const outcome of ['ok' as const, ...steps]) {
    const change = asker.next(CLUBS, 1)!
    sent.push({ method: change.method, path: change.path, message: change.body?.message })
    if (outcome !== 'killed') change.answered(outcome === 'ok')
  }
  return { asker, sent }
}

const problemsOf = (asker: Asker, requests: { club: string; message: string }[]) => {
  const problems: string[] = []
  asker.check('file', foundRequests(requests.map((r) => ({ ...r, username: 'u' }))), problems)
  return problems.length
}

describe('the crash rounds check join requests', () => {
  const rows: {
    name: string
    steps: ('ok' | 'refused' | 'killed')[]
    found: (m: string[]) => { club: string; message: string }[]
    problems: number
  }[] = [
    { name: 'an acknowledged ask found: fine', steps: [], found: (m) => [{ club: 'a', message: m[0]! }], problems: 0 },
    { name: 'an acknowledged ask missing: a problem', steps: [], found: () => [], problems: 1 },
    {
      name: 'an acknowledged ask with another message: a problem',
      steps: [],
      found: () => [{ club: 'a', message: 'x' }],
      problems: 1,
    },
    {
      name: 'an ask in flight at the kill: found or not, fine',
      steps: ['killed'],
      found: (m) => [
        { club: 'a', message: m[0]! },
        { club: 'b', message: m[1]! },
      ],
      problems: 0,
    },
    {
      name: 'an ask in flight, not found: fine',
      steps: ['killed'],
      found: (m) => [{ club: 'a', message: m[0]! }],
      problems: 0,
    },
    {
      name: 'a refused ask found: a problem',
      steps: ['refused'],
      found: (m) => [
        { club: 'a', message: m[0]! },
        { club: 'b', message: m[1]! },
      ],
      problems: 1,
    },
    {
      name: 'an acknowledged withdrawal, gone: fine',
      steps: ['ok', 'ok'],
      found: (m) => [{ club: 'b', message: m[1]! }],
      problems: 0,
    },
    {
      name: 'an acknowledged withdrawal undone: a problem',
      steps: ['ok', 'ok'],
      found: (m) => [
        { club: 'a', message: m[0]! },
        { club: 'b', message: m[1]! },
      ],
      problems: 1,
    },
    {
      name: 'a withdrawal in flight, request still there: fine',
      steps: ['ok', 'killed'],
      found: (m) => [
        { club: 'a', message: m[0]! },
        { club: 'b', message: m[1]! },
      ],
      problems: 0,
    },
    {
      name: 'a request to a club never asked: a problem',
      steps: [],
      found: (m) => [
        { club: 'a', message: m[0]! },
        { club: 'c', message: 'x' },
      ],
      problems: 1,
    },
  ]
  test.each(rows)('$name', ({ steps, found, problems }) => {
    const { asker, sent } = askerAfter(steps)
    const messages = sent.filter((s) => s.method === 'POST').map((s) => s.message!)
    expect(problemsOf(asker, found(messages))).toBe(problems)
  })

  test('asks and withdraws club by club, and leaves a club in doubt alone until a restart settles it', () => {
    const { asker, sent } = askerAfter(['killed'])
    expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual([
      'POST /api/clubs/a/requests/',
      'POST /api/clubs/b/requests/',
    ])
    const withdrawal = asker.next(CLUBS, 2)!
    expect(`${withdrawal.method} ${withdrawal.path}`).toBe('DELETE /api/clubs/a/requests/u/')
    expect(asker.next(CLUBS, 2)).toBeNull()
    const other = new Asker('u', 'token')
    other.next(['a'], 1)
    expect(other.next(['a'], 1)).toBeNull()
    other.settle(foundRequests([{ club: 'a', username: 'u', message: 'm' }]))
    expect(other.next(['a'], 1)!.method).toBe('DELETE')
  })
})
