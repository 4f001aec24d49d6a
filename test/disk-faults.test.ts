import { afterEach, describe, expect, it } from 'bun:test'
import type { Subprocess } from 'bun'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { snapshotProblem } from '../src/domain/snapshot-format'
import { ADMIN_TOKEN, makeApp, readJson, tempDir } from '../harness/app'
import { freePort, sleep, spawnService, waitForHealth } from '../harness/service'
import { fillUp, freeBytes, mountTmpfs, SKIP_TMPFS, umount } from '../harness/tmpfs'

// docs/reference.md §9 when the disk fails: a write whose snapshot cannot be saved is answered 503
// {"detail"} with Retry-After, is taken back in memory, and never shows; reads keep working; the
// file on disk stays the last good snapshot (and <file>.bak a good one too); once the fault is
// gone, writes succeed again and land on disk.

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

/** The parsed file, after checking it is complete JSON and a valid snapshot. */
function validSnapshot(file: string): any {
  const data = JSON.parse(readFileSync(file, 'utf8'))
  expect(snapshotProblem(data)).toBeNull()
  return data
}

const clubIn = (file: string, code: string) => validSnapshot(file).clubs.find((c: any) => c.code === code)

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

function overHttp(base: string): Send {
  return (method, path, json) =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: json === undefined ? undefined : JSON.stringify(json),
      signal: AbortSignal.timeout(10_000),
    })
}

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

/**
 * One write of each kind, one at a time, while `fault` is in place; then the same state must
 * show as before, in memory and on disk; then `clear` removes the fault and writes work again.
 */
async function refusedWhileFaulty(send: Send, dataFile: string, fault: () => void, clear: () => void) {
  // A favorite to take away, and a write before the fault that must stay.
  expect((await send('POST', '/api/favorites/', { club: 'penn-chess-society' })).status).toBe(201)
  expect((await send('PATCH', '/api/clubs/mock-trial/', { subtitle: 'Before the fault' })).status).toBe(200)
  const before = await visibleState(send)
  expect(before.mockTrial.body.subtitle).toBe('Before the fault')
  expect(before.favorites.body.map((f: any) => f.club.code)).toEqual(['penn-chess-society'])
  const fileBefore = readFileSync(dataFile, 'utf8')

  fault()
  await expectUnavailable(await send('POST', '/api/clubs/', { name: 'Refused Club' }), 'create')
  await expectUnavailable(
    await send('PATCH', '/api/clubs/mock-trial/', { subtitle: 'Refused', description: 'Refused too' }),
    'PATCH',
  )
  await expectUnavailable(await send('DELETE', '/api/clubs/mock-trial/'), 'DELETE')
  await expectUnavailable(await send('POST', '/api/favorites/', { club: 'mock-trial' }), 'add favorite')
  await expectUnavailable(await send('DELETE', '/api/favorites/penn-chess-society/'), 'remove favorite')
  await expectUnavailable(await send('POST', '/api/users/', { username: 'refused-user' }), 'create user')

  // Reads work, and show exactly the state before the fault: nothing refused is visible.
  expect(await visibleState(send)).toEqual(before)
  expect((await send('GET', '/health')).status).toBe(200)
  // The file is still the old, complete snapshot, and so is its backup.
  expect(readFileSync(dataFile, 'utf8')).toBe(fileBefore)
  validSnapshot(dataFile)
  validSnapshot(`${dataFile}.bak`)
  expect(clubIn(dataFile, 'refused-club')).toBeUndefined()

  clear()
  const created = await send('POST', '/api/clubs/', { name: 'After The Fault' })
  expect(created.status).toBe(201)
  expect((await readJson(created)).code).toBe('after-the-fault')
  expect(clubIn(dataFile, 'after-the-fault')?.name).toBe('After The Fault')
  expect(clubIn(dataFile, 'mock-trial').subtitle).toBe('Before the fault')
  expect(validSnapshot(dataFile).favorites).toEqual(validSnapshot(`${dataFile}.bak`).favorites)
  // And the refused ones can now be made, as new.
  expect((await send('PATCH', '/api/clubs/mock-trial/', { subtitle: 'Now saved' })).status).toBe(200)
  expect(clubIn(dataFile, 'mock-trial').subtitle).toBe('Now saved')
  expect((await send('POST', '/api/clubs/', { name: 'Refused Club' })).status).toBe(201)
  expect(clubIn(dataFile, 'refused-club')?.archived_at).toBeNull()
}

describe('a data file that cannot be replaced (a folder where the temp file goes)', () => {
  it('in-process: every kind of write answers 503 and is taken back; reads work; the file stays old', async () => {
    const dataFile = join(freshDir(), 'db.json')
    const { admin, req } = await makeApp({ dataFile })
    const blocker = tempFileOf(dataFile)
    await refusedWhileFaulty(
      inProcess(admin, req),
      dataFile,
      () => mkdirSync(blocker),
      () => rmSync(blocker, { recursive: true }),
    )
  })

  it('a real service process: the same, and it restarts with exactly the acknowledged writes', async () => {
    const dataFile = join(freshDir(), 'db.json')
    const port = freePort()
    const proc = spawnService(
      port,
      {
        CLUBS_DATA_FILE: dataFile,
        CLUBS_ADMIN_TOKEN: ADMIN_TOKEN,
        CLUBS_LOG_LEVEL: 'warn',
        CLUBS_RATE_LIMIT: '',
        CLUBS_READ_ONLY: '',
      },
      {
        stdout: 'ignore',
        stderr: 'pipe',
      },
    )
    processes.push(proc)
    const base = `http://127.0.0.1:${port}`
    await waitForHealth(base, proc)
    const send = overHttp(base)
    const blocker = tempFileOf(dataFile)
    await refusedWhileFaulty(
      send,
      dataFile,
      () => mkdirSync(blocker),
      () => rmSync(blocker, { recursive: true }),
    )
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
    const blocker = tempFileOf(dataFile)
    mkdirSync(blocker)
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
    rmSync(blocker, { recursive: true })
    expect((await admin.post('/api/clubs/', { name: 'Later Write' })).status).toBe(201)
    expect(clubIn(dataFile, 'mock-trial').subtitle).toBe(before.subtitle)
    expect(clubIn(dataFile, 'ghost-club')).toBeUndefined()
  })

  it('many concurrent refused creates: all 503, none visible, none on disk', async () => {
    const dataFile = join(freshDir(), 'db.json')
    const { admin } = await makeApp({ dataFile })
    const fileBefore = readFileSync(dataFile, 'utf8')
    const listBefore = await readJson(await admin.get('/api/clubs/?approved=false'))
    mkdirSync(tempFileOf(dataFile))
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => admin.post('/api/clubs/', { name: `Refused Together ${i}` })),
    )
    expect(answers.map((res) => res.status)).toEqual(answers.map(() => 503))
    expect(await readJson(await admin.get('/api/clubs/?approved=false'))).toEqual(listBefore)
    for (let i = 0; i < 20; i++) expect((await admin.get(`/api/clubs/refused-together-${i}/`)).status).toBe(404)
    expect(readFileSync(dataFile, 'utf8')).toBe(fileBefore)
  })
})

describe('the previous snapshot is kept as <file>.bak', () => {
  it('after a failed write the backup and the data file are both valid snapshots of acknowledged state', async () => {
    const dataFile = join(freshDir(), 'db.json')
    const { admin } = await makeApp({ dataFile })
    expect((await admin.patch('/api/clubs/mock-trial/', { subtitle: 'First' })).status).toBe(200)
    expect((await admin.patch('/api/clubs/mock-trial/', { subtitle: 'Second' })).status).toBe(200)
    expect(clubIn(`${dataFile}.bak`, 'mock-trial').subtitle).toBe('First')
    const blocker = tempFileOf(dataFile)
    mkdirSync(blocker)
    expect((await admin.patch('/api/clubs/mock-trial/', { subtitle: 'Third' })).status).toBe(503)
    expect(clubIn(dataFile, 'mock-trial').subtitle).toBe('Second')
    expect(['First', 'Second']).toContain(clubIn(`${dataFile}.bak`, 'mock-trial').subtitle)
    rmSync(blocker, { recursive: true })
    expect((await admin.patch('/api/clubs/mock-trial/', { subtitle: 'Fourth' })).status).toBe(200)
    expect(clubIn(dataFile, 'mock-trial').subtitle).toBe('Fourth')
    expect(clubIn(`${dataFile}.bak`, 'mock-trial').subtitle).toBe('Second')
  })
})

const TMPFS_KIB = 1024

describe('a full disk', () => {
  it.skipIf(SKIP_TMPFS)(
    `writes answer 503 and are not acknowledged; reads work; freeing space lets writes succeed (${TMPFS_KIB} KiB tmpfs)`,
    async () => {
      const mountPoint = freshDir()
      mountTmpfs(mountPoint, TMPFS_KIB)
      mounts.push(mountPoint)
      const dataFile = join(mountPoint, 'db.json')
      const { admin, req } = await makeApp({ dataFile })
      const size = readFileSync(dataFile).byteLength
      // The data file must fit twice (the temp file is written before the old one goes), with room.
      expect(size * 2).toBeLessThan(TMPFS_KIB * 1024 - 64 * 1024)
      const filler = join(mountPoint, 'filler')
      await refusedWhileFaulty(
        inProcess(admin, req),
        dataFile,
        () => {
          // Each write replaces <file>.bak, freeing the snapshot it held, which a full disk would
          // let the next write reuse; without that older snapshot the disk is simply full.
          rmSync(`${dataFile}.bak`)
          fillUp(filler)
          expect(freeBytes(mountPoint)).toBeLessThan(size)
        },
        () => rmSync(filler),
      )
      expect(existsSync(filler)).toBe(false)
    },
  )
})
