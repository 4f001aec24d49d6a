import { describe, it } from 'bun:test'
import fc from 'fast-check'
import {
  listRequestArb,
  requestArb,
  requestsProperty,
  writeRequestArb,
  writeSequenceProperty,
} from '../harness/fuzz-properties'

// Property-based fuzzing through app.handle (in memory). Bounded for CI: FUZZ_RUNS sets the
// runs of each request property (default 200) and a tenth of it, at least 30, for the write
// sequences. `bun scripts/fuzz.ts [runs]` runs the same properties for much longer.
// A failure prints fast-check's seed and path: put them in `fc.assert(..., { seed, path })` to replay it.

const runs = Number(process.env.FUZZ_RUNS) || 200
const sequenceRuns = Math.max(30, Math.round(runs / 10))
const TIME = 60_000

describe('random requests (docs/reference.md §8)', () => {
  it(
    'never answers 5xx, answers 4xx with {"detail"} or {field: [messages]}, and sends JSON that parses',
    async () => {
      await fc.assert(requestsProperty(requestArb), { numRuns: runs })
    },
    TIME,
  )

  it(
    'holds for random list and retrieve queries (every docs/reference.md §6 parameter, repeated, unknown, unicode)',
    async () => {
      await fc.assert(requestsProperty(listRequestArb, 3), { numRuns: runs })
    },
    TIME,
  )

  it(
    'holds for random write bodies (wrong types, huge strings, deep nesting, __proto__, invalid JSON)',
    async () => {
      await fc.assert(requestsProperty(writeRequestArb, 3), { numRuns: runs })
    },
    TIME,
  )
})

describe('after random sequences of writes (docs/reference.md §2, §5, §6)', () => {
  it(
    'lists every club as its detail says, pages to the bare list, orders by every field with ties by code, and counts live',
    async () => {
      await fc.assert(writeSequenceProperty(), { numRuns: sequenceRuns })
    },
    TIME,
  )
})
