// docs/reference.md §15 (amended): a new data file starts from CLUBS_SEED_FILE, which may be a list of
// clubs in the write shape, a data file (the bundled sample), or `none`; a seed that is neither is
// a refused start naming the file, the row and the field. Real processes: the start is the point.
import { afterEach, describe, expect, it } from 'bun:test'
import { readFileSync, writeFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { makeApp, readJson, tempDir } from '../harness/app'
import { seedLogosDir } from '../src/data-file'
import { freePort, ROOT, runToEnd, spawnService, stopService, waitForHealth } from '../harness/service'
import { directoryOnDisk } from '../harness/on-disk'

const EXAMPLE = 'data/examples/clubs.json'
const running: Subprocess[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((proc) => stopService(proc)))
})

/** The service over a new data file in a temp folder, started from `seed`. */
async function startFrom(seed: string) {
  const port = freePort()
  const dataFile = join(tempDir(), 'db.json')
  const proc = spawnService(
    port,
    { CLUBS_DATA_FILE: dataFile, CLUBS_SEED_FILE: seed, CLUBS_ADMIN_TOKEN: 'seed-test-token', CLUBS_LOG_LEVEL: 'warn' },
    { stdout: 'ignore', stderr: 'pipe' },
  )
  running.push(proc)
  const base = `http://127.0.0.1:${port}`
  await waitForHealth(base, proc)
  const get = async (path: string) => (await fetch(base + path)).json() as Promise<any>
  return { get, dataFile, base }
}

/** A start that must be refused: its exit code and what it said. */
async function refusedStart(seed: string) {
  const proc = spawnService(
    freePort(),
    { CLUBS_DATA_FILE: join(tempDir(), 'db.json'), CLUBS_SEED_FILE: seed },
    {
      stdout: 'pipe',
      stderr: 'pipe',
    },
  )
  running.push(proc)
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr as ReadableStream).text()])
  return { code, stderr }
}

describe('CLUBS_SEED_FILE', () => {
  it('starts from a list of clubs in the write shape: codes from names, tags made by name, approved, owned by nobody', async () => {
    const { get, dataFile } = await startFrom(EXAMPLE)
    const rows = JSON.parse(readFileSync(join(ROOT, EXAMPLE), 'utf8')) as { code?: string; name: string }[]
    expect(rows.some((row) => row.code === undefined)).toBe(true)
    const clubs = await get('/api/clubs/?ordering=name&fields=code,name,tags,approved,membership_count')
    expect(clubs.map((club: { name: string }) => club.name)).toEqual(rows.map((row) => row.name).sort())
    expect(clubs.find((club: { name: string }) => club.name === 'Riverside Rowing Club')).toEqual({
      code: 'riverside-rowing-club',
      name: 'Riverside Rowing Club',
      tags: [
        { id: 1, name: 'Athletics' },
        { id: 2, name: 'Wellness' },
      ],
      approved: true,
      membership_count: 0,
    })
    expect((await get('/api/clubs/jazz-ensemble/')).tags.map((tag: { name: string }) => tag.name)).toEqual([
      'Music',
      'Performing Arts',
    ])
    expect((await get('/api/tags/')).length).toBe(12)
    const saved = directoryOnDisk(dataFile)
    expect(saved).toMatchObject({ version: 2, memberships: [], history: [] })
    expect(saved.clubs.length).toBe(rows.length)
  }, 20_000)

  it('starts empty with none: no clubs, no tags', async () => {
    const { get } = await startFrom('none')
    expect(await get('/api/clubs/')).toEqual([])
    expect(await get('/api/tags/')).toEqual([])
  }, 20_000)

  it('still starts from a data file, the bundled sample', async () => {
    const { get } = await startFrom('data/seed.json')
    expect((await get('/api/clubs/penn-chess-society/')).name).toBe('Penn Chess Society')
  }, 20_000)

  const dir = tempDir()
  const refused: { name: string; text: string; says: string }[] = [
    {
      name: 'a row with a bad field',
      text: JSON.stringify([{ name: 'One' }, { name: 'Two', tags: ['Arts'] }, { name: 'Three', size: 9 }]),
      says: 'row 3: size: "9" is not a valid choice.',
    },
    {
      name: 'two rows of one name',
      text: JSON.stringify([{ name: 'Chess Club' }, { name: 'chess club' }]),
      says: 'row 2: name: A club with this name already exists.',
    },
    {
      name: 'a row that is no club',
      text: '[{"name": "Fine"}, 7]',
      says: 'row 2: Invalid data. Expected a dictionary, but got number.',
    },
    { name: 'not JSON', text: '[{"name": ', says: 'it is not valid JSON' },
    {
      name: 'neither a list nor a data file',
      text: '{"clubs": []}',
      says: 'it is neither a list of clubs nor a club directory data file (/version: missing',
    },
  ]
  it.each(refused)(
    'refuses $name, naming the file, the row and the field',
    async ({ name, text, says }) => {
      const file = join(dir, `${name.replaceAll(' ', '-')}.json`)
      writeFileSync(file, text)
      const { code, stderr } = await refusedStart(file)
      expect(code).not.toBe(0)
      expect(stderr).toStartWith(`CLUBS_SEED_FILE ${file}: ${says}`)
      expect(stderr).not.toContain('    at ')
      expect(stderr).not.toContain('Expected union value')
    },
    20_000,
  )

  it('is what npm run reset puts back, in each form', async () => {
    const dataFile = join(tempDir(), 'db.json')
    const env = { ...process.env, CLUBS_DATA_FILE: dataFile }
    const fromList = await runToEnd([process.execPath, 'scripts/reset.ts'], {
      cwd: ROOT,
      env: { ...env, CLUBS_SEED_FILE: EXAMPLE },
    })
    expect(fromList.stdout).toContain(`to ${EXAMPLE}: 6 clubs.`)
    expect(directoryOnDisk(dataFile).clubs.length).toBe(6)
    const empty = await runToEnd([process.execPath, 'scripts/reset.ts'], {
      cwd: ROOT,
      env: { ...env, CLUBS_SEED_FILE: 'none' },
    })
    expect(empty.stdout).toContain('to none: 0 clubs.')
    const bad = join(tempDir(), 'bad.json')
    writeFileSync(bad, '[{"name": "Go Club", "colour": "red"}]')
    const refused = await runToEnd([process.execPath, 'scripts/reset.ts'], {
      cwd: ROOT,
      env: { ...env, CLUBS_SEED_FILE: bad },
    })
    expect(refused.code).toBe(1)
    expect(refused.stderr.trim()).toBe(
      `CLUBS_SEED_FILE ${bad}: row 1: colour: the directory has no such field; remove it from the seed, and keep fields of your own in a file beside it, by club code (docs/hackathon.md: fields of your own).`,
    )
    expect(directoryOnDisk(dataFile).clubs).toEqual([])
  }, 30_000)
})

describe('the bundled sample (docs/reference.md §22)', () => {
  it('links no image on another host, and has clubs with meetings and public officers', async () => {
    const sample = JSON.parse(readFileSync(join(ROOT, 'data/seed.json'), 'utf8'))
    expect(sample.clubs.filter((club: { image_url: string | null }) => club.image_url !== null)).toEqual([])
    const app = await makeApp()
    const clubs = await readJson(await app.req('/api/clubs/?fields=code,meetings'))
    const meeting = clubs.filter((club: { meetings: unknown[] }) => club.meetings.length > 0)
    expect(meeting.length).toBeGreaterThanOrEqual(10)
    const officers = await Promise.all(
      clubs.map(async ({ code }: { code: string }) => readJson(await app.req(`/api/clubs/${code}/officers/`))),
    )
    const withOfficers = officers.filter((list) => list.length > 0)
    expect(withOfficers.length).toBeGreaterThanOrEqual(8)
    expect(withOfficers.flat().every((officer: { title: string }) => officer.title !== '')).toBe(true)
    // The logos it brings, one for a club of its own each.
    const logos = readdirSync(join(ROOT, seedLogosDir('data/seed.json')))
    expect(logos.length).toBeGreaterThanOrEqual(5)
    const codes = new Set(clubs.map((club: { code: string }) => club.code))
    expect(logos.filter((file) => !codes.has(file.replace(/\.png$/, '')))).toEqual([])
  })

  it('starts with the logos it brings, served by the service itself, as the site shows them', async () => {
    const { get, base } = await startFrom('data/seed.json')
    const brought = readdirSync(join(ROOT, seedLogosDir('data/seed.json'))).length
    const listed = (await get('/api/clubs/?fields=code,image_url')) as { code: string; image_url: string | null }[]
    const own = listed.filter((club) => club.image_url !== null)
    expect(own.length).toBe(brought)
    for (const club of own) expect(club.image_url).toStartWith(`${base}/api/logos/`)
    // Part of the directory from its start: no change to follow.
    expect((await get('/api/changes/?since=0')).results).toEqual([])
    const chess = own.find((club) => club.code === 'penn-chess-society')!
    const logo = await fetch(`${chess.image_url}?size=64`)
    expect([logo.status, logo.headers.get('content-type')]).toEqual([200, 'image/webp'])
    // The directory's images are all the service's own (the site's CSP allows no other).
    const html = await (await fetch(`${base}/?sort=name&tags=Science`, { headers: { accept: 'text/html' } })).text()
    const images = [...html.matchAll(/<img [^>]*src="([^"]+)"/g)].map((m) => m[1]!)
    expect(images.length).toBeGreaterThan(0)
    expect(images.filter((src) => !src.startsWith(`${base}/api/logos/`))).toEqual([])
  }, 30_000)

  it('keeps the logos it brings in the data file: a restart serves them again', async () => {
    const first = await startFrom('data/seed.json')
    const chess = await first.get('/api/clubs/penn-chess-society/')
    expect(new URL(chess.image_url).pathname).toStartWith('/api/logos/')
    await Promise.all(running.splice(0).map((proc) => stopService(proc)))
    const saved = JSON.parse(readFileSync(first.dataFile, 'utf8'))
    expect(saved.clubs.find((club: { code: string }) => club.code === 'penn-chess-society').image_url).toBe(
      chess.image_url,
    )
    const port = freePort()
    const proc = spawnService(
      port,
      { CLUBS_DATA_FILE: first.dataFile, CLUBS_LOG_LEVEL: 'warn' },
      { stdout: 'ignore', stderr: 'pipe' },
    )
    running.push(proc)
    const base = `http://127.0.0.1:${port}`
    await waitForHealth(base, proc)
    const logo = await fetch(`${base}${new URL(chess.image_url).pathname}?size=64`)
    expect([logo.status, logo.headers.get('content-type')]).toEqual([200, 'image/webp'])
  }, 30_000)
})
