import { Elysia } from 'elysia'
import { ANONYMOUS } from '../domain/caller'
import { NOT_XML } from '../domain/cells'
import type { LoggedChange } from '../domain/change-log'
import { Prepared } from '../edge/prepared'
import { clubPageUrl, originOf } from '../edge/qr-codes'
import { urlOf } from '../edge/request-facts'
import { NOSNIFF } from '../edge/respond'
import type { ChangeEvent } from '../model/change'
import type { ClubDetail } from '../model/club'
import type { SiteKit } from './kit'
import { preparedAnswer } from './page'
import { RenderedPages } from './rendered-pages'

// The web's own formats for search engines, feed readers and browsers (docs/reference.md §24): a sitemap
// of every public club page, robots.txt naming it, an Atom feed of the newest public changes, and
// an OpenSearch description of the directory's search. Each is made once per data version and
// origin (and tags, for the feed), as the list's answers are, and answered with its ETag.

/** Where each is served, as pages link them. */
export const FEED_PATH = '/feeds/clubs.atom'
export const OPENSEARCH_PATH = '/opensearch.xml'
export const SITEMAP_PATH = '/sitemap.xml'

/** How many changes the Atom feed holds. */
export const FEED_ENTRIES = 50
/** An OpenSearch ShortName holds at most 16 characters. */
const SHORT_NAME = 16
/** A feed entry's summary: the club's subtitle, or this much of its description. */
const SUMMARY = 300

const ATOM_TYPE = 'application/atom+xml; charset=utf-8'
const XML_TYPE = 'application/xml; charset=utf-8'
const OPENSEARCH_TYPE = 'application/opensearchdescription+xml; charset=utf-8'
const TEXT_TYPE = 'text/plain; charset=utf-8'
const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
/** The feed's `updated` while nothing has changed yet: Atom requires one. */
const NEVER = '1970-01-01T00:00:00Z'

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }

/** A text as XML 1.0 content or attribute value: markup escaped, the characters XML cannot hold dropped. */
export const xml = (text: string): string => text.replace(NOT_XML, '').replace(/[&<>"']/g, (char) => XML_ESCAPES[char]!)

/** An ISO date-time to the second, in UTC, as W3C Datetime and Atom (RFC 3339) write it. */
const instant = (iso: string) => `${new Date(iso).toISOString().slice(0, 19)}Z`

/**
 * Paths crawlers are asked to leave alone: the API (the same clubs as JSON, endless query
 * combinations, and its rate limit), its docs, pages of signed-in people, forms, and posters
 * (each club's page again, for print).
 */
const DISALLOWED = [
  '/api/',
  '/swagger',
  '/my-clubs',
  '/clubs/new',
  '/review',
  '/admin/',
  '/sign-in',
  '/auth/',
  '/clubs/*/poster',
]

export function robotsText(origin: string): string {
  return [
    'User-agent: *',
    'Allow: /',
    ...DISALLOWED.map((path) => `Disallow: ${path}`),
    '',
    `Sitemap: ${origin}${SITEMAP_PATH}`,
    '',
  ].join('\n')
}

export function openSearchXml(origin: string, site: string): string {
  const shortName = [...site].slice(0, SHORT_NAME).join('')
  return `${XML_DECLARATION}<OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">
  <ShortName>${xml(shortName)}</ShortName>
  <Description>${xml(`Search the student clubs of ${site}`)}</Description>
  <InputEncoding>UTF-8</InputEncoding>
  <Image width="16" height="16" type="image/x-icon">${xml(`${origin}/favicon.ico`)}</Image>
  <Url type="text/html" method="get" template="${xml(`${origin}/?search={searchTerms}`)}"/>
  <Url type="application/opensearchdescription+xml" rel="self" template="${xml(`${origin}${OPENSEARCH_PATH}`)}"/>
</OpenSearchDescription>
`
}

export function sitemapXml(origin: string, clubs: readonly Pick<ClubDetail, 'code' | 'updated_at'>[]): string {
  const newest = clubs.reduce((latest, club) => (club.updated_at > latest ? club.updated_at : latest), '')
  const url = (loc: string, lastmod: string) =>
    `  <url><loc>${xml(loc)}</loc>${lastmod ? `<lastmod>${instant(lastmod)}</lastmod>` : ''}</url>\n`
  return `${XML_DECLARATION}<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${url(`${origin}/`, newest)}${clubs.map((club) => url(clubPageUrl(origin, club.code), club.updated_at)).join('')}</urlset>
`
}

/** One entry of the feed: a change, with the club as the public saw it after. */
interface FeedEntry {
  readonly seq: number
  readonly type: 'club.added' | 'club.changed'
  readonly at: string
  readonly club: ClubDetail
}

const summaryOf = ({ subtitle, description }: ClubDetail) =>
  subtitle ||
  (description.length > SUMMARY
    ? `${[...description]
        .slice(0, SUMMARY - 1)
        .join('')
        .trimEnd()}…`
    : description)

export function atomXml(feed: {
  origin: string
  site: string
  tags: string | null
  entries: readonly FeedEntry[]
  /** When anything public last changed: the feed's `updated` when none of its entries is newer. */
  lastChange: string | null
}): string {
  const { origin, site, tags, entries } = feed
  const query = tags === null ? '' : `?tags=${encodeURIComponent(tags)}`
  const self = `${origin}${FEED_PATH}${query}`
  const updated = entries[0]?.at ?? feed.lastChange
  const entryXml = ({ seq, type, at, club }: FeedEntry) => {
    const page = clubPageUrl(origin, club.code)
    const title = type === 'club.added' ? `New club: ${club.name}` : `Updated: ${club.name}`
    return `  <entry>
    <id>${xml(`${origin}/api/changes/?since=${seq - 1}&limit=1`)}</id>
    <title type="text">${xml(title)}</title>
    <updated>${instant(at)}</updated>
    <link rel="alternate" type="text/html" href="${xml(page)}"/>
${club.tags.map((tag) => `    <category term="${xml(tag.name)}"/>\n`).join('')}    <summary type="text">${xml(summaryOf(club))}</summary>
  </entry>
`
  }
  return `${XML_DECLARATION}<feed xmlns="http://www.w3.org/2005/Atom">
  <id>${xml(self)}</id>
  <title type="text">${xml(`${site}: new and updated clubs${tags === null ? '' : ` (${tags})`}`)}</title>
  <updated>${updated ? instant(updated) : NEVER}</updated>
  <author><name>${xml(site)}</name></author>
  <link rel="self" type="application/atom+xml" href="${xml(self)}"/>
  <link rel="alternate" type="text/html" href="${xml(`${origin}/${tags === null ? '' : `?tags=${encodeURIComponent(tags)}`}`)}"/>
  <generator>Club Directory</generator>
${entries.map(entryXml).join('')}</feed>
`
}

/** An event as the change log writes it: its club is the detail representation an anonymous caller got. */
type LoggedEvent = Omit<ChangeEvent, 'club'> & { readonly club: ClubDetail | null }

/** The start of an event as the change log writes it, up to its club's code (a JSON string). */
const EVENT_CODE = /^\{"seq":\d{1,16},"type":"[a-z.]+","code":("(?:[^"\\]|\\.)*"),/

/**
 * The club an event is about, read from the start of its text: a feed narrowed to a tag passes over
 * thousands of other clubs' events, each a whole detail representation not worth parsing. Any
 * other text is parsed whole.
 */
function codeOf(change: LoggedChange): string {
  const match = EVENT_CODE.exec(change.text)
  return match ? (JSON.parse(match[1]!) as string) : (JSON.parse(change.text) as ChangeEvent).code
}

/** sitemap.xml, robots.txt, the Atom feed and opensearch.xml, for the site at the request's origin. */
export function webFormatRoutes(kit: SiteKit) {
  const { clubs, changes, title: site } = kit.deps
  const made = new RenderedPages(() => clubs.dataVersion)

  /** The public clubs `tags=` keeps (all of them without it), as the list's filter keeps them. */
  const publicClubs = (tags: string | null) =>
    clubs.list(
      ANONYMOUS,
      clubs.parseQuery(new URLSearchParams(tags === null ? { ordering: 'code' } : { ordering: 'code', tags })),
    ).records

  /** The newest FEED_ENTRIES additions and changes of clubs that are public now (and carry `tags`). */
  function feedEntries(tags: string | null): FeedEntry[] {
    const shown = new Set(publicClubs(tags).map((record) => record.code))
    const entries: FeedEntry[] = []
    if (shown.size === 0) return entries
    for (const change of changes.newestFirst()) {
      if (entries.length >= FEED_ENTRIES) break
      if (change.type === 'club.removed' || !shown.has(codeOf(change))) continue
      const event = JSON.parse(change.text) as LoggedEvent
      if (event.club === null) continue
      entries.push({ seq: event.seq, type: change.type, at: event.at, club: event.club })
    }
    return entries
  }

  const lastChange = () => {
    const newest = changes.newestFirst().next()
    return newest.done ? null : (JSON.parse(newest.value.text) as ChangeEvent).at
  }

  /** `make`'s text for this origin, made once per data version under `key`, answered with its ETag. */
  const serve =
    (type: string, make: (origin: string, href: string) => string, keyOf: (href: string) => string = () => '') =>
    ({ request }: { request: Request }) => {
      const href = urlOf(request)
      const origin = originOf(href)
      const body = made.get(`${type} ${origin} ${keyOf(href)}`, () => Prepared.file(make(origin, href), type))
      const headers = {
        'Content-Type': type,
        'Cache-Control': 'no-cache',
        Vary: 'Accept-Encoding',
        ETag: body.etag,
        ...NOSNIFF,
      }
      return preparedAnswer(request, body, 200, headers, true)
    }

  /** `tags=` of a request's URL, or null; a URL is parsed only when it has a query. */
  const tagsOf = (href: string) => (href.includes('?') ? new URL(href).searchParams.get('tags')?.trim() || null : null)
  const hidden = { detail: { hide: true } }

  return new Elysia({ name: 'site-web-formats' })
    .get('/robots.txt', serve(TEXT_TYPE, robotsText), hidden)
    .get(
      OPENSEARCH_PATH,
      serve(OPENSEARCH_TYPE, (origin) => openSearchXml(origin, site)),
      hidden,
    )
    .get(
      SITEMAP_PATH,
      serve(XML_TYPE, (origin) =>
        // The public version of each club: its updated_at is when what the public sees of it last changed.
        sitemapXml(origin, publicClubs(null)),
      ),
      hidden,
    )
    .get(
      FEED_PATH,
      serve(
        ATOM_TYPE,
        (origin, href) => {
          const tags = tagsOf(href)
          return atomXml({ origin, site, tags, entries: feedEntries(tags), lastChange: lastChange() })
        },
        (href) => tagsOf(href) ?? '',
      ),
      hidden,
    )
}
