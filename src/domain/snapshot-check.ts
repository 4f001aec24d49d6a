import { TypeCompiler } from '@sinclair/typebox/compiler'
import { Snapshot } from '../model/snapshot'

// Compiled once: checking 10,000 clubs this way takes a few milliseconds, not a few hundred.
const SnapshotCheck = TypeCompiler.Compile(Snapshot)

/** Why `data` is not a snapshot, or null when it is one. */
export function snapshotProblem(data: unknown): string | null {
  if (!SnapshotCheck.Check(data)) {
    const error = SnapshotCheck.Errors(data).First()
    return `${error?.path || '/'}: ${error?.message ?? 'not a snapshot'}`
  }
  const snapshot = data as Snapshot
  const codes = new Set<string>()
  for (const club of snapshot.clubs) {
    if (codes.has(club.code)) return `/clubs: the code "${club.code}" appears twice`
    codes.add(club.code)
  }
  const tagIds = new Set(snapshot.tags.map((tag) => tag.id))
  if (tagIds.size !== snapshot.tags.length) return '/tags: a tag id appears twice'
  const orphan = snapshot.clubs.find((club) => club.tags.some((id) => !tagIds.has(id)))
  if (orphan) return `/clubs: "${orphan.code}" names a tag that does not exist`
  return null
}
