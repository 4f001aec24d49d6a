import { describe, expect, it } from 'bun:test'
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN_TOKEN, makeApp, readJson, SEED_FILE, tempDir } from '../harness/app'
import { directoryOnDisk } from '../harness/on-disk'
import { users } from '../harness/users'

// A club's weekly meetings (docs/reference.md §21): part of the write shape and the detail representation,
// checked item by item with messages that name the meeting, kept through export and import, and
// [] for every club of a data file from before them.

type App = Awaited<ReturnType<typeof makeApp>>

const CHESS_URL = '/api/clubs/penn-chess-society/'
const meeting = (fields: Record<string, unknown> = {}) => ({ day: 'monday', start: '18:00', end: '20:00', ...fields })
const detailOf = async (app: App, url = CHESS_URL) => readJson(await app.admin.get(url))

function dataFile(): string {
  const dir = tempDir('clubs-meetings-')
  return join(dir, 'db.json')
}

describe('meetings on write', () => {
  it('creates a club with its meetings, location and note "" when not sent, and [] without any', async () => {
    const app = await makeApp()
    const res = await app.admin.post('/api/clubs/', {
      name: 'Go Club',
      meetings: [
        meeting({ location: 'Room 12' }),
        { note: 'Bring stones', end: '13:30', start: '12:00', day: 'friday' },
      ],
    })
    expect(res.status).toBe(201)
    expect((await readJson(res)).meetings).toEqual([
      { day: 'monday', start: '18:00', end: '20:00', location: 'Room 12', note: '' },
      { day: 'friday', start: '12:00', end: '13:30', location: '', note: 'Bring stones' },
    ])
    const bare = await readJson(await app.admin.post('/api/clubs/', { name: 'Shogi Club' }))
    expect(bare.meetings).toEqual([])
  })

  it('replaces the meetings on PATCH, keeps them on a PATCH of other fields, and selects them with ?fields=', async () => {
    const app = await makeApp()
    const sent = [meeting({ day: 'sunday', start: '00:00', end: '23:59', location: 'Online', note: 'All day' })]
    expect((await app.admin.patch(CHESS_URL, { meetings: sent })).status).toBe(200)
    expect((await app.admin.patch(CHESS_URL, { subtitle: 'Still chess' })).status).toBe(200)
    expect(await readJson(await app.admin.get(`${CHESS_URL}?fields=code,meetings`))).toEqual({
      code: 'penn-chess-society',
      meetings: sent,
    })
    expect((await app.admin.patch(CHESS_URL, { meetings: [] })).status).toBe(200)
    expect((await detailOf(app)).meetings).toEqual([])
  })

  it('is not a reviewed field: an owner changing the meetings of an approved club keeps it approved', async () => {
    const app = await makeApp()
    const { olga: token } = await users(app, 'olga')
    await app.admin.post(`${CHESS_URL}members/`, { username: 'olga', role: 'owner' })
    const res = await app.req(CHESS_URL, { method: 'PATCH', token, json: { meetings: [meeting()] } })
    expect(res.status).toBe(200)
    expect((await readJson(res)).approved).toBe(true)
    expect((await readJson(await app.req(CHESS_URL))).meetings).toEqual([{ ...meeting(), location: '', note: '' }])
  })

  const refused: [string, unknown, string[]][] = [
    ['11 meetings', Array.from({ length: 11 }, () => meeting()), ['Ensure this field has no more than 10 elements.']],
    [
      'a time past 23:59',
      [meeting(), meeting({ start: '25:00' })],
      ['Meeting 2: start: Enter a time as HH:MM, 24-hour (00:00 to 23:59).'],
    ],
    [
      'a time without its leading zero',
      [meeting({ end: '9:00', start: '08:00' })],
      ['Meeting 1: end: Enter a time as HH:MM, 24-hour (00:00 to 23:59).'],
    ],
    [
      'an end before the start',
      [meeting(), meeting({ start: '20:00', end: '19:00' })],
      ['Meeting 2: end must be after start.'],
    ],
    ['an end equal to the start', [meeting({ start: '20:00', end: '20:00' })], ['Meeting 1: end must be after start.']],
    ['an unknown day', [meeting({ day: 'funday' })], ['Meeting 1: day: "funday" is not a valid choice.']],
    ['a day in capitals', [meeting({ day: 'Monday' })], ['Meeting 1: day: "Monday" is not a valid choice.']],
    [
      'a location over 200 characters',
      [meeting({ location: 'x'.repeat(201) })],
      ['Meeting 1: location: Ensure this field has no more than 200 characters.'],
    ],
    [
      'a note over 500 characters',
      [meeting({ note: 'x'.repeat(501) })],
      ['Meeting 1: note: Ensure this field has no more than 500 characters.'],
    ],
    ['a missing day', [{ start: '18:00', end: '20:00' }], ['Meeting 1: day: This field is required.']],
    ['an unknown field', [meeting({ room: 12 })], ['Meeting 1: room: Unknown field.']],
    [
      'a meeting that is not an object',
      ['monday 18:00'],
      ['Meeting 1: Invalid data. Expected a dictionary, but got string.'],
    ],
    ['not a list', { day: 'monday' }, ['Expected a list of items but got type "object".']],
    ['null', null, ['This field may not be null.']],
    [
      'several errors in several meetings, all at once',
      [meeting({ end: '17:00' }), meeting(), meeting({ day: 'someday', location: 7 })],
      [
        'Meeting 1: end must be after start.',
        'Meeting 3: day: "someday" is not a valid choice.',
        'Meeting 3: location: Not a valid string.',
      ],
    ],
  ]

  it.each(refused)('refuses %s with a 400 naming meetings, and changes nothing', async (_, meetings, messages) => {
    const app = await makeApp()
    await app.admin.patch(CHESS_URL, { meetings: [meeting({ location: 'Kept' })] })
    const before = await detailOf(app)
    for (const send of [
      () => app.admin.patch(CHESS_URL, { subtitle: 'Changed', meetings }),
      () => app.admin.put(CHESS_URL, { ...before, subtitle: 'Changed', meetings }),
      () => app.admin.post('/api/clubs/', { name: 'Never Made', meetings }),
    ]) {
      const res = await send()
      expect(res.status).toBe(400)
      expect(await readJson(res)).toEqual({ meetings: messages })
    }
    expect(await detailOf(app)).toEqual(before)
    expect((await app.admin.get('/api/clubs/never-made/')).status).toBe(404)
  })

  it('keeps the meetings on a PUT that does not carry them (a client from before them), and replaces them when it does', async () => {
    const app = await makeApp()
    const meetings = [{ day: 'monday', start: '17:00', end: '18:00', location: 'Room 1', note: '' }]
    expect((await app.admin.patch(CHESS_URL, { meetings })).status).toBe(200)
    const { meetings: _left, ...rest } = await detailOf(app)
    const res = await app.admin.put(CHESS_URL, { ...rest, subtitle: 'Put without meetings' })
    expect(res.status).toBe(200)
    expect((await detailOf(app)).meetings).toEqual(meetings)
    expect((await app.admin.put(CHESS_URL, { ...rest, meetings: [] })).status).toBe(200)
    expect((await detailOf(app)).meetings).toEqual([])
  })
})

describe('meetings in export and import', () => {
  const MEETINGS = [
    {
      day: 'tuesday',
      start: '19:00',
      end: '21:00',
      location: 'Houston Hall, room 202',
      note: '-first come; first served',
    },
  ]

  it('exports them as JSON text, and an export imported again changes nothing', async () => {
    const app = await makeApp()
    await app.admin.patch(CHESS_URL, { meetings: MEETINGS })
    const csv = await (
      await app.admin.get('/api/clubs/?format=csv&fields=code,name,meetings&code=penn-chess-society')
    ).text()
    const [header, row] = csv.trim().split('\r\n')
    expect(header).toBe('code,name,meetings')
    expect(row).toBe(`penn-chess-society,Penn Chess Society,"${JSON.stringify(MEETINGS).replaceAll('"', '""')}"`)
    const again = await app.req('/api/imports/', {
      method: 'POST',
      token: ADMIN_TOKEN,
      body: csv,
      headers: { 'content-type': 'text/csv' },
    })
    expect(await readJson(again)).toEqual({ created: 0, updated: 0, unchanged: 1, tags_created: [] })
  })

  it('imports meetings from a CSV cell or a JSON row, an empty cell as none, and names a bad one by row', async () => {
    const app = await makeApp()
    const importCsv = (body: string) =>
      app.req('/api/imports/', { method: 'POST', token: ADMIN_TOKEN, body, headers: { 'content-type': 'text/csv' } })
    const cell = JSON.stringify(MEETINGS).replaceAll('"', '""')
    expect((await importCsv(`code,meetings\r\npenn-chess-society,"${cell}"\r\n`)).status).toBe(201)
    expect((await detailOf(app)).meetings).toEqual(MEETINGS)
    expect((await importCsv('code,meetings\r\npenn-chess-society,\r\n')).status).toBe(201)
    expect((await detailOf(app)).meetings).toEqual([])

    const res = await app.admin.post('/api/imports/', [
      { code: 'penn-chess-society', meetings: [meeting({ location: 'Hall' })] },
      { code: 'robotics-collective', meetings: [meeting({ end: '07:00' })] },
    ])
    expect(res.status).toBe(400)
    expect(await readJson(res)).toEqual({ rows: { '2': { meetings: ['Meeting 1: end must be after start.'] } } })
    expect((await detailOf(app)).meetings).toEqual([])
    const bad = await importCsv('code,meetings\r\npenn-chess-society,monday 18:00\r\n')
    expect(await readJson(bad)).toEqual({
      rows: { '1': { meetings: ['Expected a list of items but got type "string".'] } },
    })
  })
})

describe('a data file from before meetings', () => {
  it('loads with meetings [] for every club, and the next write saves them', async () => {
    const file = dataFile()
    // The sample with its clubs' meetings taken out: as a release from before meetings wrote it.
    const sample = JSON.parse(readFileSync(SEED_FILE, 'utf8'))
    for (const club of sample.clubs) delete club.meetings
    writeFileSync(file, JSON.stringify(sample))
    expect(readFileSync(file, 'utf8')).not.toContain('"meetings"')
    const app = await makeApp({ dataFile: file })
    const clubs = await readJson(await app.admin.get('/api/clubs/?fields=code,meetings'))
    expect(clubs.length).toBeGreaterThan(10)
    for (const club of clubs) expect(club.meetings).toEqual([])
    expect((await app.admin.patch(CHESS_URL, { meetings: [meeting()] })).status).toBe(200)
    const saved = directoryOnDisk(file)
    expect(saved.clubs.every((club: { meetings?: unknown }) => Array.isArray(club.meetings))).toBe(true)
    const restarted = await makeApp({ dataFile: file })
    expect((await detailOf(restarted)).meetings).toEqual([{ ...meeting(), location: '', note: '' }])
  })

  it('loads a version 1 file with meetings [] too', async () => {
    const file = dataFile()
    copyFileSync(join(import.meta.dir, 'fixtures', 'data-v1.json'), file)
    const app = await makeApp({ dataFile: file })
    const clubs = await readJson(await app.admin.get('/api/clubs/?fields=code,meetings'))
    expect(clubs.length).toBeGreaterThan(0)
    for (const club of clubs) expect(club.meetings).toEqual([])
  })

  it('refuses to start on a file whose meetings are not valid, naming where', async () => {
    const file = dataFile()
    const seed = JSON.parse(readFileSync(SEED_FILE, 'utf8'))
    seed.clubs[0].meetings = [{ day: 'monday', start: '18:00' }]
    writeFileSync(file, JSON.stringify(seed))
    expect(makeApp({ dataFile: file })).rejects.toThrow('/clubs/0/meetings/0')
  })
})
