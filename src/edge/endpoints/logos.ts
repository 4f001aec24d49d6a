import { t } from 'elysia'
import { NotFound, ValidationFailed } from '../../domain/errors'
import type { LogoSize, LogoUpload, PreparedLogo } from '../../domain/logos'
import { schemaRef } from '../docs/components'
import { choice, json, query } from '../docs/openapi'
import { endpoint, type Services } from '../endpoint'
import { readLogoBody } from '../logo-body'
import { Prepared } from '../prepared'
import { VersionKeyedCache } from '../version-keyed-cache'

/** A new logo is a new URL: a logo's bytes never change, so anyone may keep them for good. */
const IMMUTABLE = { 'Cache-Control': 'public, max-age=31536000, immutable' }
const LOGO_FILE = /^([0-9a-f]{64})\.webp$/
const IMAGE = t.String({ format: 'binary', description: 'The image file: PNG, JPEG or WebP.' })
const WEBP = t.String({ format: 'binary', description: 'A WebP image.' })

/** How many logo files (each size its own) are kept in memory, ready to send. */
const SERVED_LOGOS = 512

/**
 * Logo files ready to send, with their ETag, by URL (the request's own string: no key is made per
 * request): a file at a name never changes, so it is read and hashed once, not per request. Emptied
 * when the data changes, so a logo swept from storage (which only follows a change) is not served
 * on from here. Each directory's own (a test process holds several).
 */
const servedBy = new WeakMap<object, VersionKeyedCache<Prepared>>()
const servedFor = (logos: object) =>
  servedBy.get(logos) ?? servedBy.set(logos, new VersionKeyedCache(SERVED_LOGOS)).get(logos)!

function logosOf(services: Services) {
  // A directory opened without a logo store keeps none.
  if (!services.logos) throw new NotFound()
  return services.logos
}

/** `?size=`: absent (the logo as sent), 64 or 256. */
function sizeOf(size: string | null): LogoSize {
  if (size === null) return 'full'
  if (size === '64' || size === '256') return size
  throw new ValidationFailed({ size: ['Use 64 or 256.'] })
}

export const clubLogo = endpoint({
  path: '/api/clubs/:code/logo/',
  name: 'Club Logo',
  description:
    "A club's logo: PUT an image to set it (the club's image_url becomes its URL here), DELETE to take it away. Owners, officers and admins.",
  tag: 'clubs',
  actions: {
    PUT: {
      summary: "Set a club's logo",
      description:
        "The body is the image itself: PNG, JPEG or WebP, at most 2 MiB and 4,096 px a side. Its type is read from its bytes, whatever Content-Type says. It is kept as WebP, with 64 and 256 px squares, and the club's image_url becomes its absolute URL on this service. image_url is a reviewed field: a new logo on an approved club by an owner or officer awaits review, and the public keeps the approved logo meanwhile. Anything else (not such an image, too big, a decompression bomb, a truncated file) is a 400 {\"image\": [...]} and changes nothing. Images are made two at a time, one of each caller's, in turn between callers: past 8 of the caller's waiting, a 429; past 64 waiting in all, a 503; both with Retry-After.",
      access: 'user',
      body: {
        // The media types carry the document's schema; this one only says a body is required.
        schema: t.String({ description: 'The image file: PNG, JPEG or WebP.' }),
        example: '(the bytes of a PNG, JPEG or WebP file)',
        read: readLogoBody,
        mediaOnly: true,
        media: { 'application/octet-stream': { schema: IMAGE }, 'image/*': { schema: IMAGE } },
      },
      responses: {
        200: json(schemaRef('ClubDetail'), 'The club, its image_url the URL of the new logo.'),
        400: json(
          t.Union([schemaRef('ValidationErrors'), schemaRef('Error')]),
          'Nothing changed: the image is refused (under image), or the body could not be read.',
          { image: ['Upload a PNG, JPEG or WebP image; this file is none of them.'] },
        ),
      },
      errors: [400, 401, 403, 404, 405, 429, 503],
      // The image is made before the write's turn: no other write waits for it.
      prepare: ({ caller, services, params, body }) =>
        logosOf(services).prepare(caller, params.code, body as LogoUpload),
      async handle({ ex, caller, services, params, body }) {
        const club = await logosOf(services).put(caller, params.code, body as PreparedLogo, ex.url.origin)
        return { status: 200, body: services.clubs.detail(caller, club) }
      },
    },
    DELETE: {
      summary: "Take a club's logo away",
      description:
        'Sets image_url to null, as a PATCH by the same caller would (an approved club changed by an owner or officer awaits review). Owners, officers and admins.',
      access: 'user',
      responses: { 204: { description: 'The logo is taken away.' } },
      errors: [401, 403, 404, 405, 503],
      async handle({ caller, services, params }) {
        await logosOf(services).remove(caller, params.code)
        return { status: 204 }
      },
    },
  },
})

export const logoFile = endpoint({
  path: '/api/logos/:file',
  name: 'Logo',
  description: 'A club logo, as its image_url names it: WebP, or a 64 or 256 px square with ?size=.',
  tag: 'clubs',
  actions: {
    GET: {
      summary: 'A club logo',
      description:
        'WebP. The bytes at a URL never change (a new logo is a new URL): Cache-Control says to keep them for a year, and an ETag answers If-None-Match with 304. A name no logo has is a 404.',
      access: 'anyone',
      fileOnly: true,
      query: [query('size', 'A square thumbnail, cropped to cover: 64 or 256 px a side.', choice(['64', '256']))],
      responses: {
        200: { description: 'The logo.', content: { 'image/webp': { schema: WEBP } } },
      },
      errors: [400, 404],
      handle({ ex, services, params }) {
        const size = sizeOf(ex.param('size'))
        const logos = logosOf(services)
        const served = servedFor(logos)
        const version = services.clubs.dataVersion
        // Kept: answered at once, no promise in the way (a logo is a small answer, asked for often).
        // Only a name that was read from storage is kept, so a kept one needs no checking.
        const kept = served.get(version, ex.href)
        if (kept) return { status: 200, body: kept, headers: IMMUTABLE }
        const name = LOGO_FILE.exec(params.file)?.[1]
        if (!name) throw new NotFound()
        return logos.read(name, size).then((bytes) => {
          if (!bytes) throw new NotFound()
          const file = Prepared.built(bytes, 'image/webp', null)
          served.set(version, ex.href, file)
          return { status: 200 as const, body: file, headers: IMMUTABLE }
        })
      },
    },
  },
})
