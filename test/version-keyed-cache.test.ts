import { describe, expect, it } from 'bun:test'
import { VersionKeyedCache } from '../src/edge/version-keyed-cache'

// The one cache of what is made per data version (src/edge/version-keyed-cache.ts), which the list
// and calendar answers, the site's rendered pages and the logo files keep theirs in: a value is
// served while its version stands and never after, and the cache holds at most its limit.

/** A value kept under a key at a version, or a read that must find `found` there. */
type Step =
  | readonly ['set', version: string, key: string, value: number]
  | readonly ['get', version: string, key: string, found: number | undefined]

const rows: { name: string; limit: number; steps: Step[] }[] = [
  {
    name: 'keeps each value under its key while the version stands',
    limit: 10,
    steps: [
      ['get', 'v1', 'a', undefined],
      ['set', 'v1', 'a', 1],
      ['set', 'v1', 'b', 2],
      ['get', 'v1', 'a', 1],
      ['get', 'v1', 'b', 2],
      ['get', 'v1', 'c', undefined],
    ],
  },
  {
    name: 'a new version empties it, for good',
    limit: 10,
    steps: [
      ['get', 'v1', 'a', undefined],
      ['set', 'v1', 'a', 1],
      ['get', 'v2', 'a', undefined],
      ['get', 'v1', 'a', undefined],
    ],
  },
  {
    name: 'a value made at a version the data has left since is not kept',
    limit: 10,
    steps: [
      ['get', 'v1', 'a', undefined],
      ['get', 'v2', 'b', undefined],
      ['set', 'v1', 'a', 1],
      ['get', 'v2', 'a', undefined],
      ['set', 'v2', 'a', 2],
      ['get', 'v2', 'a', 2],
    ],
  },
  {
    name: 'one more value than the limit empties it and keeps that one',
    limit: 2,
    steps: [
      ['get', 'v1', 'a', undefined],
      ['set', 'v1', 'a', 1],
      ['set', 'v1', 'b', 2],
      ['get', 'v1', 'a', 1],
      ['set', 'v1', 'c', 3],
      ['get', 'v1', 'a', undefined],
      ['get', 'v1', 'b', undefined],
      ['get', 'v1', 'c', 3],
    ],
  },
]

describe('a version-keyed cache', () => {
  it.each(rows)('$name', ({ limit, steps }) => {
    const cache = new VersionKeyedCache<number>(limit)
    for (const [at, step] of steps.entries()) {
      const [action, version, key, value] = step
      if (action === 'set') cache.set(version, key, value)
      // The step goes with what was found, so a failure names it.
      else expect({ at, step, found: cache.get(version, key) }).toEqual({ at, step, found: value })
    }
  })
})
