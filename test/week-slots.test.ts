import { describe, expect, it } from 'bun:test'
import { freeSlotsTest, meetingWeek, parseDays, parseSlots } from '../src/domain/week-slots'
import { wallClockInstant } from '../src/domain/time-zones'

// The parsers of `meets_on=` and `free=` (docs/reference.md §24), as tables: what each input reads as,
// and what is refused with which words; then how a club's meetings fit free slots, and the wall
// clock read as instants across changes of the clocks.

const m = (hours: number, minutes = 0) => hours * 60 + minutes

describe('free= slots', () => {
  const good: [string, { day: number; start: number; end: number }[]][] = [
    ['mon 18:00-21:00', [{ day: 0, start: m(18), end: m(21) }]],
    [
      'mon 18:00-21:00,wed 12:00-14:00',
      [
        { day: 0, start: m(18), end: m(21) },
        { day: 2, start: m(12), end: m(14) },
      ],
    ],
    ['  Sunday   9:30 - 10:45 ', [{ day: 6, start: m(9, 30), end: m(10, 45) }]],
    ['FRI 00:00-24:00', [{ day: 4, start: 0, end: m(24) }]],
    ['tuesday 23:59-24:00', [{ day: 1, start: m(23, 59), end: m(24) }]],
  ]
  for (const [raw, slots] of good)
    it(`reads ${JSON.stringify(raw)}`, () => {
      expect(parseSlots(raw)).toEqual({ slots })
    })

  const bad: [string, string][] = [
    ['', 'A free slot is missing'],
    ['mon 18:00-21:00,', 'A free slot is missing'],
    ['mon', 'is not a free slot'],
    ['mon 18:00', 'is not a free slot'],
    ['18:00-21:00', 'is not a free slot'],
    ['mo 18:00-21:00', '"mo" is not a day'],
    ['mon 18-21', 'not a 24-hour HH:MM'],
    ['mon 18:00-24:30', 'not a 24-hour HH:MM'],
    ['mon 24:00-24:00', 'not a 24-hour HH:MM'],
    ['mon 18:60-19:00', 'not a 24-hour HH:MM'],
    ['mon 21:00-18:00', 'the end must come after the start'],
    ['mon 18:00-18:00', 'the end must come after the start'],
    [Array(51).fill('mon 10:00-11:00').join(','), 'at most 50 free slots'],
  ]
  for (const [raw, words] of bad)
    it(`refuses ${JSON.stringify(raw.slice(0, 40))}`, () => {
      const parsed = parseSlots(raw)
      expect('problem' in parsed && parsed.problem).toContain(words)
    })
})

describe('meets_on= days', () => {
  const table: [string, number | string][] = [
    ['mon', 0b1],
    ['mon,wed', 0b101],
    ['Sunday, SAT', 0b1100000],
    ['tue,tuesday', 0b10],
    ['', 'A day is missing'],
    ['mon,', 'A day is missing'],
    ['funday', '"funday" is not a day'],
  ]
  for (const [raw, expected] of table)
    it(`${JSON.stringify(raw)} → ${expected}`, () => {
      const parsed = parseDays(raw)
      if (typeof expected === 'number') expect(parsed).toEqual({ days: expected })
      else expect('problem' in parsed && parsed.problem).toContain(expected)
    })
})

describe("a club's week against free slots", () => {
  const week = meetingWeek([
    { day: 'tuesday', start: '19:00', end: '21:30', location: '', note: '' },
    { day: 'saturday', start: '10:00', end: '12:00', location: '', note: '' },
  ])
  it('keeps its days and minute ranges', () => {
    expect(week.days).toBe(0b100010)
    expect(week.spans).toEqual([
      { day: 1, start: m(19), end: m(21, 30) },
      { day: 5, start: m(10), end: m(12) },
    ])
  })
  const table: [string, boolean][] = [
    ['tue 19:00-21:30', true],
    ['tue 18:00-24:00', true],
    ['tue 19:01-21:30', false],
    ['tue 19:00-21:29', false],
    ['wed 00:00-24:00', false],
    ['mon 00:00-24:00,sat 09:00-12:00', true],
    ['sat 10:30-12:00', false],
  ]
  for (const [raw, fits] of table)
    it(`${raw}: ${fits ? 'fits' : 'does not fit'}`, () => {
      const parsed = parseSlots(raw)
      if (!('slots' in parsed)) throw new Error(parsed.problem)
      expect(freeSlotsTest(parsed.slots)(week)).toBe(fits)
    })
})

describe('the wall clock as instants', () => {
  const table: [string, [number, number, number, number], string][] = [
    ['an ordinary winter evening', [2026, 12, 1, m(18)], '2026-12-01T23:00:00.000Z'],
    ['a summer evening', [2027, 6, 1, m(18)], '2027-06-01T22:00:00.000Z'],
    ['the day the clocks go forward, after', [2027, 3, 14, m(10)], '2027-03-14T14:00:00.000Z'],
    ['a time the clocks skip: the offset before', [2027, 3, 14, m(2, 30)], '2027-03-14T07:30:00.000Z'],
    ['the day the clocks go back, after', [2026, 11, 1, m(10)], '2026-11-01T15:00:00.000Z'],
    ['a time shown twice: its first showing', [2026, 11, 1, m(1, 30)], '2026-11-01T05:30:00.000Z'],
    ['midnight ending a day (24:00)', [2026, 12, 1, m(24)], '2026-12-02T05:00:00.000Z'],
  ]
  for (const [name, [year, month, day, minutes], expected] of table)
    it(`New York, ${name}`, () => {
      expect(new Date(wallClockInstant('America/New_York', year, month, day, minutes)).toISOString()).toBe(expected)
    })
})
