// QR codes of club pages for the club fair (docs/reference.md §23): drawn by node-qrcode as SVG, and kept by
// the URL they encode, since a code depends on nothing else.
import QRCode from 'qrcode'
import { Prepared } from './prepared'

export const SVG_TYPE = 'image/svg+xml'

/**
 * Error correction Q (a quarter of the code can be lost): a poster is creased, taped over at a
 * corner, scanned from across a stand and at an angle. M (15%) is the least the reference allows;
 * Q costs one or two versions more on a URL of this length, still large modules on a sheet.
 */
const ERROR_CORRECTION = 'Q'
/**
 * How many codes are kept, one per club page URL: a campus reaches the site at a host or two, so
 * this holds hundreds of clubs' codes; bounded, since a client may name any Host it likes.
 */
const KEPT = 512

/** A QR code: its SVG text (for a page to hold) and that text as an answer, with its ETag. */
export interface DrawnCode {
  readonly svg: string
  readonly answer: Prepared
}

const kept = new Map<string, DrawnCode>()

/** The absolute URL of a club's page on the site served at `origin`. */
export const clubPageUrl = (origin: string, code: string) => `${origin}/clubs/${code}`

/**
 * The origin of an absolute URL (`https://clubs.example.edu` of `https://clubs.example.edu/api/…`),
 * by a string scan: a URL parse per request costs more than the rest of a kept answer.
 */
export function originOf(href: string): string {
  const path = href.indexOf('/', href.indexOf('//') + 2)
  return path < 0 ? href : href.slice(0, path)
}

/** The QR code of `url` as an SVG, with its ETag: drawn once, then kept (the oldest let go past KEPT). */
export function qrCode(url: string): DrawnCode {
  const found = kept.get(url)
  if (found) return found
  let svg = ''
  let failed: unknown = null
  // node-qrcode calls back before it returns: the code is drawn synchronously.
  QRCode.toString(url, { type: 'svg', errorCorrectionLevel: ERROR_CORRECTION, margin: 4 }, (error, drawn) => {
    failed = error ?? null
    svg = drawn
  })
  if (failed || !svg) throw failed ?? new Error('node-qrcode drew no SVG')
  const drawn = { svg, answer: Prepared.file(svg, SVG_TYPE) }
  if (kept.size >= KEPT) kept.delete(kept.keys().next().value!)
  kept.set(url, drawn)
  return drawn
}
