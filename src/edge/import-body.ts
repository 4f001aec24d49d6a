import { parse } from 'csv-parse'
import { BadRequest } from '../domain/errors'
import { nextTurn, type ImportSource } from '../domain/imports'
import { readCapped } from './body'
import { UnsupportedMediaType } from './errors'

const MAX_IMPORT_BYTES = 10 * 1024 * 1024
const IMPORT_MEDIA_TYPES = ['text/csv', 'application/json'] as const
/** How much CSV the parser reads between two turns of the event loop (about 10,000 short rows). */
const CSV_SLICE_BYTES = 256 * 1024

/**
 * The body of an import (docs/reference.md §15): CSV (`text/csv`) or JSON (`application/json`), UTF-8 (415
 * for any other type or charset), at most 10 MiB (413), valid UTF-8 (400), and parsed: CSV by
 * csv-parse (RFC 4180; a byte order mark is skipped), JSON as such (400 when it does not parse).
 * Rows of unequal length are the domain's to name, by row.
 */
export async function readImportBody(request: Request): Promise<ImportSource> {
  const type = request.headers.get('content-type') ?? ''
  const [media = '', ...params] = type.split(';').map((part) => part.trim().toLowerCase())
  const charset = params.find((param) => param.startsWith('charset='))?.slice('charset='.length)
  const utf8 = charset === undefined || ['utf-8', 'utf8', '"utf-8"'].includes(charset)
  if (!(IMPORT_MEDIA_TYPES as readonly string[]).includes(media) || !utf8) throw new UnsupportedMediaType(type)
  const bytes = await readCapped(request, MAX_IMPORT_BYTES)
  const text = decodeUtf8(bytes)
  if (text.trim() === '') return { kind: 'empty' }
  if (media === 'application/json') {
    try {
      return { kind: 'json', value: JSON.parse(text) }
    } catch (e) {
      throw new BadRequest(`JSON parse error - ${(e as Error).message}`)
    }
  }
  const [header = [], ...rows] = await parseCsv(bytes)
  return { kind: 'table', columns: header.map((column) => column.trim()), rows }
}

/** The records of a CSV file, parsed a slice at a time with a turn of the event loop between: a 10 MiB file holds no one. */
async function parseCsv(bytes: Uint8Array): Promise<string[][]> {
  const parser = parse({ bom: true, relax_column_count: true })
  const fed = (async () => {
    for (let at = 0; at < bytes.length && !parser.destroyed; at += CSV_SLICE_BYTES) {
      parser.write(bytes.subarray(at, at + CSV_SLICE_BYTES))
      await nextTurn()
    }
    if (!parser.destroyed) parser.end()
  })()
  const records: string[][] = []
  try {
    for await (const record of parser) records.push(record)
  } catch (e) {
    throw new BadRequest(`CSV parse error - ${(e as Error).message}`)
  } finally {
    await fed
  }
  return records
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new BadRequest('The body is not valid UTF-8 text.')
  }
}
