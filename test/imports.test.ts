// docs/reference.md §15, import: POST /api/imports/ for admins, CSV or JSON, create-or-update by code as a
// PATCH of the columns given, all or nothing in one journal commit, ?dry_run=true, row-numbered
// errors; and every bad input a clear 4xx that changes nothing.
import { describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { stringify } from 'csv-stringify/sync'
import { ADMIN_TOKEN, makeApp, ON_POSTGRES, readJson, tempDir } from '../harness/app'
import { DETAIL_ONLY_FIELDS, LIST_FIELDS } from '../harness/contract'
import { directoryOnDisk } from '../harness/on-disk'
import { blockWrites } from '../harness/write-fault'
import { users } from '../harness/users'

type App = Awaited<ReturnType<typeof makeApp>>

const EVERY_FIELD = [...LIST_FIELDS, ...DETAIL_ONLY_FIELDS].join(',')

/** The app, counting the snapshot writes the directory asks its store for. */
async function counted(options: Parameters<typeof makeApp>[0] = {}) {
  const app = await makeApp(options)
  // Every write the directory makes is one commit of the store, whichever store it is; a write
  // refused before it changes anything throws from its apply.
  const saves = { count: 0 }
  const commit = app.store.commit
  Object.assign(app.store, {
    commit: (apply: Parameters<typeof commit>[0]) =>
      commit(() => {
        const applied = apply()
        saves.count++
        return applied
      }),
  })
  return { ...app, saves }
}

const post = (
  app: App,
  body: BodyInit,
  type: string | null = 'text/csv',
  query = '',
  token: string | null = ADMIN_TOKEN,
) => app.req(`/api/imports/${query}`, { method: 'POST', token, headers: type ? { 'content-type': type } : {}, body })

const csv = (rows: unknown[][]) => stringify(rows, { record_delimiter: 'windows' })

/** Everything an admin can see of the clubs, as one text: unchanged text, unchanged directory. */
const everything = async (app: App) =>
  (await app.admin.get(`/api/clubs/?format=csv&fields=${EVERY_FIELD}&ordering=code`)).text()

const detail = async (app: App, code: string) => readJson(await app.admin.get(`/api/clubs/${code}/`))

describe('the round trip', () => {
  it('imports its own CSV export changing nothing: unchanged equals the row count', async () => {
    const app = await counted()
    const before = await everything(app)
    for (const fields of ['', `&fields=${EVERY_FIELD}`]) {
      const exported = await (await app.admin.get(`/api/clubs/?format=csv${fields}`)).text()
      const rows = exported.trim().split('\r\n').length - 1
      const res = await post(app, exported)
      expect(res.status).toBe(201)
      expect(await readJson(res)).toEqual({ created: 0, updated: 0, unchanged: rows, tags_created: [] })
      expect(rows).toBe(Number((await app.admin.get('/api/clubs/')).headers.get('x-total-count')))
    }
    expect(await everything(app)).toBe(before)
  })

  it('reads the "Hidden" of an export made for the public as no change of address', async () => {
    const app = await counted()
    const club = { code: 'private-mail', name: 'Private Mail', email: 'secret@clubs.example.edu', email_public: false }
    expect((await app.admin.post('/api/clubs/', { ...club, approved: true })).status).toBe(201)
    const exported = await (await app.req('/api/clubs/?format=csv&code=private-mail,penn-chess-society')).text()
    expect(exported).toContain(',Hidden,')
    expect(await readJson(await post(app, exported))).toEqual({
      created: 0,
      updated: 0,
      unchanged: 2,
      tags_created: [],
    })
    expect((await detail(app, 'private-mail')).email).toBe('secret@clubs.example.edu')
    const json = await post(
      app,
      JSON.stringify([{ code: 'new-hidden', name: 'New Hidden', email: 'Hidden' }]),
      'application/json',
    )
    expect(await readJson(json)).toEqual({ created: 1, updated: 0, unchanged: 0, tags_created: [] })
    expect((await detail(app, 'new-hidden')).email).toBe('')
  })

  it('imports its own JSON list changing nothing', async () => {
    const app = await counted()
    const before = await everything(app)
    const list = await readJson(await app.admin.get('/api/clubs/'))
    const res = await post(app, JSON.stringify(list), 'application/json')
    expect(await readJson(res)).toEqual({ created: 0, updated: 0, unchanged: list.length, tags_created: [] })
    expect(await everything(app)).toBe(before)
  })

  it('gives back exactly what a formula-like, quoted, multi-line club exported as', async () => {
    const app = await counted()
    const club = {
      code: 'tricky',
      name: '=cmd|"/c calc"!A1',
      subtitle: '\'-minus, "quoted"\r\nand more',
      description: '@here\ttab',
      address: "''+plus",
      tags: [{ name: 'Games' }],
    }
    expect((await app.admin.post('/api/clubs/', club)).status).toBe(201)
    const exported = await (await app.admin.get(`/api/clubs/?format=csv&fields=${EVERY_FIELD}&code=tricky`)).text()
    expect(exported).toContain("'=cmd")
    expect(await readJson(await post(app, exported))).toEqual({
      created: 0,
      updated: 0,
      unchanged: 1,
      tags_created: [],
    })
    // Into another directory: the same club is created, text for text.
    const other = await counted()
    expect(await readJson(await post(other, exported))).toEqual({
      created: 1,
      updated: 0,
      unchanged: 0,
      tags_created: [],
    })
    const copy = await detail(other, 'tricky')
    for (const field of ['name', 'subtitle', 'description', 'address'] as const) expect(copy[field]).toBe(club[field])
    expect(copy.tags.map((t: { name: string }) => t.name)).toEqual(['Games'])
  })
})

describe('what a row does', () => {
  it('updates a club as a PATCH of the columns given, and creates the ones it does not know', async () => {
    const app = await counted()
    const chess = await detail(app, 'penn-chess-society')
    const res = await post(
      app,
      csv([
        ['code', 'subtitle', 'size', 'tags', 'name'],
        ['penn-chess-society', 'Now with blitz', 3, 'Games; Academic', chess.name],
        ['go-club', 'Stones on a grid', 1, '', 'Go Club'],
      ]),
    )
    expect(res.status).toBe(201)
    expect(await readJson(res)).toEqual({ created: 1, updated: 1, unchanged: 0, tags_created: [] })
    expect(await detail(app, 'go-club')).toMatchObject({ subtitle: 'Stones on a grid', size: 1, tags: [] })
    const after = await detail(app, 'penn-chess-society')
    expect(after).toMatchObject({ subtitle: 'Now with blitz', size: 3, name: chess.name, email: chess.email })
    expect(after.tags.map((t: { name: string }) => t.name)).toEqual(['Games', 'Academic'])
    expect(after.description).toBe(chess.description)
  }, 10_000)

  it('needs a name to create a club, and creates it approved unless the row says approved false', async () => {
    const app = await counted()
    const noName = await post(
      app,
      csv([
        ['code', 'subtitle'],
        ['go-club', 'Stones'],
      ]),
    )
    expect(noName.status).toBe(400)
    expect(await readJson(noName)).toEqual({ rows: { '1': { name: ['This field is required.'] } } })
    const res = await post(
      app,
      csv([
        ['code', 'name', 'approved'],
        ['go-club', 'Go Club', ''],
        ['shogi-club', 'Shogi Club', 'false'],
      ]),
    )
    expect(await readJson(res)).toEqual({ created: 2, updated: 0, unchanged: 0, tags_created: [] })
    expect(await detail(app, 'go-club')).toMatchObject({ approved: true, approved_by: 'admin', is_member: true })
    expect(await detail(app, 'shogi-club')).toMatchObject({ approved: false, approved_on: null })
    expect((await app.req('/api/clubs/go-club/')).status).toBe(200)
    expect((await app.req('/api/clubs/shogi-club/')).status).toBe(404)
    const history = await readJson(await app.admin.get('/api/clubs/go-club/history/'))
    expect(history.map((e: { event: string }) => e.event)).toEqual(['approved', 'created'])
  })

  it('ignores read-only columns and drops the one leading quote an export adds', async () => {
    const app = await counted()
    const chess = await detail(app, 'penn-chess-society')
    const res = await post(
      app,
      csv([
        ['code', 'favorite_count', 'membership_count', 'is_member', 'created_at', 'approved_by', 'subtitle'],
        ['penn-chess-society', '99999', 'x', 'maybe', 'yesterday', 'mallory', "'=1+2"],
      ]),
    )
    expect(await readJson(res)).toEqual({ created: 0, updated: 1, unchanged: 0, tags_created: [] })
    expect(await detail(app, 'penn-chess-society')).toMatchObject({
      favorite_count: chess.favorite_count,
      membership_count: chess.membership_count,
      created_at: chess.created_at,
      approved_by: chess.approved_by,
      subtitle: '=1+2',
    })
  })

  it('leaves a pending club pending when its own export says approved false', async () => {
    const app = await counted()
    expect((await app.admin.post('/api/clubs/', { code: 'queued', name: 'Queued Club' })).status).toBe(201)
    const res = await post(
      app,
      csv([
        ['code', 'approved'],
        ['queued', 'false'],
      ]),
    )
    expect(await readJson(res)).toEqual({ created: 0, updated: 0, unchanged: 1, tags_created: [] })
    expect(await detail(app, 'queued')).toMatchObject({ approved: false, approved_on: null })
  })

  it('checks each row against the rows before it: two rows cannot take one name', async () => {
    const app = await counted()
    const res = await post(
      app,
      csv([
        ['code', 'name'],
        ['first-new', 'Brand New Club'],
        ['second-new', 'brand new club'],
      ]),
    )
    expect(res.status).toBe(400)
    expect(await readJson(res)).toEqual({ rows: { '2': { name: ['A club with this name already exists.'] } } })
  })

  it('takes a JSON array of clubs in the write shape, tags by name or id', async () => {
    const app = await counted()
    const rows = [
      { code: 'json-club', name: 'JSON Club', accepting_members: true, tags: [{ name: 'Games' }, { id: 1 }] },
      { code: 'penn-chess-society', size: 4 },
    ]
    const res = await post(app, JSON.stringify(rows), 'application/json; charset=utf-8')
    expect(await readJson(res)).toEqual({ created: 1, updated: 1, unchanged: 0, tags_created: [] })
    expect((await detail(app, 'json-club')).tags.map((t: { id: number }) => t.id)).toEqual([7, 1])
    expect((await detail(app, 'penn-chess-society')).size).toBe(4)
  })

  it('creates a club for a row without a code, its code made from the name as on create', async () => {
    const app = await counted()
    const json = await post(
      app,
      JSON.stringify([{ name: 'Shogi Club', size: 2 }, { name: 'Penn Chess Club' }]),
      'application/json',
    )
    expect(json.status).toBe(201)
    expect(await readJson(json)).toEqual({ created: 2, updated: 0, unchanged: 0, tags_created: [] })
    expect(await detail(app, 'shogi-club')).toMatchObject({ name: 'Shogi Club', size: 2, approved: true })
    expect((await detail(app, 'penn-chess-club')).name).toBe('Penn Chess Club')
    const table = await post(
      app,
      csv([
        ['code', 'name'],
        ['', 'Shogi Circle'],
      ]),
    )
    expect(await readJson(table)).toEqual({ created: 1, updated: 0, unchanged: 0, tags_created: [] })
    expect((await detail(app, 'shogi-circle')).name).toBe('Shogi Circle')
  })

  it('refuses a later row naming the code an earlier row made from its name', async () => {
    const app = await counted()
    const res = await post(
      app,
      JSON.stringify([{ name: 'Go Club' }, { code: 'go-club', subtitle: 'Stones' }]),
      'application/json',
    )
    expect(res.status).toBe(400)
    expect(await readJson(res)).toEqual({
      rows: { '2': { code: ['Row 1 has the same code; a club may appear once.'] } },
    })
  })

  it('makes the tags the rows name that do not exist, and lists them; a dry run only lists them', async () => {
    const app = await counted()
    const tagNames = async () => (await readJson(await app.req('/api/tags/'))).map((tag: { name: string }) => tag.name)
    const before = await tagNames()
    const rows = [
      { code: 'taiko', name: 'Taiko Drummers', tags: ['Music', { name: 'Drums' }, 'Performing Arts'] },
      { code: 'penn-chess-society', tags: [{ name: 'Games' }, 'drums', { name: ' Strategy ' }] },
    ]
    const dry = await post(app, JSON.stringify(rows), 'application/json', '?dry_run=true')
    expect(await readJson(dry)).toEqual({ created: 1, updated: 1, unchanged: 0, tags_created: ['Drums', 'Strategy'] })
    expect(await tagNames()).toEqual(before)
    const res = await post(app, JSON.stringify(rows), 'application/json')
    expect(await readJson(res)).toEqual({ created: 1, updated: 1, unchanged: 0, tags_created: ['Drums', 'Strategy'] })
    expect(await tagNames()).toEqual([...before, 'Drums', 'Strategy'])
    const names = async (code: string) => (await detail(app, code)).tags.map((tag: { name: string }) => tag.name)
    expect(await names('taiko')).toEqual(['Music', 'Drums', 'Performing Arts'])
    expect(await names('penn-chess-society')).toEqual(['Games', 'Drums', 'Strategy'])
    const again = await post(
      app,
      csv([
        ['code', 'tags'],
        ['taiko', 'Drums; Strategy; Music'],
      ]),
    )
    expect(await readJson(again)).toEqual({ created: 0, updated: 1, unchanged: 0, tags_created: [] })
  })

  it('accepts a file over the 1 MiB of a JSON write, up to 10 MiB', async () => {
    const app = await counted()
    const rows = [['code', 'name', 'description']]
    for (let i = 0; i < 250; i++) rows.push([`big-${i}`, `Big Club ${i}`, 'x'.repeat(9_000)])
    const body = csv(rows)
    expect(body.length).toBeGreaterThan(2 * 1024 * 1024)
    const res = await post(app, body)
    expect(res.status).toBe(201)
    expect(await readJson(res)).toEqual({ created: 250, updated: 0, unchanged: 0, tags_created: [] })
  })
})

describe('all or nothing, in one write', () => {
  it('writes an import of any size in one commit', async () => {
    const dir = tempDir()
    const file = join(dir, 'db.json')
    const app = await counted({ dataFile: file })
    const rows = [['code', 'name', 'subtitle']]
    for (let i = 0; i < 300; i++) rows.push([`bulk-${i}`, `Bulk Club ${i}`, `Row ${i}`])
    const exported = csv([...rows, ...(await csvOfSeed(app)).slice(1)])
    const res = await post(app, exported)
    expect(res.status).toBe(201)
    expect(await readJson(res)).toMatchObject({ created: 300 })
    expect(app.saves.count).toBe(1)
    const saved = directoryOnDisk(file) as { clubs: { code: string }[] }
    expect(saved.clubs.filter((club) => club.code.startsWith('bulk-')).length).toBe(300)
    await app.store.close()
  })

  it('changes nothing, and writes nothing, when any row is bad; every bad row is named by its number', async () => {
    const app = await counted()
    const before = await everything(app)
    const res = await post(
      app,
      csv([
        ['code', 'name', 'size', 'website', 'tags'],
        ['new-one', 'New One', '1', '', ''],
        ['penn-chess-society', 'Penn Chess Society', '9', 'javascript:alert(1)', ''],
        ['', '', '', '', ''], // a blank line keeps its number
        ['new-two', 'New Two', '2', 'ftp://new-two', 'Games; New Tag'],
        ['penn-chess-society', 'Again', '1', '', ''],
      ]),
    )
    expect(res.status).toBe(400)
    expect(await readJson(res)).toEqual({
      rows: {
        '2': { size: ['"9" is not a valid choice.'], website: ['Enter a valid URL (http or https).'] },
        '4': { website: ['Enter a valid URL (http or https).'] },
        '5': { code: ['Row 2 has the same code; a club may appear once.'] },
      },
    })
    expect(await everything(app)).toBe(before)
    expect((await app.admin.get('/api/clubs/new-one/')).status).toBe(404)
    expect((await readJson(await app.req('/api/tags/'))).map((tag: { name: string }) => tag.name)).not.toContain(
      'New Tag',
    )
    expect(app.saves.count).toBe(0)
  })

  it('names the first 1,000 bad rows and counts the rest, however many there are', async () => {
    const app = await counted()
    const rows = [['code', 'name', 'size']]
    for (let i = 1; i <= 5000; i++) rows.push([`bad-${i}`, `Bad Club ${i}`, '9'])
    const res = await post(app, csv(rows))
    expect(res.status).toBe(400)
    const answer = await readJson(res)
    expect(Object.keys(answer)).toEqual(['rows', 'rows_not_shown'])
    expect(Object.keys(answer.rows).map(Number)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1))
    expect(answer.rows['1000']).toEqual({ size: ['"9" is not a valid choice.'] })
    expect(answer.rows_not_shown).toBe(4000)
    expect(app.saves.count).toBe(0)
  })

  // The data file's journal cannot be written; a database's failed commit is the outage test's (test/postgres-store.test.ts).
  it.skipIf(ON_POSTGRES)('takes every change back when the journal cannot be written (503)', async () => {
    const dataFile = join(tempDir(), 'db.json')
    const app = await counted({ dataFile })
    const before = await everything(app)
    const blocked = blockWrites(dataFile)
    const res = await post(
      app,
      csv([
        ['code', 'name'],
        ['doomed', 'Doomed Club'],
        ['penn-chess-society', 'Renamed'],
      ]),
    )
    expect(res.status).toBe(503)
    expect(await everything(app)).toBe(before)
    blocked.unblock()
    expect(directoryOnDisk(dataFile).clubs.some((club: { code: string }) => club.code === 'doomed')).toBe(false)
  })
})

describe('?dry_run=true', () => {
  it('reports what the import would do, 200, and changes and writes nothing', async () => {
    const app = await counted()
    const before = await everything(app)
    const body = csv([
      ['code', 'name', 'subtitle'],
      ['dry-new', 'Dry New', ''],
      ['penn-chess-society', 'Penn Chess Society', 'Dry'],
      ['cafe-portugues', 'Café Português', (await detail(app, 'cafe-portugues')).subtitle],
    ])
    const res = await post(app, body, 'text/csv', '?dry_run=true')
    expect(res.status).toBe(200)
    expect(await readJson(res)).toEqual({ created: 1, updated: 1, unchanged: 1, tags_created: [] })
    expect(await everything(app)).toBe(before)
    expect(app.saves.count).toBe(0)
    const real = await post(app, body, 'text/csv', '?dry_run=false')
    expect(real.status).toBe(201)
    expect(await readJson(real)).toEqual({ created: 1, updated: 1, unchanged: 1, tags_created: [] })
  })

  it('refuses bad rows as the import would', async () => {
    const app = await counted()
    const res = await post(
      app,
      csv([
        ['code', 'size'],
        ['penn-chess-society', 'huge'],
      ]),
      'text/csv',
      '?dry_run=true',
    )
    expect(res.status).toBe(400)
    expect(await readJson(res)).toEqual({ rows: { '1': { size: ['A valid integer is required.'] } } })
  })

  it('refuses a dry_run that is neither true nor false, naming it', async () => {
    const app = await counted()
    const res = await post(app, csv([['code'], ['penn-chess-society']]), 'text/csv', '?dry_run=yes')
    expect(res.status).toBe(400)
    expect(await readJson(res)).toEqual({ dry_run: ['Use true or false.'] })
  })
})

/** The seed's clubs as the admin exports them. */
async function csvOfSeed(app: App): Promise<string[][]> {
  const text = await (await app.admin.get('/api/clubs/?format=csv&fields=code,name,subtitle')).text()
  return text
    .trim()
    .split('\r\n')
    .map((line) => line.split(','))
    .filter((row) => row.length === 3)
}

const NOTHING = 'nothing'
describe('every bad input is a clear 4xx that changes nothing', () => {
  const MIB = 1024 * 1024
  const cases: { name: string; body: () => BodyInit; type?: string | null; status: number; answer: unknown }[] = [
    { name: 'an empty CSV file', body: () => '', status: 400, answer: { non_field_errors: ['The file is empty.'] } },
    {
      name: 'an empty JSON body',
      body: () => '  ',
      type: 'application/json',
      status: 400,
      answer: { non_field_errors: ['The file is empty.'] },
    },
    {
      name: 'a header and no row',
      body: () => 'code,name\r\n',
      status: 400,
      answer: { non_field_errors: ['The file holds no clubs: there is no row after the header.'] },
    },
    {
      name: 'a header that names no known column (a file without its header)',
      body: () => 'penn-chess-society,Penn Chess Society\r\ngo-club,Go Club\r\n',
      status: 400,
      answer: {
        non_field_errors: [
          'The first row must name the columns (code, name, ...); none of its cells is a field of a club.',
        ],
      },
    },
    {
      name: 'a column the club does not have: an error of each row, with its others',
      body: () => 'code,name,colour,size\r\ngo-club,Go Club,red,1\r\npenn-chess-society,,,9\r\n',
      status: 400,
      answer: {
        rows: {
          '1': { colour: ['Unknown field.'] },
          '2': {
            colour: ['Unknown field.'],
            name: ['This field may not be blank.'],
            size: ['"9" is not a valid choice.'],
          },
        },
      },
    },
    {
      name: 'a column named twice, one without a name, no code column',
      body: () => 'name,subtitle,name,\r\nGo Club,a,b,c\r\n',
      status: 400,
      answer: {
        name: ['This column appears more than once.'],
        non_field_errors: ['Column 4 has no name in the header.'],
        code: ['This column is required: it says which club each row is.'],
      },
    },
    {
      name: 'a duplicate code within the file',
      body: () => 'code,name\r\ngo-club,Go Club\r\ngo-club,Go Club Again\r\n',
      status: 400,
      answer: { rows: { '2': { code: ['Row 1 has the same code; a club may appear once.'] } } },
    },
    {
      name: 'a row of another length than the header',
      body: () => 'code,name\r\ngo-club\r\n',
      status: 400,
      answer: { rows: { '1': { non_field_errors: ['This row has 1 cell; the header names 2 columns.'] } } },
    },
    {
      name: 'CSV that does not parse',
      body: () => 'code,name\r\n"go-club,Go Club\r\n',
      status: 400,
      answer: { detail: 'CSV parse error - Quote Not Closed: the parsing is finished with an opening quote at line 3' },
    },
    {
      name: 'JSON that does not parse',
      body: () => '[{"code": "go-club"',
      type: 'application/json',
      status: 400,
      answer: NOTHING,
    },
    {
      name: 'JSON that is not a list',
      body: () => '{"code": "go-club", "name": "Go Club"}',
      type: 'application/json',
      status: 400,
      answer: { non_field_errors: ['Expected a list of clubs, but got object.'] },
    },
    {
      name: 'an empty JSON list',
      body: () => '[]',
      type: 'application/json',
      status: 400,
      answer: { non_field_errors: ['The file holds no clubs: the list is empty.'] },
    },
    {
      name: 'JSON rows that are not clubs, or have a field the club does not have: every error of every row',
      body: () =>
        JSON.stringify([
          [1],
          { name: 'No Code', colour: 'red', size: '9' },
          { code: 'go-club', name: 'Go', colour: 'red' },
          'x',
          { code: 'go-club', name: '', colour: 'blue' },
        ]),
      type: 'application/json',
      status: 400,
      answer: {
        rows: {
          '1': { non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] },
          '2': { colour: ['Unknown field.'], size: ['A valid integer is required.'] },
          '3': { colour: ['Unknown field.'] },
          '4': { non_field_errors: ['Invalid data. Expected a dictionary, but got string.'] },
          '5': {
            code: ['Row 3 has the same code; a club may appear once.'],
            name: ['This field may not be blank.'],
            colour: ['Unknown field.'],
          },
        },
      },
    },
    {
      name: 'a wrong Content-Type',
      body: () => 'code,name\r\ngo-club,Go Club\r\n',
      type: 'text/plain',
      status: 415,
      answer: { detail: 'Unsupported media type "text/plain" in request.' },
    },
    {
      name: 'no Content-Type',
      body: () => 'code,name\r\ngo-club,Go Club\r\n',
      type: null,
      status: 415,
      answer: NOTHING,
    },
    {
      name: 'an XLSX upload',
      body: () => new Uint8Array([0x50, 0x4b, 3, 4]),
      type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      status: 415,
      answer: NOTHING,
    },
    {
      name: 'a charset other than UTF-8',
      body: () => 'code,name\r\ngo-club,Go Club\r\n',
      type: 'text/csv; charset=iso-8859-1',
      status: 415,
      answer: { detail: 'Unsupported media type "text/csv; charset=iso-8859-1" in request.' },
    },
    {
      name: 'more than 10 MiB',
      body: () => `code,name,description\r\n${'go-club,Go Club,' + 'x'.repeat(10 * MIB)}\r\n`,
      status: 413,
      answer: { detail: `Request body is larger than ${10 * MIB} bytes.` },
    },
    {
      name: 'more than 10 MiB, streamed without a length',
      body: () =>
        new ReadableStream({
          start(controller) {
            const chunk = new TextEncoder().encode('x'.repeat(MIB))
            for (let i = 0; i < 11; i++) controller.enqueue(chunk)
            controller.close()
          },
        }),
      status: 413,
      answer: { detail: `Request body is larger than ${10 * MIB} bytes.` },
    },
    {
      name: 'invalid UTF-8',
      body: () => new Uint8Array([...new TextEncoder().encode('code,name\r\ngo-club,Caf'), 0xe9, 0x0d, 0x0a]),
      status: 400,
      answer: { detail: 'The body is not valid UTF-8 text.' },
    },
  ]

  it.each(cases)('$name: $status', async ({ body, type, status, answer }) => {
    const app = await counted()
    const before = await everything(app)
    const res = await post(app, body(), type === undefined ? 'text/csv' : type)
    expect(res.status).toBe(status)
    expect(res.headers.get('content-type')).toBe('application/json')
    const got = await readJson(res)
    if (answer === NOTHING) expect(typeof got.detail).toBe('string')
    else expect(got).toEqual(answer)
    expect(await everything(app)).toBe(before)
    expect(app.saves.count).toBe(0)
  })
})

describe('who may import', () => {
  const body = 'code,name\r\ngo-club,Go Club\r\n'

  it('refuses anonymous callers (401) and users who are not admins (403)', async () => {
    const app = await counted()
    const anonymous = await post(app, body, 'text/csv', '', null)
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toStartWith('Bearer')
    const { alice } = await users(app, 'alice')
    const user = await post(app, body, 'text/csv', '', alice)
    expect(user.status).toBe(403)
    expect((await app.admin.get('/api/clubs/go-club/')).status).toBe(404)
  })

  it('answers 405 on a read-only directory, and to GET', async () => {
    const readOnly = await makeApp({ config: { readOnly: true } })
    expect((await post(readOnly, body)).status).toBe(405)
    const app = await counted()
    const get = await app.admin.get('/api/imports/')
    expect(get.status).toBe(405)
    expect(get.headers.get('allow')).toBe('POST')
  })
})

describe('the import endpoint is declared like any other', () => {
  it('in the OpenAPI document: CSV and JSON bodies, dry_run, 200 and 201', async () => {
    const app = await counted()
    const op = (await readJson(await app.req('/swagger/json'))).paths['/api/imports/'].post
    expect(Object.keys(op.requestBody.content).sort()).toEqual(['application/json', 'text/csv'])
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(['dry_run', 'format'])
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '201', '400', '403', '413', '415']))
    const refusal = op.responses['400'].content['application/json'].schema.anyOf[0]
    expect(Object.keys(refusal.properties)).toEqual(['rows', 'rows_not_shown'])
    expect(refusal.required).toEqual(['rows'])
  })

  it('in OPTIONS: it parses CSV as well as JSON', async () => {
    const app = await counted()
    const meta = await readJson(await app.req('/api/imports/', { method: 'OPTIONS' }))
    expect(meta.parses).toEqual(['application/json', 'text/csv'])
    expect(meta.allowed_methods).toEqual(['POST'])
  })
})
