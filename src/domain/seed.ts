import type { Caller } from './caller'
import { keptInMemory, openDirectory } from './directory'
import { ApiError } from './errors'
import { logoPath, type LogoStore } from './logos'
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
 * A new directory of `rows`, clubs in the write shape (docs/reference.md §15): made as an import into an
 * empty directory makes them (codes from names, tags made by name, approved), then, like the
 * bundled sample, owned by nobody, with no members and no history yet. Or why not: the first
 * bad row, its field and what is wrong with it.
 */
export async function snapshotOfClubs(rows: readonly unknown[], now: () => Date): Promise<Snapshot | string> {
  const empty = emptySnapshot()
  if (!rows.length) return empty
  let capture = () => empty
  const { imports } = openDirectory(
    keptInMemory((made) => void (capture = made)),
    empty,
    { autoApprove: false, now },
  )
  try {
    await imports.run(OPERATOR, { kind: 'json', value: rows }, false)
  } catch (error) {
    if (error instanceof ApiError) return firstProblem(error.body)
    throw error
  }
  const { tags, clubs } = capture()
  return { ...empty, tags, clubs: clubs.map((club) => ({ ...club, membership_count: 0 })) }
}

/** What an import says of a field the club write shape does not have. */
const UNKNOWN_FIELD = 'Unknown field.'

/**
 * `row 3: size: "9" is not a valid choice.` from an import's refusal; fields the directory does
 * not have are named together, with what to do about them.
 */
function firstProblem(body: Record<string, unknown>): string {
  const rows = (body.rows ?? {}) as Record<string, Record<string, string[]>>
  const [number, errors] = Object.entries(rows)[0] ?? ['', body as Record<string, string[]>]
  const unknown = Object.keys(errors).filter((field) => errors[field]?.[0] === UNKNOWN_FIELD)
  if (unknown.length)
    return `${number ? `row ${number}: ` : ''}${unknown.join(', ')}: the directory has no such ${unknown.length === 1 ? 'field' : 'fields'}; remove ${unknown.length === 1 ? 'it' : 'them'} from the seed, and keep fields of your own in a file beside it, by club code (docs/hackathon.md: fields of your own).`
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
 * A new directory with the logos its seed brings (docs/reference.md §21, §22): each kept in the logo store
 * as an upload is (checked, WebP, thumbnails), and its club's `image_url` its URL on this service
 * at `origin`, part of the directory from the start (no change, no history: the seed is where it
 * starts). And what could not be set (no such club, not an image), one line each.
 */
export async function withSeedLogos(
  data: Snapshot,
  store: LogoStore,
  seedLogos: readonly SeedLogo[],
  origin: string,
): Promise<{ data: Snapshot; set: number; problems: string[] }> {
  const urls = new Map<string, string>()
  const problems: string[] = []
  const codes = new Set(data.clubs.map((club) => club.code))
  for (const { code, bytes } of seedLogos) {
    if (!codes.has(code)) {
      problems.push(`${code}: no club of the seed has this code`)
      continue
    }
    const kept = await store
      .make(bytes)
      .then(async (made) => {
        if ('problem' in made) return made
        await made.keep()
        return { name: made.name }
      })
      .catch((error: unknown) => ({ problem: `it cannot be kept (${error})` }))
    if ('problem' in kept) problems.push(`${code}: ${kept.problem}`)
    else urls.set(code, `${origin}${logoPath(kept.name)}`)
  }
  const clubs = data.clubs.map((club) => {
    const image_url = urls.get(club.code)
    if (image_url === undefined) return club
    return { ...club, image_url, approved_version: club.approved_version && { ...club.approved_version, image_url } }
  })
  return { data: { ...data, clubs }, set: urls.size, problems }
}
