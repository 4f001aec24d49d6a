import { describe, expect, it } from 'bun:test'
import { ChangeLog, ChangesGone, changeNumber, type PublicChange } from '../src/domain/change-log'

const AT = '2026-11-26T12:00:00.000Z'
const club = (name: string) => JSON.stringify({ code: 'c', name })
const parse = (log: ChangeLog, since = 0) => log.since(since, 1000).map((event) => JSON.parse(event.text))

/** A log with `n` published changes to club c. */
function logWith(n: number, keep = 10) {
  const log = new ChangeLog([], { issued: 0, trimmedUpTo: 0, keep })
  for (let i = 0; i < n; i++) {
    log.record([{ code: 'c', before: club(`${i}`), after: club(`${i + 1}`) }], AT)
    log.publish()
  }
  return log
}

describe('ChangeLog', () => {
  it.each<[string, PublicChange, string | null]>([
    ['not public before or after: nothing', { code: 'c', before: null, after: null }, null],
    ['public and unchanged: nothing', { code: 'c', before: club('a'), after: club('a') }, null],
    ['entering what the public sees: club.added', { code: 'c', before: null, after: club('a') }, 'club.added'],
    ['changed: club.changed', { code: 'c', before: club('a'), after: club('b') }, 'club.changed'],
    ['leaving: club.removed, with no club', { code: 'c', before: club('a'), after: null }, 'club.removed'],
  ])('%s', (_, change, type) => {
    const log = new ChangeLog([], { issued: 0, trimmedUpTo: 0 })
    log.record([change], AT)
    log.publish()
    const events = parse(log)
    if (type === null) return expect(events).toEqual([])
    expect(events).toEqual([
      { seq: 1, type, code: 'c', at: AT, club: change.after === null ? null : JSON.parse(change.after) },
    ])
  })

  it('shows nothing until the write is published, then tells its followers, oldest first', () => {
    const log = new ChangeLog([], { issued: 0, trimmedUpTo: 0 })
    const told: number[][] = []
    log.follow((events) => told.push(events.map((event) => event.seq)))
    log.record(
      [
        { code: 'a', before: null, after: club('a') },
        { code: 'b', before: null, after: club('b') },
      ],
      AT,
    )
    expect([log.lastSeq, log.since(0, 10)]).toEqual([0, []])
    expect(told).toEqual([])
    log.publish()
    expect(log.lastSeq).toBe(2)
    expect(told).toEqual([[1, 2]])
  })

  it('publishes up to a landed write: events numbered after it wait for their own write', () => {
    const log = new ChangeLog([], { issued: 0, trimmedUpTo: 0 })
    const told: number[][] = []
    log.follow((events) => told.push(events.map((event) => event.seq)))
    log.record([{ code: 'a', before: null, after: club('a') }], AT)
    const landed = log.issued
    // A later write, waiting for the next snapshot, which may never land.
    const later = log.record([{ code: 'b', before: null, after: club('b') }], AT)
    log.publish(landed)
    expect([log.lastSeq, log.since(0, 10).map((event) => event.seq), told]).toEqual([1, [1], [[1]]])
    later.undo()
    log.publish(landed)
    expect(told).toEqual([[1]])
    log.record([{ code: 'c', before: null, after: club('c') }], AT)
    log.publish(log.issued)
    expect([log.lastSeq, told]).toEqual([3, [[1], [3]]])
  })

  it('never uses a number twice: a write taken back leaves its numbers unused', () => {
    const log = new ChangeLog([], { issued: 0, trimmedUpTo: 0 })
    const { undo } = log.record([{ code: 'a', before: null, after: club('a') }], AT)
    undo()
    log.publish()
    expect(log.since(0, 10)).toEqual([])
    log.record([{ code: 'b', before: null, after: club('b') }], AT)
    log.publish()
    expect(parse(log).map((event) => event.seq)).toEqual([2])
    expect(log.issued).toBe(2)
  })

  it('numbers on from what the data file handed out, even past the events kept', () => {
    const log = new ChangeLog([], { issued: 7, trimmedUpTo: 5 })
    log.record([{ code: 'a', before: null, after: club('a') }], AT)
    log.publish()
    expect(parse(log, 5).map((event) => event.seq)).toEqual([8])
  })

  it('pages with since and limit', () => {
    const log = logWith(5)
    expect(log.since(0, 2).map((event) => event.seq)).toEqual([1, 2])
    expect(log.since(2, 2).map((event) => event.seq)).toEqual([3, 4])
    expect(log.since(4, 2).map((event) => event.seq)).toEqual([5])
    expect(log.since(5, 2)).toEqual([])
  })

  it('keeps at least `keep` events, trimming only past twice as many; a since older than kept is gone (410)', () => {
    const log = logWith(25, 10)
    expect(log.oldestSeq).toBeGreaterThanOrEqual(6)
    expect(log.oldestSeq).toBeLessThanOrEqual(16)
    expect(log.since(log.oldestSeq - 1, 100).length).toBe(25 - log.oldestSeq + 1)
    expect(() => log.since(log.oldestSeq - 2, 100)).toThrow(ChangesGone)
    try {
      log.since(0, 1)
    } catch (error) {
      expect((error as ChangesGone).status).toBe(410)
      expect((error as ChangesGone).body.oldest_seq).toBe(log.oldestSeq)
    }
  })

  it('refuses a since past the newest number: a follower of a history this data no longer has', () => {
    expect(() => logWith(3).since(4, 10)).toThrow(ChangesGone)
    expect(() => new ChangeLog([], { issued: 0, trimmedUpTo: 0 }).since(1, 10)).toThrow(ChangesGone)
  })

  it('gives the store what to keep when it rewrites its file, and what it trimmed', () => {
    const log = logWith(3)
    expect(log.keptUpTo(2).map((event) => event.seq)).toEqual([1, 2])
    expect(log.trimmedUpTo).toBe(0)
    const trimmed = new ChangeLog([], { issued: 7, trimmedUpTo: 7 })
    expect(trimmed.trimmedUpTo).toBe(7)
    expect(trimmed.keptUpTo(7)).toEqual([])
  })
})

describe('changeNumber', () => {
  it.each(['0', '1', '41', '9007199254740991'])('takes %p', (raw) => {
    expect(changeNumber('since', raw, { min: 0, max: Number.MAX_SAFE_INTEGER })).toBe(Number(raw))
  })
  it.each(['', '-1', '1.5', '1e3', 'abc', ' 1', '0x10', '9007199254740992', '99999999999999999999'])(
    'refuses %p with a 400 naming it',
    (raw) => {
      expect(() => changeNumber('since', raw, { min: 0, max: Number.MAX_SAFE_INTEGER })).toThrow(/since must be/)
    },
  )
})
