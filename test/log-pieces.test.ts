import { describe, expect, it } from 'bun:test'
import { ChangeLog, ChangesGone, type LoggedChange } from '../src/domain/change-log'
import { LogPieces, PIECE_BYTES, type Piece } from '../src/edge/log-pieces'

// The change log cut into pieces for the streams (src/edge/log-pieces.ts): every event once, in
// order, from any place; from the next block of 64 numbers on, the same cuts whatever the place a
// stream started from.

/** A log of `count` events, the `n`th `sizeOf(n)` characters of text. */
function logOf(count: number, sizeOf: (seq: number) => number, keep = 10_000) {
  const events: LoggedChange[] = Array.from({ length: count }, (_, i) => ({
    seq: i + 1,
    type: 'club.changed',
    text: `{"seq":${i + 1}}`.padEnd(sizeOf(i + 1), ' '),
  }))
  return new ChangeLog(events, { issued: count, trimmedUpTo: 0, keep })
}

/** Every piece from `since` to the end. */
function walk(pieces: LogPieces, since: number): Piece[] {
  const out: Piece[] = []
  for (let piece; (piece = pieces.after(out.at(-1)?.last ?? since));) out.push(piece)
  return out
}

const idsOf = (walked: Piece[]) =>
  walked.flatMap((piece) =>
    [...new TextDecoder().decode(piece.bytes).matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])),
  )

describe('pieces of the change log', () => {
  const rows = [
    { name: 'small events', count: 500, sizeOf: () => 100 },
    { name: 'events of 5 KB', count: 300, sizeOf: () => 5_000 },
    { name: 'sizes that vary', count: 400, sizeOf: (seq: number) => (seq * 7919) % 20_000 },
  ]
  it.each(rows)('hands every event once, in order, from any place: $name', ({ count, sizeOf }) => {
    const pieces = new LogPieces(logOf(count, sizeOf))
    for (const since of [0, 1, 63, 64, 65, 200, count - 1, count]) {
      const walked = walk(pieces, since)
      expect(idsOf(walked)).toEqual(Array.from({ length: count - since }, (_, i) => since + i + 1))
      // About PIECE_BYTES at most: one event more than the bound at the worst.
      for (const piece of walked) expect(piece.bytes.length).toBeLessThan(PIECE_BYTES + 20_100)
    }
  })

  it('cuts the log at the same numbers from the next block of 64 on, sharing those pieces', () => {
    const pieces = new LogPieces(logOf(1_000, () => 3_000))
    const [a, b] = [walk(pieces, 0), walk(pieces, 37)]
    const firstShared = b.findIndex((piece) => a.includes(piece))
    expect(b[firstShared - 1]!.last).toBe(64)
    expect(b.slice(firstShared).every((piece) => a.includes(piece))).toBe(true)
    expect(a.at(-1)!.last).toBe(1_000)
  })

  it('throws ChangesGone once the events after a place are no longer kept, a kept piece too', () => {
    const log = logOf(10, () => 100, 2)
    const pieces = new LogPieces(log)
    expect(pieces.after(0)!.last).toBe(10)
    log.record([{ code: 'x', before: null, after: '{}' }], '2026-11-28T00:00:00.000Z')
    log.publish()
    expect(() => pieces.after(0)).toThrow(ChangesGone)
  })
})
