/** @jsxImportSource preact */
import type { ComponentChildren } from 'preact'
import type { Officer } from '../domain/members'
import { HIDDEN_EMAIL } from '../domain/represent'
import type { ClubDetail } from '../model/club'
import { clubPageUrl } from '../edge/qr-codes'
import { Logo } from './club-card'
import { ClubFacts, MeetingList } from './club-facts'
import { CLUB_LINKS } from './club-links'
import { LastConfirmed } from './re-registration'
import { clubSchema, scriptJson } from './json-ld'

/** A long text as paragraphs, one per blank-line-separated block, its line breaks kept. */
function Paragraphs({ text }: { text: string }) {
  return (
    <>
      {text
        .split(/\n\s*\n/)
        .filter((block) => block.trim() !== '')
        .map((block) => (
          <p class="prose">{block.trim()}</p>
        ))}
    </>
  )
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/**
 * A club's page (docs/reference.md §20, §22): its name, subtitle, description, how to get involved, its
 * public facts, meetings (in the campus time zone, named), public officers, links, email, counts;
 * `actions` for a signed-in reader. The same as schema.org JSON-LD for search engines (docs/reference.md
 * §24): data, not a script the browser runs, so the Content-Security-Policy has nothing to allow.
 */
export function ClubPage({
  club,
  origin,
  officers,
  timeZone,
  actions,
  interest,
}: {
  club: ClubDetail
  origin: string
  officers: readonly Officer[]
  /** CLUBS_TIMEZONE: the clock meeting times are on. */
  timeZone: string
  actions?: ComponentChildren
  /** The "I'm interested" form (docs/reference.md §23), on a club that accepts members. */
  interest?: ComponentChildren
}) {
  const links = CLUB_LINKS.filter(([field]) => club[field] !== null)
  const schema = scriptJson(clubSchema(club, clubPageUrl(origin, club.code), origin, timeZone))
  return (
    <article class="club">
      <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: schema }} />
      <header class="club-head">
        <Logo club={club} origin={origin} size={96} />
        <div>
          <h1>{club.name}</h1>
          {club.subtitle && <p class="subtitle">{club.subtitle}</p>}
          {club.tags.length > 0 && (
            <ul class="tags" aria-label="Tags">
              {club.tags.map((tag) => (
                <li>{tag.name}</li>
              ))}
            </ul>
          )}
        </div>
      </header>
      <p class="counts">
        {count(club.membership_count, 'member', 'members')} · {count(club.favorite_count, 'favorite', 'favorites')}
        {club.accepting_members && <span class="badge">Accepting members</span>}
      </p>
      <LastConfirmed day={club.last_confirmed_on} />
      {actions}
      {club.description && (
        <section aria-labelledby="about">
          <h2 id="about">About</h2>
          <Paragraphs text={club.description} />
        </section>
      )}
      {club.how_to_get_involved && (
        <section aria-labelledby="involved">
          <h2 id="involved">How to get involved</h2>
          <Paragraphs text={club.how_to_get_involved} />
        </section>
      )}
      {interest}
      <ClubFacts club={club} />
      {club.meetings.length > 0 && (
        <section aria-labelledby="meetings">
          <h2 id="meetings">Meetings</h2>
          <MeetingList meetings={club.meetings} timeZone={timeZone} />
          <p>
            <a href={`/api/clubs/${club.code}/calendar.ics`} download={`${club.code}.ics`}>
              Add to calendar
            </a>{' '}
            <span class="help">(an iCalendar file of these meetings, every week)</span>
          </p>
        </section>
      )}
      {officers.length > 0 && (
        <section aria-labelledby="officers">
          <h2 id="officers">Whom to ask</h2>
          <ul class="officers">
            {officers.map((officer) => (
              <li>
                <strong>{officer.username}</strong>
                {officer.title ? `, ${officer.title}` : ''} <span class="help">({officer.role})</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      {(links.length > 0 || (club.email && club.email !== HIDDEN_EMAIL)) && (
        <section aria-labelledby="contact">
          <h2 id="contact">Contact and links</h2>
          <ul class="links">
            {club.email && club.email !== HIDDEN_EMAIL && (
              <li>
                Email: <a href={`mailto:${club.email}`}>{club.email}</a>
              </li>
            )}
            {links.map(([field, label]) => (
              <li>
                <a href={club[field]!} rel="noopener noreferrer">
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </section>
      )}
      <p class="poster-link">
        <a href={`/clubs/${club.code}/poster`}>Poster for the club fair</a>{' '}
        <span class="help">(one printable page with a QR code of this page)</span>
      </p>
    </article>
  )
}
