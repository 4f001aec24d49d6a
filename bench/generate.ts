// Deterministic benchmark data sets: N approved, active clubs cloned from data/seed.json,
// in the exact data file shape the service loads.
//   npx bun bench/generate.ts 1000 /tmp/clubs-1000.json
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { ClubRecord } from '../src/model/club'
import type { Snapshot } from '../src/model/snapshot'
import { snapshotProblem, upgradeSnapshot } from '../src/domain/snapshot-format'

export const SEED_FILE = join(import.meta.dir, '..', 'data', 'seed.json')

/** A small seeded PRNG (mulberry32): the same size always gives the same data. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The `i`-th clone of the seed: round 0 is the seed club itself, then "<name> 2", "<name> 3", ... */
function cloneClub(
  base: Omit<ClubRecord, 'approved_version'>,
  round: number,
  next: () => number,
): Omit<ClubRecord, 'approved_version'> {
  const suffix = round === 0 ? null : String(round + 1)
  return {
    ...base,
    code: suffix ? `${base.code}-${suffix}` : base.code,
    name: suffix ? `${base.name} ${suffix}` : base.name,
    active: true,
    approved: true,
    approved_by: 'admin',
    approved_on: base.approved_on ?? base.created_at,
    archived_at: null,
    favorite_count: Math.floor(next() * next() * 500),
    membership_count: 1 + Math.floor(next() * 120),
  }
}

export async function generate(size: number, seedFile = SEED_FILE): Promise<Snapshot> {
  const seed = (await Bun.file(seedFile).json()) as Snapshot
  const next = random(size)
  const clubs = Array.from({ length: size }, (_, i) =>
    cloneClub(seed.clubs[i % seed.clubs.length]!, Math.floor(i / seed.clubs.length), next),
  )
  const snapshot: Snapshot = upgradeSnapshot({ version: 1, tags: seed.tags, clubs })
  const names = new Set(clubs.map((club) => club.name.toLowerCase()))
  if (names.size !== size) throw new Error(`generate: ${size - names.size} duplicate names`)
  const problem = snapshotProblem(snapshot)
  if (problem) throw new Error(`generate: not a valid snapshot: ${problem}`)
  return snapshot
}

/** Writes the data set for `size` clubs to `file`; returns its size in bytes. */
export async function writeDataSet(size: number, file: string): Promise<number> {
  return Bun.write(file, JSON.stringify(await generate(size), null, 2))
}

/** The data set of `size` clubs in `tmp` as `clubs-<size>.json`: the one the run wrote, when there is one. */
export async function dataSetIn(tmp: string, size: number): Promise<string> {
  const file = join(tmp, `clubs-${size}.json`)
  if (!existsSync(file)) await writeDataSet(size, file)
  return file
}

if (import.meta.main) {
  const [size, file] = Bun.argv.slice(2)
  if (!size || !file) throw new Error('usage: npx bun bench/generate.ts <clubs> <file>')
  const bytes = await writeDataSet(Number(size), file)
  console.log(`${file}: ${size} clubs, ${bytes} bytes`)
}
