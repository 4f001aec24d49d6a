// docs/reference.md §15 under load: the CSV export of the whole list, timed on its first answer, then served
// from the cache, against the JSON list of the same bytes (a `?fields=` selection as long as the
// CSV) in the same server and against a Bun.serve of the CSV's bytes; and an import of 1,000 rows,
// timed, counting the snapshot writes it made.
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { stringify } from 'csv-stringify/sync'
import { measure, settler, type Recorder } from './measure'
import { ADMIN_TOKEN, startCeiling, startOurs } from './servers'

export const IMPORT_ROWS = 1000
/** Of the imported rows, those that change existing clubs; the rest create new ones. */
const UPDATED_ROWS = 800

export interface SpreadsheetResult {
  /** From sending the first `?format=csv` request to its last byte. */
  readonly csvFirstMs: number
  readonly csvBytes: number
  /** The JSON list the cached CSV is compared with: its `?fields=` and its length. */
  readonly sameBytes: { readonly fields: string; readonly bytes: number }
  readonly importRows: number
  readonly importMs: number
  readonly importCounts: { created: number; updated: number; unchanged: number; tags_created: string[] }
  /** Snapshot writes the import made, from the data file and its `.bak` (see `writesSince`); 2 means two or more. */
  readonly importWrites: number
}

/**
 * Each snapshot write renames a new file over the data file and first keeps the one it replaces as
 * `<file>.bak`: after exactly one write the `.bak` is the file as it stood before, after more it
 * is a later one.
 */
async function writesSince(file: string, inodeBefore: number): Promise<number> {
  if ((await stat(file)).ino === inodeBefore) return 0
  return (await stat(`${file}.bak`)).ino === inodeBefore ? 1 : 2
}

/** An import of `IMPORT_ROWS` rows made from the export itself: changed subtitles, then new clubs. */
function importOf(csv: string): string {
  const [header, ...rows] = parse(csv) as string[][]
  const at = (name: string) => header!.indexOf(name)
  const changed = rows
    .slice(0, UPDATED_ROWS)
    .map((row) => row.with(at('subtitle'), `${row[at('subtitle')]} (imported)`))
  const created = Array.from({ length: IMPORT_ROWS - UPDATED_ROWS }, (_, i) =>
    rows[i]!.with(at('code'), `bench-import-${i}`).with(at('name'), `Bench Import ${i}`),
  )
  return stringify([header!, ...changed, ...created], { record_delimiter: 'windows' })
}

/**
 * The list fields whose JSON list is about `bytes` long: each field's share of the whole list,
 * from one answer, and the largest that still fit, then the rest that do.
 */
function fieldsOfLength(list: Record<string, unknown>[], bytes: number): string {
  const share = new Map<string, number>()
  for (const item of list)
    for (const [field, value] of Object.entries(item))
      share.set(field, (share.get(field) ?? 0) + field.length + 4 + JSON.stringify(value).length)
  let left = bytes - 3 * list.length
  const chosen: string[] = []
  for (const [field, size] of [...share].sort((a, b) => b[1] - a[1]))
    if (size <= left) {
      chosen.push(field)
      left -= size
    }
  return chosen.join(',')
}

async function bytesOf(url: string): Promise<Uint8Array> {
  return new Uint8Array(await (await fetch(url, { headers: { 'Accept-Encoding': 'identity' } })).arrayBuffer())
}

export async function benchSpreadsheets(
  size: number,
  dataSet: string,
  tmp: string,
  rec: Recorder,
): Promise<SpreadsheetResult> {
  const dataFile = join(tmp, `sheets-${size}-ours.json`)
  const server = await startOurs(dataSet, dataFile)
  const csvUrl = `${server.base}/api/clubs/?format=csv`
  const started = performance.now()
  const first = await fetch(csvUrl, { headers: { 'Accept-Encoding': 'identity' } })
  const body = new Uint8Array(await first.arrayBuffer())
  const csvFirstMs = performance.now() - started
  const csv = new TextDecoder().decode(body)
  if (first.status !== 200 || !first.headers.get('content-type')?.startsWith('text/csv'))
    throw new Error(`spreadsheets bench: ?format=csv answered ${first.status} ${first.headers.get('content-type')}`)
  if (parse(csv).length !== size + 1) throw new Error(`spreadsheets bench: the CSV does not hold ${size} clubs`)
  rec.say(`  CSV export, first answer: ${csvFirstMs.toFixed(0)} ms (${(body.length / 1e6).toFixed(1)} MB)`)

  const list = JSON.parse(new TextDecoder().decode(await bytesOf(`${server.base}/api/clubs/`)))
  const fields = fieldsOfLength(list, body.length)
  const jsonUrl = `${server.base}/api/clubs/?fields=${fields}`
  const sameBytes = { fields, bytes: (await bytesOf(jsonUrl)).length }
  rec.say(`  JSON list of about the same bytes: ?fields=${fields} (${(sameBytes.bytes / 1e6).toFixed(2)} MB)`)

  const pid = server.child.pid
  const settle = settler(`${server.base}/api/clubs/?code=none`)
  rec.record('ours', 'csv-export', 'CSV export (cached)', await measure(pid, () => ({ url: csvUrl }), settle))
  rec.record('ours', 'csv-json', 'JSON list of the same bytes', await measure(pid, () => ({ url: jsonUrl }), settle))

  const inodeBefore = (await stat(dataFile)).ino
  const importStarted = performance.now()
  const imported = await fetch(`${server.base}/api/imports/`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'text/csv' },
    body: importOf(csv),
  })
  const importCounts = (await imported.json()) as SpreadsheetResult['importCounts']
  const importMs = performance.now() - importStarted
  const importWrites = await writesSince(dataFile, inodeBefore)
  const expected = { created: IMPORT_ROWS - UPDATED_ROWS, updated: UPDATED_ROWS, unchanged: 0, tags_created: [] }
  if (imported.status !== 201 || JSON.stringify(importCounts) !== JSON.stringify(expected))
    throw new Error(`spreadsheets bench: the import answered ${imported.status} ${JSON.stringify(importCounts)}`)
  rec.say(`  import of ${IMPORT_ROWS} rows: ${importMs.toFixed(0)} ms, ${importWrites} snapshot write(s)`)
  await server.stop()

  const csvFile = join(tmp, `csv-${size}.csv`)
  await Bun.write(csvFile, body)
  const ceiling = await startCeiling(csvFile)
  const ceilingUrl = `${ceiling.base}/`
  rec.record(
    'ceiling',
    'csv-export',
    'CSV export (same bytes)',
    await measure(ceiling.child.pid, () => ({ url: ceilingUrl }), settler(ceilingUrl)),
  )
  await ceiling.stop()
  return {
    csvFirstMs,
    csvBytes: body.length,
    sameBytes,
    importRows: IMPORT_ROWS,
    importMs,
    importCounts,
    importWrites,
  }
}
