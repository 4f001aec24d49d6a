/** @jsxImportSource preact */
import { Elysia } from 'elysia'
import { clubPageUrl, qrCode } from '../edge/qr-codes'
import { MeetingList } from './club-facts'
import { callerOf, type Shown, type SiteKit, type Visit } from './kit'

/** A name longer than this (of up to 255 characters) is printed smaller, on up to three lines. */
const LONG_NAME = 40

/**
 * A club's poster for the club fair (docs/reference.md §23): its name, subtitle and meetings, and a large
 * QR code of its page, on one printed sheet of A4 or Letter (site.css sizes it for the smaller of
 * the two in print, and hides the site's frame). Whoever may see the club's page may see it.
 */
export function posterRoutes(kit: SiteKit) {
  const { clubs, timeZone, title: site } = kit.deps

  function poster({ url, viewer, params }: Visit): Shown {
    const caller = callerOf(viewer)
    const club = clubs.detail(caller, clubs.retrieve(caller, params.code!))
    const address = clubPageUrl(url.origin, club.code)
    return {
      title: `Poster: ${club.name}`,
      content: (
        <article class="poster" aria-labelledby="poster-name">
          <p class="poster-tools">
            {/* Shown by site.js, which makes it print: without scripts the browser's own Print remains. */}
            <button type="button" data-print hidden>
              Print
            </button>{' '}
            <a href={`/clubs/${club.code}`}>Back to the club’s page</a>
          </p>
          <h1 id="poster-name" class={club.name.length > LONG_NAME ? 'long' : undefined}>
            {club.name}
          </h1>
          {club.subtitle && <p class="poster-subtitle">{club.subtitle}</p>}
          {/* The drawing is node-qrcode's SVG: paths only, from a URL this service made. */}
          <div
            class="poster-qr"
            role="img"
            aria-label={`QR code of ${address}`}
            dangerouslySetInnerHTML={{ __html: qrCode(address).svg }}
          />
          <p class="poster-url">
            Scan, or visit <strong>{address}</strong> on {site}
          </p>
          {club.meetings.length > 0 && (
            <section aria-labelledby="poster-meetings">
              <h2 id="poster-meetings">We meet</h2>
              <MeetingList meetings={club.meetings} timeZone={timeZone} />
            </section>
          )}
        </article>
      ),
    }
  }

  return new Elysia({ name: 'site-posters' }).get('/clubs/:code/poster', kit.page(poster), { detail: { hide: true } })
}
