import { BadRequest } from '../domain/errors'
import { PayloadTooLarge, UnsupportedMediaType } from './errors'

const MAX_BODY_BYTES = 1024 * 1024

/**
 * The request's JSON body (docs/reference.md §8): `application/json` only (415 otherwise), at most
 * 1 MiB (413, found from Content-Length or while streaming, never by reading it all first),
 * and valid JSON (400). A request with no body at all reads as `{}`.
 */
export async function readJsonBody(request: Request): Promise<unknown> {
  const type = request.headers.get('content-type')
  const text = new TextDecoder('utf-8', { fatal: false }).decode(await readCapped(request, MAX_BODY_BYTES))
  if (type === null && text.trim() === '') return {}
  const mediaType = (type ?? '').split(';')[0]!.trim().toLowerCase()
  if (mediaType !== 'application/json') throw new UnsupportedMediaType(type ?? '')
  if (text.trim() === '') return {}
  try {
    return JSON.parse(text)
  } catch (e) {
    throw new BadRequest(`JSON parse error - ${(e as Error).message}`)
  }
}

/** The body's bytes, at most `limit` of them (413 past it, found from Content-Length or while streaming). */
export async function readCapped(request: Request, limit: number): Promise<Uint8Array> {
  if (Number(request.headers.get('content-length') ?? NaN) > limit) throw new PayloadTooLarge(limit)
  if (!request.body) return new Uint8Array()
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength
      if (size > limit) throw new PayloadTooLarge(limit)
      chunks.push(chunk)
    }
  } catch (e) {
    if (e instanceof PayloadTooLarge) throw e
    // The client went away mid-upload: nobody will read the answer, and it is no fault of ours.
    throw new BadRequest('The request body could not be read: the client closed the connection.')
  }
  return Buffer.concat(chunks)
}
