import { t } from 'elysia'
import { NotFound } from '../../domain/errors'
import { endpoint } from '../endpoint'
import { clubPageUrl, originOf, qrCode, SVG_TYPE } from '../qr-codes'

// A club's QR code for posters at the club fair (docs/reference.md §23). The code encodes the absolute URL
// of the club's page as the client reached the service (behind a trusted proxy, its public
// scheme and host), so it is kept by that URL: whoever asks for it, in any data version.

/**
 * Checked again on each use (a club hidden meanwhile is a 404 at once), answered 304 by its ETag;
 * the SVG draws only paths, and may load or run nothing.
 */
const HEADERS = { 'Cache-Control': 'no-cache', 'Content-Security-Policy': "default-src 'none'" }

export const clubQrCode = endpoint({
  path: '/api/clubs/:code/qr.svg',
  name: 'Club QR Code',
  description: "A QR code of the club's page on the campus site, for posters and flyers.",
  tag: 'clubs',
  actions: {
    GET: {
      summary: "A QR code of a club's page",
      description:
        "An SVG QR code (error correction Q: a quarter of it may be lost to a crease or a smudge) encoding the absolute URL of the club's page on the campus site, /clubs/{code}, on this service's public address (behind a trusted reverse proxy, the scheme and host it forwards). Anyone who may see the club; a club they may not see is a 404. The ETag names the drawing, which depends on the URL alone: If-None-Match answers 304.",
      access: 'anyone',
      fileOnly: true,
      responses: {
        200: {
          description: 'The QR code.',
          content: {
            [SVG_TYPE]: {
              schema: t.String({
                examples: [
                  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 45 45" shape-rendering="crispEdges">...</svg>\n',
                ],
              }),
            },
          },
        },
      },
      errors: [401, 404],
      handle({ ex, caller, services, params }) {
        const record = services.clubs.shownTo(caller, params.code)
        if (!record) throw new NotFound()
        return { status: 200, body: qrCode(clubPageUrl(originOf(ex.href), record.code)).answer, headers: HEADERS }
      },
    },
  },
})
