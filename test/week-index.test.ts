// The week index of `free=` (src/domain/week-index.ts, docs/reference.md §24): tables of which positions
// a query marks; then properties, with fast-check, that it marks exactly the weeks the
// straightforward `freeSlotsTest` keeps, on random meetings and slots, and that a catalog's
// list by free= through it (src/domain/list-query.ts) is the straightforward filter, across
// writes, archiving, removal and entries from an earlier state.
import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { Catalog, type Entry } from '../src/domain/catalog'
import { applyListQuery, parseListQuery } from '../src/domain/list-query'
import { weekIndex } from '../src/domain/week-index'
import { freeSlotsTest, meetingWeek, slotsText, type MeetingWeek, type WeekSpan } from '../src/domain/week-slots'
import { WEEKDAYS, type ClubRecord, type Meeting, type Tag } from '../src/model/club'
import { SEED_FILE } from '../harness/app'

const m = (hours: number, minutes = 0) => hours * 60 + minutes
const span = (day: number, start: number, end: number): WeekSpan => ({ day, start, end })
const week = (...spans: WeekSpan[]): MeetingWeek => ({ spans, days: spans.reduce((d, s) => d | (1 << s.day), 0) })
const marked = (marks: Uint8Array) => [...marks.keys()].filter((p) => marks[p] === 1)

describe('week index', () => {
  const weeks: (MeetingWeek | undefined)[] = [
    /* 0 */ week(span(0, m(18), m(20))), // Monday 18-20
    /* 1 */ week(span(0, m(17), m(19)), span(2, m(12), m(13))), // Monday 17-19, Wednesday 12-13
    /* 2 */ undefined, // no club here
    /* 3 */ week(), // no meetings
    /* 4 */ week(span(4, m(22), m(24))), // Friday 22-24 (ends at midnight)
    /* 5 */ week(span(0, m(21), m(21))), // an instant, at a slot's very end
    /* 6 */ week(span(6, 0, m(1))), // Sunday from midnight
  ]
  const index = weekIndex(weeks)
  const table: [string, WeekSpan[], number[]][] = [
    ['one slot holding one meeting', [span(0, m(18), m(21))], [0, 5]],
    ['a slot as long as the meeting', [span(0, m(18), m(20))], [0]],
    ['a slot a minute short at the end', [span(0, m(18), m(19, 59))], []],
    ['a slot a minute late at the start', [span(0, m(18, 1), m(21))], [5]],
    ['the other day of a club', [span(2, m(12), m(14))], [1]],
    ['two slots, each keeping its own club', [span(0, m(17), m(19)), span(4, m(20), m(24))], [1, 4]],
    ['the whole of Monday', [span(0, 0, m(24))], [0, 1, 5]],
    ['a day without meetings', [span(3, 0, m(24))], []],
    ['from midnight', [span(6, 0, m(1))], [6]],
    ['the same slot twice', [span(2, m(12), m(13)), span(2, m(12), m(13))], [1]],
    ['no slots', [], []],
  ]
  for (const [name, slots, positions] of table)
    it(`marks ${JSON.stringify(positions)} for ${name}`, () => {
      const marks = index.fitting(slots)
      expect(marks.length).toBe(weeks.length)
      expect(marked(marks)).toEqual(positions)
      const fits = freeSlotsTest(slots)
      expect(positions).toEqual(weeks.flatMap((w, p) => (w && fits(w) ? [p] : [])))
    })

  it('covers every week there is, and no empty position', () => {
    expect(weeks.map((_, p) => index.covers(p))).toEqual([true, true, false, true, true, true, true])
  })

  const malformed: [string, MeetingWeek][] = [
    ['ends before it starts', week(span(0, m(20), m(18)))],
    ['a minute that is not whole', week(span(0, m(18) + 0.5, m(20)))],
    ['no time at all', week(span(0, NaN, m(20)))],
    ['past midnight', week(span(0, m(23), m(25)))],
    ['a day that is not one', week(span(7, m(18), m(20)))],
    ['days that are not its spans', { spans: [span(0, m(18), m(20))], days: 0b10 }],
  ]
  for (const [name, bad] of malformed)
    it(`leaves to the straightforward test a week whose span ${name}`, () => {
      const index = weekIndex([week(span(0, m(18), m(20))), bad])
      expect(index.covers(0)).toBe(true)
      expect(index.covers(1)).toBe(false)
      expect(marked(index.fitting([span(0, 0, m(24)), span(1, 0, m(24))]))).toEqual([0])
    })

  it('gives a fresh array on every call', () => {
    const first = index.fitting([span(0, m(18), m(21))])
    const second = index.fitting([span(2, m(12), m(14))])
    expect(marked(first)).toEqual([0, 5])
    expect(marked(second)).toEqual([1])
  })
})

// Random weeks and slots: minutes on a half-hour grid often, so that meetings and slots meet
// edge to edge, and anywhere otherwise; slots as parseSlots makes them.
const minuteArb = (max: number) =>
  fc.oneof(
    fc.integer({ min: 0, max: Math.floor(max / 30) }).map((h) => h * 30),
    fc.nat(max),
  )
const lengthArb = (max: number) =>
  fc.oneof(
    fc.integer({ min: 1, max: Math.floor(max / 30) }).map((h) => h * 30),
    fc.integer({ min: 1, max }),
  )
const dayArb = fc.integer({ min: 0, max: 6 })
const meetingSpanArb = fc
  .oneof(
    fc.tuple(dayArb, minuteArb(1439), lengthArb(600)).map(([day, start, length]) => span(day, start, start + length)),
    // An instant, or meetings in any order of their times: the index must agree even then.
    fc.tuple(dayArb, minuteArb(1440)).map(([day, at]) => span(day, at, at)),
    fc.tuple(dayArb, minuteArb(1440), minuteArb(1440)).map(([day, a, b]) => span(day, Math.min(a, b), Math.max(a, b))),
  )
  .map((s) => ({ ...s, end: Math.min(1440, s.end) }))
const slotArb = fc
  .tuple(dayArb, minuteArb(1439), lengthArb(1440))
  .map(([day, start, length]) => span(day, start, Math.min(1440, start + length)))
const weekArb = fc.array(meetingSpanArb, { maxLength: 4 }).map((spans) => week(...spans))
const oddSpanArb = fc.record({
  day: fc.oneof(dayArb, fc.constantFrom(-1, 7, 1.5)),
  start: fc.oneof(minuteArb(1440), fc.constantFrom(-30, 1500, NaN, 61.5)),
  end: fc.oneof(minuteArb(1440), fc.constantFrom(-30, 1500, NaN, 61.5)),
})
/** A week the index may refuse, still one freeSlotsTest reads without failing (its days in 0-6). */
const oddWeekArb = fc
  .array(oddSpanArb, { maxLength: 3 })
  .map((spans) => spans.map((s) => (Number.isInteger(s.day) && s.day >= 0 && s.day <= 6 ? s : { ...s, day: 3 })))
  .chain((spans) =>
    fc.oneof(
      fc.constant(week(...spans)),
      fc.nat(127).map((days) => ({ spans, days })),
    ),
  )

describe('week index, against freeSlotsTest', () => {
  it('marks exactly the weeks with a meeting inside a slot', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.oneof({ weight: 4, arbitrary: weekArb }, { weight: 1, arbitrary: oddWeekArb })), {
          maxLength: 40,
        }),
        fc.array(slotArb, { maxLength: 6 }),
        (weeks, slots) => {
          const index = weekIndex(weeks.map((w) => w ?? undefined))
          const marks = index.fitting(slots)
          const fits = freeSlotsTest(slots)
          weeks.forEach((w, p) => {
            if (w && index.covers(p)) expect(marks[p] === 1).toBe(fits(w))
            else expect(marks[p]).toBe(0)
          })
        },
      ),
      { numRuns: 500 },
    )
  })

  it('covers every week made from checked meetings', () => {
    fc.assert(
      fc.property(fc.array(meetingArb, { maxLength: 4 }), (meetings) => {
        expect(weekIndex([meetingWeek(meetings)]).covers(0)).toBe(true)
      }),
    )
  })
})

const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`
/** A meeting as a record keeps it (docs/reference.md §21: 00:00 to 23:59, the end after the start). */
const meetingArb: fc.Arbitrary<Meeting> = fc
  .tuple(dayArb, minuteArb(1438), lengthArb(600))
  .map(([day, start, length]) => ({
    day: WEEKDAYS[day]!,
    start: hhmm(start),
    end: hhmm(Math.min(1439, start + length)),
    location: '',
    note: '',
  }))

const seed = JSON.parse(readFileSync(SEED_FILE, 'utf8')) as { clubs: ClubRecord[]; tags: Tag[] }
const samples = seed.clubs.slice(0, 12)

type Step =
  | { kind: 'meet'; club: number; meetings: Meeting[] }
  | { kind: 'archive'; club: number }
  | { kind: 'remove'; club: number }
  | { kind: 'restore'; club: number }
  | { kind: 'query'; slots: WeekSpan[] }
const clubArb = fc.nat(samples.length - 1)
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('meet' as const), club: clubArb, meetings: fc.array(meetingArb, { maxLength: 3 }) }),
  fc.record({ kind: fc.constant('archive' as const), club: clubArb }),
  fc.record({ kind: fc.constant('remove' as const), club: clubArb }),
  fc.record({ kind: fc.constant('restore' as const), club: clubArb }),
  fc.record({ kind: fc.constant('query' as const), slots: fc.array(slotArb, { minLength: 1, maxLength: 4 }) }),
)

describe('free= over a catalog, against freeSlotsTest', () => {
  it('keeps the clubs the straightforward filter keeps, in both views, across writes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(meetingArb, { maxLength: 3 }), { minLength: samples.length, maxLength: samples.length }),
        fc.array(fc.boolean(), { minLength: samples.length, maxLength: samples.length }),
        fc.array(stepArb, { maxLength: 25 }),
        (meetings, awaiting, steps) => {
          // Some clubs with a change awaiting review, so the public sees a version of their own.
          const records: ClubRecord[] = samples.map((club, i) => ({
            ...club,
            meetings: meetings[i]!,
            archived_at: null,
            ...(awaiting[i] && {
              approved: false,
              approved_version: {
                name: `${club.name} (approved)`,
                subtitle: club.subtitle,
                description: club.description,
                image_url: club.image_url,
                approved_by: null,
                approved_on: null,
                approved_comment: '',
              },
            }),
          }))
          const catalog = new Catalog(records, seed.tags)
          const stored = new Map(records.map((r) => [r.code, r]))
          // Entries from an earlier state, given to the filter as a caller holding them might.
          let earlier: Entry[] = [...catalog.live('current'), ...catalog.live('public')]
          for (const step of steps) {
            const code = samples[step.kind === 'query' ? 0 : step.club]!.code
            const current = stored.get(code)
            if (step.kind === 'meet' && current) stored.set(code, { ...current, meetings: step.meetings })
            if (step.kind === 'archive' && current)
              stored.set(code, { ...current, archived_at: '2026-01-01T00:00:00Z' })
            if (step.kind === 'restore' && current) stored.set(code, { ...current, archived_at: null })
            if (step.kind === 'remove') {
              catalog.remove(code)
              stored.delete(code)
            } else if (step.kind === 'restore' && !current) {
              stored.set(code, records[step.club]!)
            }
            const now = stored.get(code)
            if (step.kind !== 'query' && step.kind !== 'remove' && now) catalog.put(now)
            if (step.kind !== 'query') continue
            const query = parseListQuery(new URLSearchParams({ free: slotsText(step.slots) }), catalog)
            const fits = freeSlotsTest(step.slots)
            // The live clubs of this state are the index's own, so their marks are what answers.
            const { entries } = catalog.weekIndexed()
            for (const view of ['current', 'public'] as const)
              for (const e of catalog.live(view)) expect(entries[e.position]).toBe(e)
            for (const view of ['current', 'public'] as const) {
              const sorted = catalog.sortedBy(query.order, view)
              const kept = applyListQuery(sorted, () => true, query)
              expect(kept).toEqual(sorted.filter((e) => fits(e.week)))
            }
            expect(applyListQuery(earlier, () => true, query)).toEqual(earlier.filter((e) => fits(e.week)))
            earlier = [...catalog.live('current'), ...catalog.live('public')]
          }
        },
      ),
      { numRuns: 200 },
    )
  })
})
