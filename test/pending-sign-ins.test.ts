import { describe, expect, it } from 'bun:test'
import { ApiError } from '../src/domain/errors'
import {
  EXPIRED_SIGN_IN,
  OTHER_BROWSER,
  PENDING_TTL_MS,
  PendingSignIns,
  type PendingSignIn,
} from '../src/site/pending-sign-ins'

// Campus sign-ins under way (docs/reference.md §20): each taken once, by the browser that began it, within
// ten minutes; a flood of beginnings pushes out the oldest rather than filling the memory.

const pending = (state: string, browser = 'browser-a'): PendingSignIn => ({
  state,
  nonce: `nonce-of-${state}`,
  verifier: `verifier-of-${state}`,
  next: '/clubs/chess',
  browser,
})

function store() {
  let now = 1_000_000
  const signIns = new PendingSignIns(() => now)
  return { signIns, advance: (ms: number) => void (now += ms) }
}

/** What `take` answered: the sign-in's state, or the 400's sentence. */
function outcome(take: () => PendingSignIn): string {
  try {
    return take().state
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400) throw error
    return error.message
  }
}

describe('PendingSignIns', () => {
  const cases: { label: string; steps: (s: ReturnType<typeof store>) => string[]; expected: string[] }[] = [
    {
      label: 'gives a sign-in, whole, to the browser that began it',
      steps: ({ signIns }) => {
        signIns.add(pending('s1'))
        return [JSON.stringify(signIns.take('s1', 'browser-a'))]
      },
      expected: [JSON.stringify(pending('s1'))],
    },
    {
      label: 'gives it once only',
      steps: ({ signIns }) => {
        signIns.add(pending('s1'))
        return [outcome(() => signIns.take('s1', 'browser-a')), outcome(() => signIns.take('s1', 'browser-a'))]
      },
      expected: ['s1', EXPIRED_SIGN_IN],
    },
    {
      label: 'knows no state it did not make',
      steps: ({ signIns }) => {
        signIns.add(pending('s1'))
        return [outcome(() => signIns.take('s2', 'browser-a'))]
      },
      expected: [EXPIRED_SIGN_IN],
    },
    {
      label: 'refuses another browser, or none, and keeps it for the one that began it',
      steps: ({ signIns }) => {
        signIns.add(pending('s1'))
        return [
          outcome(() => signIns.take('s1', 'browser-b')),
          outcome(() => signIns.take('s1', null)),
          outcome(() => signIns.take('s1', 'browser-a')),
        ]
      },
      expected: [OTHER_BROWSER, OTHER_BROWSER, 's1'],
    },
    {
      label: 'lets a sign-in be finished up to ten minutes after it began, not at ten minutes',
      steps: ({ signIns, advance }) => {
        signIns.add(pending('s1'))
        signIns.add(pending('s2'))
        advance(PENDING_TTL_MS - 1)
        const inTime = outcome(() => signIns.take('s1', 'browser-a'))
        advance(1)
        return [inTime, outcome(() => signIns.take('s2', 'browser-a'))]
      },
      expected: ['s1', EXPIRED_SIGN_IN],
    },
    {
      label: 'forgets sign-ins that expired when another begins',
      steps: ({ signIns, advance }) => {
        signIns.add(pending('old'))
        advance(PENDING_TTL_MS)
        signIns.add(pending('new'))
        return [String(signIns.size)]
      },
      expected: ['1'],
    },
  ]
  for (const { label, steps, expected } of cases) it(label, () => expect(steps(store())).toEqual(expected))

  it('holds at most 10,000 at once, pushing out the oldest', () => {
    const { signIns } = store()
    for (let i = 0; i <= 10_000; i++) signIns.add(pending(`s${i}`))
    expect(signIns.size).toBe(10_000)
    expect(outcome(() => signIns.take('s0', 'browser-a'))).toBe(EXPIRED_SIGN_IN)
    expect(outcome(() => signIns.take('s1', 'browser-a'))).toBe('s1')
    expect(outcome(() => signIns.take('s10000', 'browser-a'))).toBe('s10000')
  })
})
