import { describe, expect, test } from 'bun:test'
import { escapeText, fold } from '../src/domain/icalendar'
import { timeZoneLines } from '../src/domain/time-zones'

// The two rules of iCalendar text that are easy to get wrong (RFC 5545 §3.1, §3.3.11), and the
// shape of a VTIMEZONE (test/calendars.test.ts reads whole feeds with a calendar library).

describe('escapeText', () => {
  const rows: [string, string][] = [
    ['plain', 'plain'],
    ['a;b', 'a\\;b'],
    ['a,b', 'a\\,b'],
    ['C:\\Games', 'C:\\\\Games'],
    ['one\ntwo', 'one\\ntwo'],
    ['one\r\ntwo\rthree', 'one\\ntwo\\nthree'],
    ['bell\u0007 and tab\t', 'bell and tab\t'],
    ['\\;', '\\\\\\;'],
  ]
  test.each(rows)('%p', (text, escaped) => {
    expect(escapeText(text)).toBe(escaped)
  })
})

describe('fold', () => {
  const octets = (line: string) => new TextEncoder().encode(line).length
  const rows: [string, string][] = [
    ['short', 'x'.repeat(75)],
    ['one octet over', 'x'.repeat(76)],
    ['long ASCII', 'DESCRIPTION:' + 'abc '.repeat(60)],
    ['two-octet characters', 'SUMMARY:' + 'é'.repeat(100)],
    ['three-octet characters', 'SUMMARY:' + '日本語'.repeat(40)],
    ['four-octet characters', 'SUMMARY:' + '🎲'.repeat(50)],
  ]
  test.each(rows)(
    '%s: lines of at most 75 octets, continuations after one space, the same text unfolded',
    (_, line) => {
      const folded = fold(line)
      const lines = folded.split('\r\n')
      for (const part of lines) expect(octets(part)).toBeLessThanOrEqual(75)
      for (const part of lines.slice(1)) expect(part.startsWith(' ')).toBe(true)
      expect(folded.replaceAll('\r\n ', '')).toBe(line)
      // No character is cut: each line is whole text (a cut surrogate pair would not round-trip).
      for (const part of lines) expect(new TextDecoder().decode(new TextEncoder().encode(part))).toBe(part)
      if (octets(line) <= 75) expect(lines).toEqual([line])
    },
  )
})

describe('timeZoneLines', () => {
  // [zone, observances (the first offset one of them), how many with a yearly RRULE]
  const rows: [string, number, number][] = [
    ['America/New_York', 3, 2], // one rule for each change, every year of 2026-2036
    ['Australia/Lord_Howe', 3, 2],
    ['Asia/Kolkata', 1, 0], // no change
    ['Pacific/Apia', 1, 0], // none since 2021
  ]
  test.each(rows)('%s: %i observances, %i of them yearly rules', (zone, observances, ruled) => {
    const lines = timeZoneLines(zone, 2026, 2036)
    expect(lines.filter((line) => line.startsWith('DTSTART:'))).toHaveLength(observances)
    expect(lines.filter((line) => line.startsWith('RRULE:'))).toHaveLength(ruled)
  })

  test('Africa/Casablanca: changes that move with Ramadan follow no rule five years running, so each is written out', () => {
    const lines = timeZoneLines('Africa/Casablanca', 2026, 2036)
    expect(lines.filter((line) => line.startsWith('RRULE:'))).toEqual([])
    expect(lines.filter((line) => line.startsWith('DTSTART:')).length).toBeGreaterThan(1 + 2 * 10)
  })
})
