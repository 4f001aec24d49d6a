import { afterEach, describe, expect, it } from 'bun:test'
import type { Subprocess } from 'bun'
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { snapshotProblem } from '../src/domain/snapshot-format'
import { journalFileOf } from '../src/store/journal-file'
import { ADMIN_TOKEN, makeApp, readJson, SEED_FILE, tempDir } from '../harness/app'
import { sleep, startOnDataFile } from '../harness/service'
import { fillUp, freeBytes, mountTmpfs, SKIP_TMPFS, umount } from '../harness/tmpfs'
import { directoryOnDisk } from '../harness/on-disk'
import { blockWrites } from '../harness/write-fault'

// docs/reference.md §9 when the disk fails: a write whose journal entry cannot be appended is
// answered 503 {"detail"} with Retry-After, is taken back in memory, and never shows; reads keep
// working and /readyz says why; the directory on disk (the snapshot with its journal replayed)
// stays exactly the acknowledged writes; once the fault is gone, writes succeed again and land.
// A snapshot that cannot be written (a compaction) refuses no write: the journal keeps them all.

const processes: Subprocess[] = []
const mounts: string[] = []

const freshDir = () => {
  const dir = tempDir('clubs-disk-faults-')
  return dir
}

afterEach(async () => {
  for (const proc of processes.splice(0)) {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL')
    await Promise.race([proc.exited, sleep(5_000)])
  }
  for (const mount of mounts.splice(0)) umount(mount)
})

/** lowdb writes through steno: `<dir>/.<name>.tmp`, then renamed over the data file. */
const tempFileOf = (dataFile: string) => join(dataFile, '..', `.${dataFile.split('/').pop()}.tmp`)

/** The directory on disk (snapshot and journal), after checking it is a valid snapshot. */
function validSnapshot(file: string): any {
  const data = directoryOnDisk(file)
  expect(snapshotProblem(data)).toBeNull()
  return data
}

/** The snapshot file alone (a data file's, or its backup), with its journal fields, after checking it is a valid snapshot. */
function snapshotFile(file: string): any {
  const data = JSON.parse(readFileSync(file, 'utf8'))
  expect(snapshotProblem(data)).toBeNull()
  return data
}

const clubIn = (file: string, code: string) => validSnapshot(file).clubs.find((c: any) => c.code === code)
const clubOf = (data: any, code: string) => data.clubs.find((c: any) => c.code === code)

/** A refused write: 503, a string `detail`, and when to try again. */
async function expectUnavailable(res: Response, what: string) {
  expect({ what, status: res.status }).toEqual({ what, status: 503 })
  expect(res.headers.get('retry-after')).toMatch(/^\d+$/)
  expect(res.headers.get('content-type')).toContain('application/json')
  const body = await readJson(res)
  expect(Object.keys(body)).toEqual(['detail'])
  expect(typeof body.detail).toBe('string')
}

type Send = (method: string, path: string, json?: unknown) => Promise<Response>

/** Sends with the admin token through `app.handle` (in-process) or fetch (a real process). */
function inProcess(
  admin: Awaited<ReturnType<typeof makeApp>>['admin'],
  req: Awaited<ReturnType<typeof makeApp>>['req'],
): Send {
  return (method, path, json) => {
    if (method === 'GET') return admin.get(path)
    return req(path, { method, token: ADMIN_TOKEN, json })
  }
}

/** A service process over `dataFile`, with `env` on top, once healthy. */
const startService = (dataFile: string, env: Record<string, string> = {}) =>
  startOnDataFile(dataFile, ADMIN_TOKEN, (proc) => processes.push(proc), env)

/** Everything a reader sees that the refused writes would have changed. */
async function visibleState(send: Send) {
  const get = async (path: string) => {
    const res = await send('GET', path)
    return { status: res.status, body: res.status === 200 ? await readJson(res) : null }
  }
  return {
    list: await get('/api/clubs/'),
    pending: await get('/api/clubs/?approved=false'),
    mockTrial: await get('/api/clubs/mock-trial/'),
    chess: await get('/api/clubs/penn-chess-society/'),
    refusedCreate: (await send('GET', '/api/clubs/refused-club/')).status,
    favorites: await get('/api/favorites/'),
    tags: await get('/api/tags/'),
  }
}

/** /readyz while writes fail: 503, saying why. */
async function expectNotReady(send: Send, reason: string) {
  const ready = await send('GET', '/readyz')
  expect([ready.status, await readJson(ready)]).toEqual([
    503,
    { status: 'unavailable', reason: `the last write failed: ${reason}` },
  ])
}

/** A write to try while the fault is in place: what it is, method, path, body. */
type Attempt = readonly [string, string, string, unknown?]

const EVERY_KIND: readonly Attempt[] = [
  ['create', 'POST', '/api/clubs/', { name: 'Refused Club' }],
  ['PATCH', 'PATCH', '/api/clubs/mock-trial/', { subtitle: 'Refused', description: 'Refused too' }],
  ['DELETE', 'DELETE', '/api/clubs/mock-trial/'],
  ['add favorite', 'POST', '/api/favorites/', { club: 'mock-trial' }],
  ['remove favorite', 'DELETE', '/api/favorites/penn-chess-society/'],
  ['create user', 'POST', '/api/users/', { username: 'refused-user' }],
]

/**
 * The longest texts a club takes: a journal entry of one is over 10 KB, more than a full disk has
 * left in the journal's last page (a smaller entry could still land there).
 */
const tooLarge = (what: string) => `${what} `.padEnd(10_000, 'x')
const TOO_LARGE_TO_FIT: readonly Attempt[] = [
  [
    'create',
    'POST',
    '/api/clubs/',
    { name: 'Refused Club', description: tooLarge('Refused'), how_to_get_involved: tooLarge('Refused') },
  ],
  ['PATCH', 'PATCH', '/api/clubs/mock-trial/', { subtitle: 'Refused', description: tooLarge('Refused too') }],
  ['PATCH another', 'PATCH', '/api/clubs/penn-chess-society/', { how_to_get_involved: tooLarge('Refused') }],
]

/**
 * The `attempts`, one at a time, while `fault` is in place, each refused saying `reason`; then
 * the same state must show as before, in memory and on disk; then `clear` removes the fault and
 * writes work again, and land.
 */
async function refusedWhileFaulty(
  send: Send,
  dataFile: string,
  {
    fault,
    clear,
    reason,
    attempts = EVERY_KIND,
  }: {
    fault: () => void
    clear: () => void
    reason: string
    attempts?: readonly Attempt[]
  },
) {
  // A favorite to take away, and a write before the fault that must stay.
  expect((await send('POST', '/api/favorites/', { club: 'penn-chess-society' })).status).toBe(201)
  expect((await send('PATCH', '/api/clubs/mock-trial/', { subtitle: 'Before the fault' })).status).toBe(200)
  const before = await visibleState(send)
  expect(before.mockTrial.body.subtitle).toBe('Before the fault')
  expect(before.favorites.body.map((f: any) => f.club.code)).toEqual(['penn-chess-society'])
  const onDiskBefore = validSnapshot(dataFile)
  expect(clubOf(onDiskBefore, 'mock-trial').subtitle).toBe('Before the fault')
  const snapshotBefore = readFileSync(dataFile, 'utf8')

  fault()
  for (const [what, method, path, json] of attempts) await expectUnavailable(await send(method, path, json), what)

  // Reads work, and show exactly the state before the fault: nothing refused is visible.
  expect(await visibleState(send)).toEqual(before)
  expect((await send('GET', '/health')).status).toBe(200)
  await expectNotReady(send, reason)

  clear()
  // On disk: the same snapshot, and with its journal exactly the acknowledged writes.
  expect(readFileSync(dataFile, 'utf8')).toBe(snapshotBefore)
  expect(validSnapshot(dataFile)).toEqual(onDiskBefore)
  const created = await send('POST', '/api/clubs/', { name: 'After The Fault' })
  expect(created.status).toBe(201)
  expect((await readJson(created)).code).toBe('after-the-fault')
  expect((await send('GET', '/readyz')).status).toBe(200)
  const after = validSnapshot(dataFile)
  expect(clubOf(after, 'after-the-fault')?.name).toBe('After The Fault')
  expect(clubOf(after, 'mock-trial')).toEqual(clubOf(onDiskBefore, 'mock-trial'))
  expect(clubOf(after, 'penn-chess-society')).toEqual(clubOf(onDiskBefore, 'penn-chess-society'))
  expect(clubOf(after, 'refused-club')).toBeUndefined()
  expect(after.favorites).toEqual(onDiskBefore.favorites)
  expect(after.users).toEqual(onDiskBefore.users)
  // And the refused ones can now be made, as new.
  expect((await send('PATCH', '/api/clubs/mock-trial/', { subtitle: 'Now saved' })).status).toBe(200)
  expect(clubIn(dataFile, 'mock-trial').subtitle).toBe('Now saved')
  expect((await send('POST', '/api/clubs/', { name: 'Refused Club' })).status).toBe(201)
  expect(clubIn(dataFile, 'refused-club')?.archived_at).toBeNull()
}

/** blockWrites as refusedWhileFaulty's fault: the journal cannot be appended to (EISDIR). */
function journalBlocked(dataFile: string) {
  let blocked: { unblock(): void } | null = null
  return {
    fault: () => (blocked = blockWrites(dataFile)),
    clear: () => blocked!.unblock(),
    reason: 'EISDIR',
  }
}

describe('a journal that cannot be appended to (a folder in its place)', () => {
  it('in-process: every kind of write answers 503 and is taken back; reads work; the disk holds what it held', async () => {
    const dataFile = join(freshDir(), 'db.json')
    const { admin, req } = await makeApp({ dataFile })
    await refusedWhileFaulty(inProcess(admin, req), dataFile, journalBlocked(dataFile))
  })

  it('a real service process: the same, and it restarts with exactly the acknowledged writes', async () => {
    const dataFile = join(freshDir(), 'db.json')
    const { proc, send } = await startService(dataFile)
    await refusedWhileFaulty(send, dataFile, journalBlocked(dataFile))
    const state = await visibleState(send)

    proc.kill('SIGTERM')
    expect(await Promise.race([proc.exited, sleep(15_000).then(() => 'timeout')])).toBe(0)
    const again = await makeApp({ dataFile })
    expect(await visibleState(inProcess(again.admin, again.req))).toEqual(state)
    expect((await again.admin.get('/api/users/me/')).status).toBe(200)
    expect((await again.req('/api/clubs/', { method: 'OPTIONS' })).status).toBe(200)
  })

  it('two refused writes of one club in flight together leave neither visible, nor on disk', async () => {
    const dataFile = join(freshDir(), 'db.json')
    const { admin } = await makeApp({ dataFile })
    const before = await readJson(await admin.get('/api/clubs/mock-trial/'))
    const blocked = blockWrites(dataFile)
    const [a, b] = await Promise.all([
      admin.patch('/api/clubs/mock-trial/', { subtitle: 'A' }),
      admin.patch('/api/clubs/mock-trial/', { subtitle: 'B' }),
    ])
    expect([a.status, b.status]).toEqual([503, 503])
    const [created, patched] = await Promise.all([
      admin.post('/api/clubs/', { name: 'Ghost Club' }),
      Bun.sleep(0).then(() => admin.patch('/api/clubs/ghost-club/', { subtitle: 'Boo' })),
    ])
    expect(created.status).toBe(503)
    expect([404, 503]).toContain(patched.status)
    expect((await readJson(await admin.get('/api/clubs/mock-trial/'))).subtitle).toBe(before.subtitle)
    expect((await admin.get('/api/clubs/ghost-club/')).status).toBe(404)
    blocked.unblock()
    expect((await admin.post('/api/clubs/', { name: 'Later Write' })).status).toBe(201)
    expect(clubIn(dataFile, 'later-write')).toBeDefined()
    expect(clubIn(dataFile, 'mock-trial').subtitle).toBe(before.subtitle)
    expect(clubIn(dataFile, 'ghost-club')).toBeUndefined()
  })

  it('many concurrent refused creates: all 503, none visible, none on disk', async () => {
    const dataFile = join(freshDir(), 'db.json')
    const { admin } = await makeApp({ dataFile })
    const onDiskBefore = validSnapshot(dataFile)
    const listBefore = await readJson(await admin.get('/api/clubs/?approved=false'))
    const blocked = blockWrites(dataFile)
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => admin.post('/api/clubs/', { name: `Refused Together ${i}` })),
    )
    expect(answers.map((res) => res.status)).toEqual(answers.map(() => 503))
    expect(await readJson(await admin.get('/api/clubs/?approved=false'))).toEqual(listBefore)
    for (let i = 0; i < 20; i++) expect((await admin.get(`/api/clubs/refused-together-${i}/`)).status).toBe(404)
    blocked.unblock()
    expect(validSnapshot(dataFile)).toEqual(onDiskBefore)
    // The next write's entry holds none of them either: each was taken back in memory too.
    expect((await admin.post('/api/clubs/', { name: 'Later Write' })).status).toBe(201)
    const after = validSnapshot(dataFile)
    expect(after.clubs.map((c: any) => c.code)).toEqual([...onDiskBefore.clubs.map((c: any) => c.code), 'later-write'])
  })
})

/** The journal's size in bytes. */
const journalBytes = (dataFile: string) => statSync(journalFileOf(dataFile)).size

describe("a folder where the snapshot's temp file goes: writes land in the journal, compactions wait", () => {
  it('a real process: no write is refused, the snapshot is retried, a restart replays the journal, and once the folder goes a compaction lands', async () => {
    const dataFile = join(freshDir(), 'db.json')
    const JOURNAL_BYTES = 4096
    const start = () => startService(dataFile, { CLUBS_JOURNAL_BYTES: String(JOURNAL_BYTES) })
    const crash = async (proc: Subprocess) => {
      proc.kill('SIGKILL')
      await proc.exited
    }
    const created: string[] = []
    let subtitle = ''
    const write = async (send: Send, i: number) => {
      const res = await send('POST', '/api/clubs/', { name: `Journaled ${i}` })
      expect({ i, status: res.status }).toEqual({ i, status: 201 })
      created.push(`journaled-${i}`)
      expect((await send('PATCH', '/api/clubs/mock-trial/', { subtitle: `Write ${i}` })).status).toBe(200)
      subtitle = `Write ${i}`
    }
    const expectEveryWrite = async (send: Send) => {
      for (const code of created)
        expect({ code, status: (await send('GET', `/api/clubs/${code}/`)).status }).toEqual({ code, status: 200 })
      expect((await readJson(await send('GET', '/api/clubs/mock-trial/'))).subtitle).toBe(subtitle)
      const onDisk = validSnapshot(dataFile)
      expect(created.filter((code) => !clubOf(onDisk, code))).toEqual([])
      expect(clubOf(onDisk, 'mock-trial').subtitle).toBe(subtitle)
    }

    const first = await start()
    const snapshot = readFileSync(dataFile, 'utf8')
    const blocker = tempFileOf(dataFile)
    mkdirSync(blocker)
    for (let i = 0; i < 10; i++) await write(first.send, i)
    // Past its size many times over, and the snapshot is the one before: no compaction landed.
    expect(journalBytes(dataFile)).toBeGreaterThan(4 * JOURNAL_BYTES)
    expect(readFileSync(dataFile, 'utf8')).toBe(snapshot)
    expect((await first.send('GET', '/readyz')).status).toBe(200)
    await expectEveryWrite(first.send)

    // A crash with the folder still there: the restart replays the journal, and goes on appending to it.
    await crash(first.proc)
    const second = await start()
    await expectEveryWrite(second.send)
    // Its first compaction keeps the backup (which the test took away), then fails at the temp file.
    const backup = `${dataFile}.bak`
    rmSync(backup, { force: true })
    await write(second.send, 10)
    while (!existsSync(backup)) await sleep(20)
    await write(second.send, 11)
    expect(readFileSync(dataFile, 'utf8')).toBe(snapshot)

    // The folder goes: the compaction is tried again a while later (not at each write), lands, and the journal is cut.
    rmSync(blocker, { recursive: true })
    const grown = journalBytes(dataFile)
    for (let i = 12; journalBytes(dataFile) >= grown; i++) {
      await write(second.send, i)
      await sleep(200)
    }
    const compacted = snapshotFile(dataFile)
    expect(compacted.journal_commits).toBeGreaterThan(snapshotFile(backup).journal_commits)
    // It holds every write but the last (whose append cut the journal, and which the journal holds).
    expect(created.slice(0, -1).filter((code) => !clubOf(compacted, code))).toEqual([])
    expect(existsSync(blocker)).toBe(false)
    await expectEveryWrite(second.send)

    await crash(second.proc)
    const third = await start()
    await expectEveryWrite(third.send)
  }, 60_000)
})

describe('a journal that cannot be written anew (a folder where its temp file goes): a snapshot that landed is never refused', () => {
  const journalTempOf = (dataFile: string) => join(dataFile, '..', `.${dataFile.split('/').pop()}.journal.tmp`)

  it('a data file from before journals: its first write, written whole, is acknowledged, and stays', async () => {
    const dataFile = join(freshDir(), 'db.json')
    writeFileSync(dataFile, readFileSync(SEED_FILE))
    mkdirSync(journalTempOf(dataFile))
    const { admin } = await makeApp({ dataFile })
    // The snapshot, written whole, holds the write before the journal is made: the answer must agree with the disk.
    expect((await admin.patch('/api/clubs/mock-trial/', { subtitle: 'Written whole' })).status).toBe(200)
    expect(clubIn(dataFile, 'mock-trial').subtitle).toBe('Written whole')
    expect((await admin.post('/api/clubs/', { name: 'Second Write' })).status).toBe(201)
    rmSync(journalTempOf(dataFile), { recursive: true })
    expect((await admin.patch('/api/clubs/mock-trial/', { subtitle: 'Journaled' })).status).toBe(200)
    expect(existsSync(journalFileOf(dataFile))).toBe(true)
    const again = await makeApp({ dataFile })
    expect((await readJson(await again.admin.get('/api/clubs/mock-trial/'))).subtitle).toBe('Journaled')
    expect((await again.admin.get('/api/clubs/second-write/')).status).toBe(200)
  })

  it('a sandbox reset: answered as it landed, and a restart after a crash shows it and the writes after it', async () => {
    const dataFile = join(freshDir(), 'db.json')
    const first = await startService(dataFile, { CLUBS_SANDBOX: 'true' })
    expect((await first.send('POST', '/api/clubs/', { name: 'Before The Reset' })).status).toBe(201)
    mkdirSync(journalTempOf(dataFile))
    const reset = await first.send('POST', '/api/_sandbox/reset')
    expect(reset.status).toBe(200)
    expect((await first.send('GET', '/api/clubs/before-the-reset/')).status).toBe(404)
    expect(clubIn(dataFile, 'before-the-reset')).toBeUndefined()
    expect((await first.send('PATCH', '/api/clubs/mock-trial/', { subtitle: 'After the reset' })).status).toBe(200)
    const state = await visibleState(first.send)
    first.proc.kill('SIGKILL')
    await first.proc.exited
    const again = await startService(dataFile, { CLUBS_SANDBOX: 'true' })
    expect(await visibleState(again.send)).toEqual(state)
    expect((await again.send('GET', '/api/clubs/before-the-reset/')).status).toBe(404)
  })
})

describe('the previous snapshot is kept as <file>.bak at each snapshot write', () => {
  it('after compactions the backup is a valid, older snapshot of acknowledged state', async () => {
    const dataFile = join(freshDir(), 'db.json')
    const backup = `${dataFile}.bak`
    const { admin } = await makeApp({ dataFile, journalBytes: 4096 })
    const acknowledged = [(await readJson(await admin.get('/api/clubs/mock-trial/'))).subtitle]
    for (let i = 0; i < 30; i++) {
      expect((await admin.patch('/api/clubs/mock-trial/', { subtitle: `Write ${i}` })).status).toBe(200)
      acknowledged.push(`Write ${i}`)
      // Whenever it is looked at, the backup is whole, no newer than the data file, and exactly the state at its commit.
      if (existsSync(backup)) {
        const kept = snapshotFile(backup)
        expect(clubOf(kept, 'mock-trial').subtitle).toBe(acknowledged[kept.journal_commits])
        expect(kept.journal_commits).toBeLessThanOrEqual(snapshotFile(dataFile).journal_commits)
      }
    }
    // A restart waits for the compaction under way and writes the snapshot whole: the backup is the last compaction's.
    const again = await makeApp({ dataFile, journalBytes: 4096 })
    const whole = snapshotFile(dataFile)
    expect(clubOf(whole, 'mock-trial').subtitle).toBe('Write 29')
    expect(whole.journal_commits).toBe(30)
    const kept = snapshotFile(backup)
    expect(kept.journal_id).toBe(whole.journal_id)
    expect(kept.journal_commits).toBeGreaterThan(0)
    // (all 30 when the last write started a compaction, which the restart waited for)
    expect(kept.journal_commits).toBeLessThanOrEqual(30)
    expect(clubOf(kept, 'mock-trial').subtitle).toBe(acknowledged[kept.journal_commits])
    expect((await readJson(await again.admin.get('/api/clubs/mock-trial/'))).subtitle).toBe('Write 29')
  })

  it('a failed compaction leaves the data file, its backup and the journal consistent', async () => {
    const dataFile = join(freshDir(), 'db.json')
    const backup = `${dataFile}.bak`
    const first = await makeApp({ dataFile, journalBytes: 4096 })
    for (let i = 0; i < 10; i++)
      expect((await first.admin.patch('/api/clubs/mock-trial/', { subtitle: `Landed ${i}` })).status).toBe(200)
    // A restart: no compaction under way, the data file whole, the backup the snapshot before it.
    const { admin } = await makeApp({ dataFile, journalBytes: 4096 })
    const snapshot = readFileSync(dataFile, 'utf8')
    expect(clubOf(snapshotFile(dataFile), 'mock-trial').subtitle).toBe('Landed 9')
    expect(snapshotFile(backup).journal_commits).toBeLessThan(snapshotFile(dataFile).journal_commits)

    const blocker = tempFileOf(dataFile)
    mkdirSync(blocker)
    for (let i = 0; journalBytes(dataFile) < 2 * 4096; i++)
      expect((await admin.patch('/api/clubs/mock-trial/', { subtitle: `Journaled ${i}` })).status).toBe(200)
    const last = (await readJson(await admin.get('/api/clubs/mock-trial/'))).subtitle
    // The data file as it was; the backup a valid snapshot no newer (the compaction kept it before failing);
    // the journal going on from the data file's commits (directoryOnDisk refuses one that does not) to the last write.
    expect(readFileSync(dataFile, 'utf8')).toBe(snapshot)
    const data = snapshotFile(dataFile)
    const kept = snapshotFile(backup)
    expect(kept.journal_id).toBe(data.journal_id)
    expect(kept.journal_commits).toBeLessThanOrEqual(data.journal_commits)
    expect(clubIn(dataFile, 'mock-trial').subtitle).toBe(last)

    // A restart with the folder still there cannot write the snapshot whole: it replays the journal.
    const again = await makeApp({ dataFile, journalBytes: 4096 })
    expect(readFileSync(dataFile, 'utf8')).toBe(snapshot)
    expect((await readJson(await again.admin.get('/api/clubs/mock-trial/'))).subtitle).toBe(last)
    rmSync(blocker, { recursive: true })
    await makeApp({ dataFile, journalBytes: 4096 })
    expect(clubOf(snapshotFile(dataFile), 'mock-trial').subtitle).toBe(last)
    expect(snapshotFile(backup)).toEqual(JSON.parse(snapshot))
  })
})

const TMPFS_KIB = 1024

describe('a full disk', () => {
  it.skipIf(SKIP_TMPFS)(
    `a write that does not fit answers 503 and is not acknowledged; reads work; freeing space lets writes succeed (${TMPFS_KIB} KiB tmpfs)`,
    async () => {
      const mountPoint = freshDir()
      mountTmpfs(mountPoint, TMPFS_KIB)
      mounts.push(mountPoint)
      const dataFile = join(mountPoint, 'db.json')
      const { admin, req } = await makeApp({ dataFile })
      const filler = join(mountPoint, 'filler')
      await refusedWhileFaulty(inProcess(admin, req), dataFile, {
        fault: () => {
          fillUp(filler)
          expect(freeBytes(mountPoint)).toBe(0)
        },
        clear: () => rmSync(filler),
        reason: 'no space left on the disk (ENOSPC)',
        attempts: TOO_LARGE_TO_FIT,
      })
      expect(existsSync(filler)).toBe(false)
      const state = await visibleState(inProcess(admin, req))
      const again = await makeApp({ dataFile })
      expect(await visibleState(inProcess(again.admin, again.req))).toEqual(state)
    },
  )
})
