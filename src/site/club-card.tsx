/** @jsxImportSource preact */
import type { ComponentChildren } from 'preact'
import { isOwnLogo } from '../domain/logos'
import type { ClubListItem } from '../model/club'

/** Up to two letters standing for a club without a logo: "Penn Chess Society" → "PC". */
export function initialsOf(name: string): string {
  const words = name.split(/[\s\-–—_/&.,:;()]+/u).filter((word) => /\p{L}|\p{N}/u.test(word))
  return words
    .slice(0, 2)
    .map((word) => [...word].find((ch) => /\p{L}|\p{N}/u.test(ch))!.toLocaleUpperCase())
    .join('')
}

/** The club's logo when this service holds it, else its initials; decorative either way (the name follows). */
export function Logo({ club, origin, size }: { club: ClubListItem; origin: string; size: number }) {
  const own = club.image_url !== null && isOwnLogo(club.image_url, origin)
  // The service's own square thumbnails: the 64 px one where it fits, else the 256 px one.
  if (own)
    return (
      <img class="logo" src={`${club.image_url!}?size=${size <= 64 ? 64 : 256}`} alt="" width={size} height={size} />
    )
  return (
    <span class="logo initials" aria-hidden="true">
      {initialsOf(club.name)}
    </span>
  )
}

/**
 * One club in the directory: logo, name as the link to its page, subtitle, tags, whether it takes
 * members, then `children` (the meetings that fit a timetable).
 */
export function ClubCard({
  club,
  origin,
  children,
}: {
  club: ClubListItem
  origin: string
  children?: ComponentChildren
}) {
  return (
    <li class="card">
      <Logo club={club} origin={origin} size={64} />
      <div class="card-body">
        <h3>
          <a href={`/clubs/${club.code}`}>{club.name}</a>
        </h3>
        {club.subtitle && <p class="subtitle">{club.subtitle}</p>}
        {club.tags.length > 0 && (
          <ul class="tags" aria-label="Tags">
            {club.tags.map((tag) => (
              <li>{tag.name}</li>
            ))}
          </ul>
        )}
        {club.accepting_members && <p class="badge">Accepting members</p>}
        {children}
      </div>
    </li>
  )
}
