import type { Caller } from './caller'
import { openDirectory } from './directory'
import { ApiError } from './errors'
import type { LogoService } from './logos'
import { ADMIN_USERNAME } from './users'
import { SNAPSHOT_VERSION, type Snapshot } from '../model/snapshot'

/** A directory with nothing in it: no clubs, no tags, no users (CLUBS_SEED_FILE=none). */
export const emptySnapshot = (): Snapshot => ({
  version: SNAPSHOT_VERSION,
  tags: [],
  clubs: [],
  users: [],
  memberships: [],
  favorites: [],
  subscriptions: [],
  history: [],
  requests: [],
})

/** The seed is the operator's own data: its clubs are approved as the bundled sample's are, by the admin. */
const OPERATOR: Caller & { username: string } = { username: ADMIN_USERNAME, isAdmin: true }

/**
 * A new directory of `rows`, clubs in the write shape (CONTRACT §15): made as an import into an
 * empty directory makes them (codes from names, tags made by name, approved), then, like the
 * bundled sample, owned by nobody, with no members and no history yet. Or why not: the first
 * bad row, its field and what is wrong with it.
 */
export async function snapshotOfClubs(rows: readonly unknown[], now: () => Date): Promise<Snapshot | string> {
  const empty = emptySnapshot()
  if (!rows.length) return empty
  let capture = () => empty
  const persistence = { track: (made: () => Snapshot) => void (capture = made), save: async () => {} }
  const { imports } = openDirectory(persistence, empty, { autoApprove: false, now })
  try {
    await imports.run(OPERATOR, { kind: 'json', value: rows }, false)
  } catch (error) {
    if (error instanceof ApiError) return firstProblem(error.body)
    throw error
  }
  const { tags, clubs } = capture()
  return { ...empty, tags, clubs: clubs.map((club) => ({ ...club, membership_count: 0 })) }
}

/** `row 3: size: "9" is not a valid choice.` from an import's refusal. */
function firstProblem(body: Record<string, unknown>): string {
  const rows = (body.rows ?? {}) as Record<string, Record<string, string[]>>
  const [number, errors] = Object.entries(rows)[0] ?? ['', body as Record<string, string[]>]
  const [field, [message] = []] = Object.entries(errors)[0] ?? []
  const where = [number && `row ${number}`, field && field !== 'non_field_errors' && field].filter(Boolean)
  return [...where, message ?? 'not a club'].join(': ')
}

/** A logo a seed brings for one of its clubs: the image file's bytes, as an upload would send them. */
export interface SeedLogo {
  readonly code: string
  readonly bytes: Uint8Array
}

/**
 * Sets the logos a new directory's seed brings, each as the admin's upload of it would (CONTRACT
 * §21): kept as WebP with its thumbnails, `image_url` its URL on this service at `origin`. What
 * could not be set (no such club, not an image), one line each; the others are set all the same.
 */
export async function loadSeedLogos(
  logos: LogoService,
  seedLogos: readonly SeedLogo[],
  origin: string,
): Promise<string[]> {
  const problems: string[] = []
  for (const { code, bytes } of seedLogos) {
    try {
      await logos.put(OPERATOR, code, { bytes }, origin)
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      problems.push(`${code}: ${error.status === 404 ? 'no club has this code' : JSON.stringify(error.body)}`)
    }
  }
  return problems
}
