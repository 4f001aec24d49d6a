import { HIDDEN_EMAIL } from '../domain/represent'
import type { Meeting } from '../model/club'
import type { ClubDetail } from '../model/club'
import { CLUB_LINKS } from './club-links'

// A club as schema.org JSON-LD (docs/reference.md §24), for search engines: an Organization whose weekly
// meetings are Events, each with a Schedule. Made from the detail representation the page shows,
// so it says what the page says, and nothing the page does not.

const DAYS: Record<Meeting['day'], string> = {
  monday: 'https://schema.org/Monday',
  tuesday: 'https://schema.org/Tuesday',
  wednesday: 'https://schema.org/Wednesday',
  thursday: 'https://schema.org/Thursday',
  friday: 'https://schema.org/Friday',
  saturday: 'https://schema.org/Saturday',
  sunday: 'https://schema.org/Sunday',
}

/** An absolute URL of `url` (as a club's fields hold it) on the site at `origin`; null when it is none. */
function absolute(url: string, origin: string): string | null {
  try {
    return new URL(url, origin).href
  } catch {
    return null
  }
}

/** The schema.org description of `club`, whose page is at `page`, its meetings on the clock of `timeZone`. */
export function clubSchema(club: ClubDetail, page: string, origin: string, timeZone: string) {
  const logo = club.image_url === null ? null : absolute(club.image_url, origin)
  const sameAs = CLUB_LINKS.flatMap(([field]) => {
    const link = club[field]
    return link === null ? [] : (absolute(link, origin) ?? [])
  })
  const organization = { '@type': 'Organization', '@id': `${page}#organization`, name: club.name, url: page }
  return {
    '@context': 'https://schema.org',
    ...organization,
    description: club.description || club.subtitle || undefined,
    ...(club.subtitle ? { slogan: club.subtitle } : {}),
    ...(logo ? { logo } : {}),
    ...(club.email && club.email !== HIDDEN_EMAIL ? { email: club.email } : {}),
    ...(club.tags.length ? { keywords: club.tags.map((tag) => tag.name).join(', ') } : {}),
    ...(sameAs.length ? { sameAs } : {}),
    event: club.meetings.map((meeting) => ({
      '@type': 'Event',
      name: `${club.name}: weekly meeting`,
      ...(meeting.note ? { description: meeting.note } : {}),
      url: page,
      organizer: { '@id': organization['@id'] },
      ...(meeting.location
        ? { location: { '@type': 'Place', name: meeting.location, address: meeting.location } }
        : {}),
      eventSchedule: {
        '@type': 'Schedule',
        byDay: DAYS[meeting.day],
        startTime: `${meeting.start}:00`,
        endTime: `${meeting.end}:00`,
        scheduleTimezone: timeZone,
        repeatFrequency: 'P1W',
      },
    })),
  }
}

/** JSON the HTML parser cannot end early: no `<` (so no `</script>` or `<!--`), `>` nor `&`, and no line separators. */
const ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
}

/** `value` as the text of a `<script type="application/ld+json">`: JSON that no field can close the element with. */
export const scriptJson = (value: unknown): string =>
  JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (char) => ESCAPES[char]!)
