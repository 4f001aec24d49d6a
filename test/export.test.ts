// docs/reference.md §15, export: ?format=csv and ?format=xlsx on the club list, read back with real
// readers (csv-parse, exceljs) and compared cell by cell with the JSON answer of the same query.
import { beforeAll, describe, expect, it } from 'bun:test'
import { parse } from 'csv-parse/sync'
import ExcelJS from 'exceljs'
import { ADMIN_TOKEN, makeApp, readJson, SEED_FILE } from '../harness/app'
import { LIST_FIELDS } from '../harness/contract'
import { LogoMemory } from '../src/store/logo-store'

type App = Awaited<ReturnType<typeof makeApp>>
type Item = Record<string, unknown>

const CSV_TYPE = 'text/csv; charset=utf-8'
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'

/** Clubs whose texts a spreadsheet could misread: formulas, quotes, commas, line breaks, accents. */
const TRICKY = [
  {
    code: 'formula-club',
    name: '=HYPERLINK("http://evil.example","click")',
    subtitle: '+1 555 0100',
    description: '@SUM(A1:A9)',
    address: '-Basement',
    how_to_get_involved: '\tTabbed',
    listserv: '\rreturn',
    tags: [{ name: 'Games' }, { name: 'Social' }],
  },
  {
    code: 'quoting-club',
    name: 'Quotes "and", commas',
    subtitle: 'line one\nline two\r\nline three',
    description: "'Til dawn, Société, 日本語",
    address: 'Room 1\nBuilding 2',
    website: 'https://quoting.example.edu/a?b=1,2',
  },
]

/** The cell docs/reference.md §15 asks for, computed here from a JSON value. */
function expectedCell(value: unknown): string {
  if (value === null) return ''
  if (typeof value === 'boolean' || typeof value === 'number') return String(value)
  if (Array.isArray(value)) return expectedCell(value.map((tag: { name: string }) => tag.name).join('; '))
  const text = String(value)
  return /^'*[=+\-@\t\r]/.test(text) ? `'${text}` : text
}

const csvRows = (text: string): string[][] => parse(text)

async function xlsxRows(bytes: ArrayBuffer): Promise<string[][]> {
  const book = new ExcelJS.Workbook()
  await book.xlsx.load(bytes as never)
  const sheet = book.worksheets[0]!
  const rows: string[][] = []
  sheet.eachRow({ includeEmpty: true }, (row) => {
    const cells: string[] = []
    for (let c = 1; c <= sheet.columnCount; c++) {
      const value = row.getCell(c).value
      cells.push(value === null || value === undefined ? '' : String(value))
    }
    rows.push(cells)
  })
  return rows
}

let app: App
const get = (path: string, token: string | null = null, headers: Record<string, string> = {}) =>
  app.req(path, { token, headers })

beforeAll(async () => {
  app = await makeApp()
  for (const club of TRICKY) {
    expect((await app.admin.post('/api/clubs/', club)).status).toBe(201)
    expect((await app.admin.patch(`/api/clubs/${club.code}/`, { approved: true })).status).toBe(200)
  }
  expect((await app.admin.post('/api/clubs/', { code: 'pending-export', name: 'Pending Export' })).status).toBe(201)
})

describe('CSV export', () => {
  it.each([
    ['anyone', null],
    ['the admin', ADMIN_TOKEN],
  ])('is the JSON list as %s sees it, cell by cell, with the 23 list fields as header', async (_who, token) => {
    const res = await get('/api/clubs/?format=csv', token)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe(CSV_TYPE)
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="clubs.csv"')
    const text = await res.text()
    expect(text.endsWith('\r\n')).toBe(true)
    const [header, ...rows] = csvRows(text)
    expect(header).toEqual(LIST_FIELDS)
    const json: Item[] = await readJson(await get('/api/clubs/', token))
    expect(rows.length).toBe(json.length)
    rows.forEach((row, i) => expect(row).toEqual(LIST_FIELDS.map((field) => expectedCell(json[i]![field]))))
    expect(res.headers.get('x-total-count')).toBe(String(json.length))
    const codes = rows.map((row) => row[header!.indexOf('code')])
    expect(codes.includes('pending-export')).toBe(token !== null)
  })

  it('defuses every formula-like text and keeps quotes, commas and line breaks exact', async () => {
    const fields = 'code,name,subtitle,description,address,how_to_get_involved,listserv,tags,website'
    const [header, ...rows] = csvRows(
      await (await get(`/api/clubs/?format=csv&fields=${fields}&code=formula-club,quoting-club`)).text(),
    )
    const byCode = Object.fromEntries(
      rows.map((row) => [row[0], Object.fromEntries(header!.map((h, i) => [h, row[i]]))]),
    )
    expect(byCode['formula-club']).toEqual({
      code: 'formula-club',
      name: '\'=HYPERLINK("http://evil.example","click")',
      subtitle: "'+1 555 0100",
      description: "'@SUM(A1:A9)",
      address: "'-Basement",
      how_to_get_involved: "'\tTabbed",
      listserv: "'\rreturn",
      tags: 'Games; Social',
      website: '',
    })
    expect(byCode['quoting-club']).toMatchObject({
      name: 'Quotes "and", commas',
      subtitle: 'line one\nline two\r\nline three',
      description: "'Til dawn, Société, 日本語",
      website: 'https://quoting.example.edu/a?b=1,2',
    })
  })

  it('quotes every cell that holds a line break, a lone LF or CR too (RFC 4180)', async () => {
    const text = await (await get('/api/clubs/?format=csv&fields=code,address,listserv&ordering=code')).text()
    expect(text).toContain('formula-club,\'-Basement,"\'\rreturn"\r\n')
    expect(text).toContain('quoting-club,"Room 1\nBuilding 2",\r\n')
    // Outside quotes, every line break ends a record: one record per club, and the header.
    const records = text
      .replace(/"(?:[^"]|"")*"/g, '')
      .split(/\r\n|\n|\r/)
      .filter(Boolean)
    const total = Number((await get('/api/clubs/')).headers.get('x-total-count'))
    expect(records.length).toBe(total + 1)
  })

  it('names the columns of ?fields= in the order given, detail fields included', async () => {
    const fields = ['updated_at', 'name', 'description', 'code', 'approved_by', 'website', 'is_member']
    const [header, ...rows] = csvRows(
      await (await get(`/api/clubs/?format=csv&fields=${fields.join(',')}&ordering=code`, ADMIN_TOKEN)).text(),
    )
    expect(header).toEqual(fields)
    const first = rows[0]!
    const detail: Item = await readJson(await get(`/api/clubs/${first[3]}/`, ADMIN_TOKEN))
    expect(first).toEqual(fields.map((field) => expectedCell(detail[field])))
  })

  it('answers the same clubs as the JSON for filters, search, ordering and a page', async () => {
    for (const query of [
      'search=society&ordering=-name',
      'tags=Games&accepting_members=true',
      'size=1,2&ordering=founded',
      'page=2&page_size=7&ordering=code',
      'search=zzz-nothing',
    ]) {
      const json = await readJson(await get(`/api/clubs/?${query}`))
      const items: Item[] = json.results ?? json
      const [header, ...rows] = csvRows(await (await get(`/api/clubs/?${query}&format=csv`)).text())
      expect(header).toEqual(LIST_FIELDS)
      expect(rows.map((row) => row[LIST_FIELDS.indexOf('code')])).toEqual(items.map((item) => item.code as string))
    }
  })

  it('links the other pages of a paged export, in CSV', async () => {
    const res = await get('/api/clubs/?format=csv&page=2&page_size=10')
    expect(res.headers.get('link')).toContain(
      '<http://localhost/api/clubs/?format=csv&page=3&page_size=10>; rel="next"',
    )
    expect(csvRows(await res.text()).length).toBe(11)
  })

  it('is served from the cache with its ETag (304), and made again once the data changes', async () => {
    const first = await get('/api/clubs/?format=csv')
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^W\/"/)
    const again = await get('/api/clubs/?format=csv')
    expect(again.headers.get('etag')).toBe(etag)
    expect(await again.text()).toBe(await first.text())
    const notModified = await get('/api/clubs/?format=csv', null, { 'If-None-Match': etag })
    expect(notModified.status).toBe(304)
    expect(await notModified.text()).toBe('')
    expect((await app.admin.patch('/api/clubs/quoting-club/', { subtitle: 'Changed' })).status).toBe(200)
    const changed = await get('/api/clubs/?format=csv', null, { 'If-None-Match': etag })
    expect(changed.status).toBe(200)
    expect(changed.headers.get('etag')).not.toBe(etag)
    expect(await changed.text()).toContain('Changed')
  })

  it('is gzip-compressed for a client that takes it; the XLSX, already a zip, is not', async () => {
    const csv = await get('/api/clubs/?format=csv', null, { 'Accept-Encoding': 'gzip' })
    expect(csv.headers.get('content-encoding')).toBe('gzip')
    expect(csv.headers.get('vary')).toBe('Accept, Accept-Encoding')
    const xlsx = await get('/api/clubs/?format=xlsx', null, { 'Accept-Encoding': 'gzip' })
    expect(xlsx.headers.get('content-encoding')).toBeNull()
  })

  it('answers HEAD with the headers and no body', async () => {
    const res = await app.req('/api/clubs/?format=csv', { method: 'HEAD' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe(CSV_TYPE)
    expect(await res.text()).toBe('')
  })
})

describe('XLSX export', () => {
  it('is the same table as the CSV, cell by cell, read back with exceljs', async () => {
    for (const query of ['', '&fields=code,name,subtitle,description,tags,founded,size&ordering=name']) {
      const res = await get(`/api/clubs/?format=xlsx${query}`, ADMIN_TOKEN)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe(XLSX_TYPE)
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="clubs.xlsx"')
      const sheet = await xlsxRows(await res.arrayBuffer())
      const csv = csvRows(await (await get(`/api/clubs/?format=csv${query}`, ADMIN_TOKEN)).text())
      expect(sheet.length).toBe(csv.length)
      sheet.forEach((row, i) => expect(row).toEqual(csv[i]!))
    }
  })

  it('keeps numbers as numbers and defused texts as text', async () => {
    const res = await get('/api/clubs/?format=xlsx&fields=code,size,favorite_count,name&code=formula-club')
    const book = new ExcelJS.Workbook()
    await book.xlsx.load((await res.arrayBuffer()) as never)
    const row = book.worksheets[0]!.getRow(2)
    expect(row.getCell(2).value).toBe(1)
    expect(row.getCell(3).value).toBe(0)
    expect(row.getCell(4).value).toBe('\'=HYPERLINK("http://evil.example","click")')
    expect(row.getCell(4).formula).toBeUndefined()
  })
})

describe('text XML cannot hold (docs/reference.md §3.2: text is stored as given)', () => {
  // C0 controls but tab, LF and CR; U+FFFE and U+FFFF; lone surrogates (kept lone by the `|`).
  const NOT_XML = '\u0000\u0001\u0008\u000B\u000C\u000E\u001F\uFFFE\uFFFF\uD800|\uDC00'
  const TEXTS = {
    name: `Xml${NOT_XML} Club`,
    subtitle: '\u0001\uFFFF=1+2', // a formula once the rest is dropped: defused in the workbook too
    description: `Description${NOT_XML}`,
    address: `Address${NOT_XML}`,
    how_to_get_involved: `Involved${NOT_XML}`,
    listserv: `Listserv${NOT_XML}`,
  }
  const COLUMNS = ['code', ...Object.keys(TEXTS), 'approved_comment', 'meetings', 'tags']
  /** The text as XML can hold it, said here without the service's pattern: \p{Cs} is a lone surrogate. */
  const xmlText = (text: string) => text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|\p{Cs}/gu, '')
  /** A value of the JSON answer as the text of its cell, before defusing: meetings as JSON, tags by name. */
  const textOf = (column: string, value: unknown): string =>
    column === 'meetings'
      ? JSON.stringify(value)
      : column === 'tags'
        ? (value as { name: string }[]).map((tag) => tag.name).join('; ')
        : String(value)

  it('drops it from the XLSX, which exceljs reads back; CSV and JSON keep it', async () => {
    const app = await makeApp()
    const tag = await readJson(await app.admin.post('/api/tags/', { name: `Tag${NOT_XML}` }))
    expect(tag.name).toBe(`Tag${NOT_XML}`)
    const meeting = { day: 'monday', start: '18:00', end: '20:00', location: `Room${NOT_XML}`, note: `Note${NOT_XML}` }
    const made = await app.admin.post('/api/clubs/', {
      code: 'xml-club',
      ...TEXTS,
      meetings: [meeting],
      tags: [{ id: tag.id }],
    })
    expect(made.status).toBe(201)
    const decided = await app.admin.patch('/api/clubs/xml-club/', {
      approved: true,
      approved_comment: `Comment${NOT_XML}`,
    })
    expect(decided.status).toBe(200)

    const club = await readJson(await app.admin.get(`/api/clubs/xml-club/?fields=${COLUMNS.join(',')}`))
    expect(club).toEqual({
      code: 'xml-club',
      ...TEXTS,
      approved_comment: `Comment${NOT_XML}`,
      meetings: [meeting],
      tags: [{ id: tag.id, name: `Tag${NOT_XML}` }],
    })
    const query = `&fields=${COLUMNS.join(',')}&code=xml-club`
    const texts = COLUMNS.map((column) => textOf(column, club[column]))

    const xlsx = await app.admin.get(`/api/clubs/?format=xlsx${query}`)
    expect(xlsx.status).toBe(200)
    const [header, row] = await xlsxRows(await xlsx.arrayBuffer())
    expect(header).toEqual(COLUMNS)
    expect(row).toEqual(texts.map((text) => expectedCell(xmlText(text))))
    expect(row![COLUMNS.indexOf('subtitle')]).toBe("'=1+2")

    // CSV is UTF-8, which holds every character but a lone surrogate: that one becomes U+FFFD.
    const csv = await app.admin.get(`/api/clubs/?format=csv${query}`)
    expect(csvRows(await csv.text())).toEqual([COLUMNS, texts.map((text) => expectedCell(text).toWellFormed())])
  })
})

describe('where spreadsheets are offered', () => {
  it.each([
    '/api/clubs/penn-chess-society/?format=csv',
    '/api/clubs/penn-chess-society/?format=xlsx',
    '/api/tags/?format=csv',
    '/api/clubs/?format=CSV',
    '/api/clubs/?format=xls',
  ])('answers %s with 404', async (path) => {
    const res = await get(path)
    expect(res.status).toBe(404)
    expect(await readJson(res)).toEqual({ detail: 'Not found.' })
  })

  it('answers a bad query of an export with the JSON 400', async () => {
    const res = await get('/api/clubs/?format=csv&ordering=nope')
    expect(res.status).toBe(400)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(Object.keys(await readJson(res))).toEqual(['ordering'])
  })

  it('offers the browsable list as CSV and XLSX downloads of the same query', async () => {
    const html = await (await get('/api/clubs/?search=society&ordering=name&format=api')).text()
    expect(html).toContain('<a href="/api/clubs/?search=society&amp;ordering=name&amp;format=csv">CSV</a>')
    expect(html).toContain('<a href="/api/clubs/?search=society&amp;ordering=name&amp;format=xlsx">Excel (XLSX)</a>')
    const csv = await get('/api/clubs/?search=society&ordering=name&format=csv')
    expect(csv.status).toBe(200)
  })

  it('declares both files in the OpenAPI document', async () => {
    const doc = await readJson(await get('/swagger/json'))
    const list = doc.paths['/api/clubs/'].get
    // Beside the JSON, not in its content: generated clients would type the JSON list as a string or a Blob.
    expect(Object.keys(list.responses['200'].content)).toEqual(['application/json'])
    expect(Object.keys(list.responses['200']['x-other-media']).sort()).toEqual(
      ['text/csv', XLSX_TYPE, 'text/html'].sort(),
    )
    expect(list.parameters.find((p: { name: string }) => p.name === 'format').schema.enum).toEqual([
      'json',
      'api',
      'csv',
      'xlsx',
    ])
  })
})

describe('a big export holds no other request', () => {
  it('answers /health while a CSV and an XLSX of 5,000 clubs are still being built', async () => {
    const { mkdtempSync, readFileSync, rmSync, writeFileSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const { openDataFile } = await import('../src/data-file')
    const { createApp } = await import('../src/app')
    const dir = mkdtempSync(join(tmpdir(), 'clubs-big-export-'))
    try {
      const seed = join(dir, 'seed.json')
      const sample = JSON.parse(readFileSync(SEED_FILE, 'utf8'))
      const clubs = Array.from({ length: 5000 }, (_, i) => {
        const club = sample.clubs[i % sample.clubs.length]
        return { ...club, code: `${club.code}-${i}`, name: `${club.name} ${i}` }
      })
      writeFileSync(seed, JSON.stringify({ ...sample, clubs }))
      const { store, data } = await openDataFile(':memory:', seed)
      const app = createApp({
        store,
        data,
        logos: new LogoMemory(),
        config: { adminToken: ADMIN_TOKEN, autoApprove: false, readOnly: false },
        logFault: () => {},
      })
      const get = (path: string) => app.handle(new Request(`http://localhost${path}`))
      for (const format of ['csv', 'xlsx']) {
        // /health asked again and again, each time the last one is answered, until the export is.
        let exporting = true
        let answered = 0
        const exported = get(`/api/clubs/?format=${format}`).then(async (res) => {
          exporting = false
          return [res.status, (await res.arrayBuffer()).byteLength > 100_000]
        })
        while (exporting) {
          // As requests off the network come: each one a task of its own.
          await new Promise((resolve) => setImmediate(resolve))
          if ((await get('/health')).status === 200) answered++
        }
        expect([format, await exported]).toEqual([format, [200, true]])
        // Built on the request thread, the file would let through only the few asked before it began.
        expect([format, answered > 20]).toEqual([format, true])
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 30_000)
})
