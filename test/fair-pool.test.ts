import { describe, expect, it } from 'bun:test'
import { ApiError } from '../src/domain/errors'
import { FairPool } from '../src/domain/fair-pool'

// The pool logo uploads are made in (src/domain/fair-pool.ts): work whose end the test decides,
// so that what starts when is seen, not timed. test/logos.test.ts drives it through real uploads.

function harness(limits: ConstructorParameters<typeof FairPool>[0]) {
  const pool = new FairPool(limits)
  const started: string[] = []
  const finish = new Map<string, () => void>()
  const settled = (promise: Promise<unknown>) =>
    promise.then(
      () => 'done',
      (error: unknown) => (error instanceof ApiError ? error : Promise.reject(error)),
    )
  /** Sends work `label` for `caller`: it starts when the pool says and ends when `end(label)` is called. */
  const send = (caller: string, label: string) =>
    settled(
      pool.run(caller, () => {
        started.push(label)
        return new Promise<void>((resolve) => finish.set(label, resolve))
      }),
    )
  /** Lets the promises under way settle: the pool hands a freed slot on once the work's promise has. */
  const settle = async () => {
    for (let i = 0; i < 10; i++) await Promise.resolve()
  }
  const end = (label: string) => {
    finish.get(label)!()
    return settle()
  }
  return { send, end, settle, started }
}

describe('FairPool', () => {
  it('runs one of each caller at a time, and hands freed slots round the callers in turn', async () => {
    const { send, end, settle, started } = harness({ slots: 2, perCaller: 1, waitingPerCaller: 8, waiting: 64 })
    for (let i = 1; i <= 4; i++) void send('a', `a${i}`)
    void send('b', 'b1')
    void send('b', 'b2')
    void send('c', 'c1')
    await settle()
    expect(started).toEqual(['a1', 'b1'])
    await end('a1')
    // a is at the back of the turns now: c, waiting since before, goes first.
    expect(started).toEqual(['a1', 'b1', 'c1'])
    await end('b1')
    expect(started.slice(3)).toEqual(['a2'])
    await end('c1')
    expect(started.slice(4)).toEqual(['b2'])
    await end('a2')
    await end('b2')
    expect(started.slice(5)).toEqual(['a3'])
    await end('a3')
    expect(started.slice(6)).toEqual(['a4'])
  })

  it("refuses a caller's work past their waiting line (429) and any past all the waiting (503), with Retry-After", async () => {
    const { send, started } = harness({ slots: 1, perCaller: 1, waitingPerCaller: 2, waiting: 3 })
    for (const label of ['a1', 'a2', 'a3']) void send('a', label)
    const ownLimit = (await send('a', 'a4')) as ApiError
    expect(ownLimit.status).toBe(429)
    expect(Number(ownLimit.headers['Retry-After'])).toBeGreaterThanOrEqual(1)
    void send('b', 'b1')
    const busy = (await send('c', 'c1')) as ApiError
    expect(busy.status).toBe(503)
    expect(Number(busy.headers['Retry-After'])).toBeGreaterThanOrEqual(1)
    expect(Object.keys(busy.body)).toEqual(['detail'])
    expect(started).toEqual(['a1'])
  })
})
