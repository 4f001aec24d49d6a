// Tables as files (docs/reference.md §15): CSV through csv-stringify (RFC 4180 quoting, CRLF line ends),
// XLSX through exceljs. The cells come defused from the domain (src/domain/cells.ts).
import { stringify } from 'csv-stringify/sync'
import ExcelJS from 'exceljs'
import { xmlCell, type Cell } from '../domain/cells'
import type { SpreadsheetFormat } from './negotiate'

/**
 * RFC 4180: CRLF between records, and a cell holding a quote, a comma or any line break quoted.
 * csv-stringify quotes only the record delimiter it writes, so a lone LF or CR is named here.
 */
const CSV_OPTIONS = { record_delimiter: 'windows', quoted_match: /[\r\n]/ } as const

/** The file's bytes, and for a text its gzip form (an XLSX file is a zip already). */
export interface SpreadsheetFile {
  readonly bytes: Uint8Array
  readonly gzip: Uint8Array | null
}

/** The table (its header row first) as a file of `format`; a worksheet is named `name`. */
export async function spreadsheetFile(
  format: SpreadsheetFormat,
  table: Cell[][],
  name: string,
): Promise<SpreadsheetFile> {
  if (format === 'xlsx') return { bytes: await workbook(table, name), gzip: null }
  const bytes = new TextEncoder().encode(stringify(table, CSV_OPTIONS))
  return { bytes, gzip: Bun.gzipSync(bytes) }
}

/**
 * One worksheet named `name`: the header row in bold and kept in view, numbers as numbers, the rest
 * as text, without the characters XML cannot hold.
 */
async function workbook(table: Cell[][], name: string): Promise<Uint8Array> {
  const book = new ExcelJS.Workbook()
  const sheet = book.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1 }] })
  sheet.addRows(table.map((row) => row.map(xmlCell)))
  sheet.getRow(1).font = { bold: true }
  return new Uint8Array(await book.xlsx.writeBuffer())
}
