// Tables as files (CONTRACT §15): CSV through csv-stringify (RFC 4180 quoting, CRLF line ends),
// XLSX through exceljs. The cells come defused from the domain (src/domain/cells.ts).
import { stringify } from 'csv-stringify/sync'
import ExcelJS from 'exceljs'
import type { Cell } from '../domain/cells'
import type { SpreadsheetFormat } from './negotiate'
import { Prepared } from './prepared'

export const SPREADSHEET_TYPES: Readonly<Record<SpreadsheetFormat, string>> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
}

/**
 * RFC 4180: CRLF between records, and a cell holding a quote, a comma or any line break quoted.
 * csv-stringify quotes only the record delimiter it writes, so a lone LF or CR is named here.
 */
const CSV_OPTIONS = { record_delimiter: 'windows', quoted_match: /[\r\n]/ } as const

/** The table (its header row first) as a file of `format`, and the headers that offer it as `<name>.<format>`. */
export async function spreadsheet(format: SpreadsheetFormat, table: Cell[][], name: string) {
  const content = format === 'csv' ? stringify(table, CSV_OPTIONS) : await workbook(table, name)
  return {
    body: Prepared.file(content, SPREADSHEET_TYPES[format]),
    headers: { 'Content-Disposition': `attachment; filename="${name}.${format}"` },
  }
}

/** One worksheet named `name`: the header row in bold and kept in view, numbers as numbers, the rest as text. */
async function workbook(table: Cell[][], name: string): Promise<Uint8Array> {
  const book = new ExcelJS.Workbook()
  const sheet = book.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1 }] })
  sheet.addRows(table)
  sheet.getRow(1).font = { bold: true }
  return new Uint8Array(await book.xlsx.writeBuffer())
}
