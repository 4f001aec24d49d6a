import { createHash } from 'node:crypto'
import type Sharp from 'sharp'
import type { SharpOptions } from 'sharp'

/** The most pixels a logo may have on a side (docs/reference.md §21); the edge caps its bytes. */
export const MAX_LOGO_SIDE = 4096
export const THUMBNAIL_SIDES = [64, 256] as const

/** A logo made from an upload: its name (the SHA-256 of the WebP, in hex) and its WebP files by size. */
export interface MadeLogo {
  readonly name: string
  readonly files: { readonly full: Uint8Array; readonly '64': Uint8Array; readonly '256': Uint8Array }
}

// libvips is loaded at the first logo, not at start: it takes the start-up 40 ms most never need.
let library: Promise<typeof Sharp> | null = null
const loadSharp = () => (library ??= import('sharp').then((module) => module.default as typeof Sharp))

/** The formats taken, by the signature their files start with; the Content-Type sent is never asked. */
const SIGNATURES = [
  { format: 'png', matches: (b: Uint8Array) => startsWith(b, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { format: 'jpeg', matches: (b: Uint8Array) => startsWith(b, 0, [0xff, 0xd8, 0xff]) },
  {
    format: 'webp',
    matches: (b: Uint8Array) =>
      startsWith(b, 0, [0x52, 0x49, 0x46, 0x46]) && startsWith(b, 8, [0x57, 0x45, 0x42, 0x50]),
  },
] as const

/**
 * How libvips reads an upload: a truncated or corrupt file is an error, not a grey half-image;
 * no image of more pixels than a 4,096 px square is decoded (the header is checked first, this is
 * the second guard); one page (an animated WebP's first frame).
 */
const READ: SharpOptions = { failOn: 'truncated', limitInputPixels: MAX_LOGO_SIDE * MAX_LOGO_SIDE, pages: 1 }

const NOT_AN_IMAGE = 'Upload a PNG, JPEG or WebP image; this file is none of them.'
const UNREADABLE = 'The image cannot be read: the file is truncated or corrupt.'

/**
 * Checks an upload and makes its logo: the type from the file's signature, the size from its
 * header before any pixel is decoded (a decompression bomb declares a huge one in a small file),
 * then the pixels, turned upright, as WebP and as 64 and 256 px squares (cropped to cover).
 * The answer is the logo, or in words why the upload is refused.
 */
export async function makeLogo(bytes: Uint8Array): Promise<MadeLogo | { readonly problem: string }> {
  const format = SIGNATURES.find(({ matches }) => matches(bytes))?.format
  if (!format) return { problem: NOT_AN_IMAGE }
  // Outside the checks below: a library that cannot be loaded is the service's fault, not the upload's.
  const sharp = await loadSharp()
  let width: number | undefined
  let height: number | undefined
  try {
    const metadata = await sharp(bytes, READ).metadata()
    if (metadata.format !== format) return { problem: NOT_AN_IMAGE }
    ;({ width, height } = metadata)
  } catch {
    return { problem: UNREADABLE }
  }
  if (!width || !height) return { problem: UNREADABLE }
  if (width > MAX_LOGO_SIDE || height > MAX_LOGO_SIDE)
    return { problem: `The image is ${width}×${height} pixels; at most ${MAX_LOGO_SIDE} pixels a side.` }
  try {
    // One size after another: a logo holds one of libuv's threads at a time (the pool in
    // domain/logos.ts counts on it), and libvips spreads each size over the cores itself.
    const upright = sharp(bytes, READ).rotate()
    const square = (side: (typeof THUMBNAIL_SIDES)[number]) =>
      upright.clone().resize(side, side, { fit: 'cover' }).webp().toBuffer()
    const full = await upright.clone().webp().toBuffer()
    const files = { full, '64': await square(64), '256': await square(256) }
    return { name: createHash('sha256').update(full).digest('hex'), files }
  } catch {
    return { problem: UNREADABLE }
  }
}

function startsWith(bytes: Uint8Array, at: number, signature: readonly number[]): boolean {
  return bytes.byteLength >= at + signature.length && signature.every((byte, i) => bytes[at + i] === byte)
}
