import { describe, expect, it } from 'bun:test'
import { appendFileSync, copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { makeApp, readJson, tempDir } from '../harness/app'
import { directoryOnDisk } from '../harness/on-disk'

// The data file's journal (docs/reference.md §9): each write is one appended, synced entry; the
// snapshot is written again in the background once the journal passes its size, and the entries
// it holds are cut; a start replays the entries after the snapshot. What a crash or a person can
// leave behind — a torn last entry, a journal of another data file, one that does not go on from
// the snapshot, a snapshot newer than its journal — is read as it should be, or refused with a
// message, never half-applied.

const newFile = () => join(tempDir('clubs-journal-'), 'db.json')
const journalOf = (file: string) => `${file}.journal`
const entriesIn = (file: string) => readFileSync(journalOf(file), 'utf8').trim().split('\n').slice(1)
const snapshotIn = (file: string) => JSON.parse(readFileSync(file, 'utf8'))

type App = Awaited<ReturnType<typeof makeApp>>

async function create(app: App, name: string): Promise<string> {
  const res = await app.admin.post('/api/clubs/', { name, description: 'Written to the journal.' })
  expect(res.status).toBe(201)
  return (await readJson(res)).code
}

/** Which of `codes` the app serves (to the admin: new clubs wait for approval). */
async function served(app: App, codes: readonly string[]): Promise<string[]> {
  const found: string[] = []
  for (const code of codes) if ((await app.admin.get(`/api/clubs/${code}/`)).status === 200) found.push(code)
  return found
}

/**
 * A copy of a data file with two writes in its journal, its app left running: what a start after
 * a crash reads.
 */
async function journaled(names = ['First Entry', 'Second Entry']) {
  const file = newFile()
  const app = await makeApp({ dataFile: file })
  const made: string[] = []
  for (const name of names) made.push(await create(app, name))
  const copy = newFile()
  copyFileSync(file, copy)
  copyFileSync(journalOf(file), journalOf(copy))
  return { file: copy, made }
}

describe('a write on the data file', () => {
  it('is one journal entry with its records and its events; the snapshot is not written', async () => {
    const file = newFile()
    const app = await makeApp({ dataFile: file })
    const snapshot = readFileSync(file, 'utf8')
    const code = await create(app, 'Journal Club')
    expect(readFileSync(file, 'utf8')).toBe(snapshot)
    const [entry, ...more] = entriesIn(file).map((line) => JSON.parse(line))
    expect(more).toEqual([])
    expect(entry.commit).toBe(snapshotIn(file).journal_commits + 1)
    expect(entry.records.find(([collection]: string[]) => collection === 'clubs')).toMatchObject([
      'clubs',
      code,
      { code, name: 'Journal Club' },
    ])
    expect(entry.events).toEqual([])
    expect(directoryOnDisk(file).clubs.map((club: { code: string }) => club.code)).toContain(code)
  })

  it('is replayed at the next start, and a clean stop writes the snapshot whole', async () => {
    const { file: copy, made } = await journaled(['Replayed One', 'Replayed Two'])
    const restarted = await makeApp({ dataFile: copy })
    expect(await served(restarted, made)).toEqual(made)
    await restarted.store.close()
    expect(entriesIn(copy)).toEqual([])
    expect(snapshotIn(copy).clubs.map((club: { code: string }) => club.code)).toEqual(expect.arrayContaining(made))
  })
})

describe('compaction', () => {
  it('writes the snapshot once the journal passes its size and cuts the entries it holds; nothing is lost', async () => {
    const file = newFile()
    const app = await makeApp({ dataFile: file, journalBytes: 4096 })
    const made: string[] = []
    for (let i = 0; i < 12; i++) made.push(await create(app, `Compacted ${i}`))
    // Compactions run in the background: the last one lands, then the next write cuts its entries.
    for (let waited = 0; snapshotIn(file).journal_commits < 8; waited += 20) {
      if (waited > 5000) throw new Error('no compaction within 5 s')
      await Bun.sleep(20)
    }
    // A write once the landing is noted (a moment after the file is in place) cuts the entries that
    // snapshot holds; a write may start another compaction, whose entries go at the write after it.
    const landed = snapshotIn(file).journal_commits
    const heldOnly = () => entriesIn(file).every((line) => JSON.parse(line).commit > landed)
    for (let n = 0; n < 50 && (n === 0 || !heldOnly()); n++) made.push(await create(app, `After A Compaction ${n}`))
    expect(heldOnly()).toBe(true)
    expect(statSync(journalOf(file)).size).toBeLessThan(4096 + 4096)
    const onDisk = directoryOnDisk(file).clubs.map((club: { code: string }) => club.code)
    expect(onDisk).toEqual(expect.arrayContaining(made))
    expect(existsSync(`${file}.bak`)).toBe(true)
  })
})

describe('what a crash or a person leaves behind', () => {
  it('drops a last entry torn by a crash (never answered), and appends after what remains', async () => {
    const { file, made } = await journaled()
    const whole = readFileSync(journalOf(file), 'utf8')
    appendFileSync(journalOf(file), '{"commit":99,"records":[["clubs","torn",{"code":"to')
    const app = await makeApp({ dataFile: file })
    expect(await served(app, [...made, 'torn'])).toEqual(made)
    expect(readFileSync(journalOf(file), 'utf8')).toBe(whole)
    const next = await create(app, 'After The Tear')
    expect(directoryOnDisk(file).clubs.map((club: { code: string }) => club.code)).toContain(next)
  })

  it('refuses a journal of another data file, naming it, and changes neither file', async () => {
    const { file } = await journaled()
    const other = (await journaled()).file
    copyFileSync(journalOf(other), journalOf(file))
    const before = [readFileSync(file, 'utf8'), readFileSync(journalOf(file), 'utf8')]
    await expect(makeApp({ dataFile: file })).rejects.toThrow(
      `${journalOf(file)}: line 1 names data file ${snapshotIn(other).journal_id}`,
    )
    expect([readFileSync(file, 'utf8'), readFileSync(journalOf(file), 'utf8')]).toEqual(before)
  })

  it('refuses a journal that does not go on from the snapshot (an entry missing), and a line changed by hand', async () => {
    const { file } = await journaled()
    const [header, first, second] = readFileSync(journalOf(file), 'utf8').trim().split('\n')
    writeFileSync(journalOf(file), [header, second, ''].join('\n'))
    await expect(makeApp({ dataFile: file })).rejects.toThrow('the journal does not go on from the data file')
    writeFileSync(journalOf(file), [header, first, 'not json', second, ''].join('\n'))
    await expect(makeApp({ dataFile: file })).rejects.toThrow(`${journalOf(file)}: line 3 is not JSON`)
  })

  it('reads a snapshot newer than its journal (a crash between a compaction and its cut) without applying an entry twice', async () => {
    const { file, made } = await journaled()
    const journal = readFileSync(journalOf(file), 'utf8')
    // The snapshot written whole at a clean stop holds both entries; the journal is put back as it was before the cut.
    const app = await makeApp({ dataFile: file })
    await app.store.close()
    writeFileSync(journalOf(file), journal)
    const again = await makeApp({ dataFile: file })
    expect(await served(again, made)).toEqual(made)
    const onDisk = directoryOnDisk(file).clubs.map((club: { code: string }) => club.code)
    expect(new Set(onDisk).size).toBe(onDisk.length)
    const next = await create(again, 'Numbered After Both')
    const entries = entriesIn(file).map((line) => JSON.parse(line))
    expect(entries.at(-1).commit).toBeGreaterThan(snapshotIn(file).journal_commits)
    expect(directoryOnDisk(file).clubs.map((club: { code: string }) => club.code)).toContain(next)
  })

  it('refuses a journal beside a data file that names none (one put in place by hand)', async () => {
    const { file } = await journaled()
    const { journal_id: _, journal_commits: __, ...bare } = snapshotIn(file)
    writeFileSync(file, JSON.stringify(bare))
    await expect(makeApp({ dataFile: file })).rejects.toThrow('it is beside a data file that names no journal')
  })
})
