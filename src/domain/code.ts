const MAX_BASE = 90

const ASCII = /^[\x00-\x7f]*$/

/** Folds case and accents: "Société" → "societe". Used for codes, sorting and search. */
export function fold(text: string): string {
  // ASCII has nothing to decompose and no marks: half the time for most of a directory's text.
  if (ASCII.test(text)) return text.toLowerCase()
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
}

/** The code a club gets from its name: lowercase ASCII words joined by single hyphens. */
export function slugify(name: string): string {
  const slug = fold(name)
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_BASE)
    .replace(/^-+|-+$/g, '')
  // A name of only emoji or other scripts folds to nothing; such clubs are named "club", "club-2", ...
  return slug || 'club'
}

/**
 * Codes that name a page of the campus site under /clubs/ (`/clubs/new` registers a club) or an
 * endpoint under /api/clubs/ (`/api/clubs/fitting/` matches a timetable), never a club.
 */
export const RESERVED_CODES: ReadonlySet<string> = new Set(['new', 'fitting'])

/** `base`, or the first of `base-2`, `base-3`, … that is free. */
export function firstFreeCode(base: string, isTaken: (code: string) => boolean): string {
  if (!isTaken(base)) return base
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`
    if (!isTaken(candidate)) return candidate
  }
}
