import type { LogoUpload } from '../domain/logos'
import { readCapped } from './body'
import { PayloadTooLarge } from './errors'

/** The most bytes a logo upload may have (docs/reference.md §21). */
export const MAX_LOGO_BYTES = 2 * 1024 * 1024

/**
 * A logo upload's bytes, whatever its Content-Type says (the type is read from the bytes). Past
 * 2 MiB (by Content-Length, or while streaming) reading stops, and the upload is a problem to
 * name under `image` rather than a 413: the reference answers every refused logo with a 400.
 */
export async function readLogoBody(request: Request): Promise<LogoUpload> {
  try {
    return { bytes: await readCapped(request, MAX_LOGO_BYTES) }
  } catch (error) {
    if (error instanceof PayloadTooLarge)
      return { problem: `The image is larger than ${MAX_LOGO_BYTES} bytes (2 MiB).` }
    throw error
  }
}
