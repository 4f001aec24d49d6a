// The thread that builds spreadsheets (src/edge/spreadsheets.ts), so that a big export never
// holds the thread that answers requests.
import type { Cell } from '../domain/cells'
import { spreadsheetFile } from './spreadsheet-files'
import type { BuildRequest, BuildResult } from './spreadsheets'

declare const self: Worker

/** The rows each file under way has received so far. */
const tables = new Map<number, Cell[][]>()

self.onmessage = async ({ data }: MessageEvent<BuildRequest>) => {
  const { id } = data
  const table = tables.get(id) ?? []
  if ('rows' in data) {
    for (const row of data.rows) table.push(row)
    tables.set(id, table)
    return
  }
  tables.delete(id)
  let result: BuildResult
  try {
    result = { id, file: await spreadsheetFile(data.format, table, data.name) }
  } catch (error) {
    result = { id, error: String(error) }
  }
  const buffers =
    'file' in result ? [result.file.bytes.buffer, ...(result.file.gzip ? [result.file.gzip.buffer] : [])] : []
  self.postMessage(result, buffers as ArrayBuffer[])
}
