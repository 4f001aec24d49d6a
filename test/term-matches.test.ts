import { describe, expect, it } from 'bun:test'
import { TermMatches } from '../src/domain/term-matches'

// A search term's matches kept between searches (src/domain/term-matches.ts): after each change,
// what it answers must be what reading every entry again would answer.

/** Texts by position, changed in steps, each change a new version, as the catalog does. */
function world() {
  const texts: (string | undefined)[] = []
  let version = 0
  const reads: number[] = []
  const matches = new TermMatches((position, term) => {
    reads.push(position)
    return texts[position]?.includes(term) ?? false
  })
  return {
    matches,
    reads,
    set(position: number, text: string | undefined) {
      texts[position] = text
      matches.changed(position, ++version)
    },
    /** The positions holding `term`, as the kept matches say and as reading every text says. */
    holding(term: string) {
      const kept = matches.of(term, version, texts.length)
      const positions = (holds: (p: number) => boolean) => texts.map((_, p) => p).filter(holds)
      return { kept: positions((p) => kept[p] === 1), read: positions((p) => texts[p]?.includes(term) ?? false) }
    },
  }
}

const rows: { name: string; steps: [position: number, text: string | undefined][]; term: string }[] = [
  { name: 'a new text that holds it', steps: [[3, 'chess club']], term: 'chess' },
  { name: 'a text changed to hold it no more', steps: [[0, 'go club']], term: 'chess' },
  { name: 'a text removed', steps: [[1, undefined]], term: 'chess' },
  { name: 'a position past the first array', steps: [[700, 'chess at the far end']], term: 'chess' },
  {
    name: 'several changes between two searches',
    steps: [
      [0, 'chess'],
      [2, 'no'],
      [5, 'chess and go'],
      [5, 'go'],
    ],
    term: 'chess',
  },
]

describe('TermMatches', () => {
  for (const { name, steps, term } of rows)
    it(`answers what reading every entry answers after ${name}`, () => {
      const w = world()
      for (const [p, text] of [
        [0, 'chess society'],
        [1, 'chess for all'],
        [2, 'debate'],
      ] as const)
        w.set(p, text)
      const before = w.holding(term)
      expect(before.kept).toEqual(before.read)
      for (const [p, text] of steps) w.set(p, text)
      w.reads.length = 0
      const after = w.holding(term)
      expect(after.kept).toEqual(after.read)
      // Only the positions changed since are read again.
      expect(new Set(w.reads)).toEqual(new Set(steps.map(([p]) => p)))
    })

  it('reads nothing again while nothing changed, and everything for a term asked first', () => {
    const w = world()
    w.set(0, 'chess')
    w.set(1, 'go')
    w.holding('chess')
    w.reads.length = 0
    w.holding('chess')
    expect(w.reads).toEqual([])
    w.holding('go')
    expect(w.reads).toEqual([0, 1])
  })

  it('keeps 16 terms: a 17th puts out the least recently asked', () => {
    const w = world()
    w.set(0, 'text')
    for (let i = 0; i < 17; i++) w.holding(`term${i}`)
    w.reads.length = 0
    w.holding('term16')
    w.holding('term1')
    expect(w.reads).toEqual([])
    w.holding('term0')
    expect(w.reads).toEqual([0])
  })
})
