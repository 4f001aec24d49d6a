import { afterEach, describe, expect, it } from 'bun:test'
import type { Subprocess } from 'bun'
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { snapshotProblem } from '../src/domain/snapshot-format'
import { copySnapshot } from '../src/store/backups'
import { ADMIN_TOKEN, readJson, tempDir } from '../harness/app'
import { ROOT, runToEnd, sleep, startOnDataFile } from '../harness/service'
import { fillUp, freeBytes, mountTmpfs, SKIP_TMPFS, umount } from '../harness/tmpfs'
import { directoryOnDisk } from '../harness/on-disk'

// A disk with a few KiB left (not none): Bun's file writes then take part of a journal entry or
// a snapshot and return a short count instead of throwing ENOSPC. No acknowledged write may be
// lost, the data file (its snapshot and journal) must always load, and a refused write must leave
// nothing behind (issue 24, docs/reference.md §9).

const TMPFS_KIB = 1024
const mounts: string[] = []
const processes: Subprocess[] = []

afterEach(async () => {
  for (const proc of processes.splice(0)) {
    proc.kill('SIGKILL')
    await proc.exited
  }
  for (const mount of mounts.splice(0)) {
    umount(mount)
  }
})

function freshTmpfs(): string {
  const dir = tempDir('clubs-nearly-full-')
  mountTmpfs(dir, TMPFS_KIB)
  mounts.push(dir)
  return dir
}

const start = (dataFile: string, env: Record<string, string> = {}) =>
  startOnDataFile(dataFile, ADMIN_TOKEN, (proc) => processes.push(proc), env)

const description = (i: number) => `Club ${i}. `.padEnd(5_000, 'x')

/** What the folder holds besides the data file, its journal, backup, change log, lock, key and logos, and the filler: no temp file. */
const leftovers = (dir: string) =>
  readdirSync(dir).filter(
    (name) =>
      ![
        'db.json',
        'db.json.journal',
        'db.json.bak',
        'db.json.changes',
        'db.json.lock',
        'db.json.key',
        'db.json.logos',
        'filler',
      ].includes(name),
  )

const clubOf = (data: any, code: string) => data.clubs.find((c: any) => c.code === code)

describe('a nearly full disk (a few KiB free)', () => {
  it.skipIf(SKIP_TMPFS).each([4, 12, 20, 40])(
    'with %d KiB free: a write that does not fit is a 503 and /readyz says why; every acknowledged write survives a restart',
    async (freeKib) => {
      const dir = freshTmpfs()
      const dataFile = join(dir, 'db.json')
      const first = await start(dataFile)
      fillUp(join(dir, 'filler'), freeKib * 1024)
      expect(freeBytes(dir)).toBeLessThanOrEqual(freeKib * 1024)

      // Each create appends an entry of over 5 KB to the journal, so the disk runs out within a few writes.
      const acknowledged: string[] = []
      const refused: string[] = []
      for (let i = 0; i < 30; i++) {
        const res = await first.send('POST', '/api/clubs/', { name: `Full Disk ${i}`, description: description(i) })
        if (res.status === 201) {
          acknowledged.push(`full-disk-${i}`)
          continue
        }
        expect(res.status).toBe(503)
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/)
        refused.push(`full-disk-${i}`)
        const ready = await first.send('GET', '/readyz')
        expect([ready.status, await readJson(ready)]).toEqual([
          503,
          { status: 'unavailable', reason: 'the last write failed: no space left on the disk (ENOSPC)' },
        ])
        expect(leftovers(dir)).toEqual([])
        // The file on disk is whole at every moment, not only after a restart.
        expect(snapshotProblem(directoryOnDisk(dataFile))).toBeNull()
      }
      expect(refused.length).toBeGreaterThan(0)

      // Room again: the next write lands and /readyz is ok.
      rmSync(join(dir, 'filler'))
      expect((await first.send('PATCH', `/api/clubs/mock-trial/`, { subtitle: 'Room again' })).status).toBe(200)
      expect((await first.send('GET', '/readyz')).status).toBe(200)

      // A crash, then a restart: the file loads, with every acknowledged write.
      first.proc.kill('SIGKILL')
      await first.proc.exited
      const log = await new Response(first.proc.stdout as ReadableStream).text()
      const failures = log
        .split('\n')
        .filter((line) => line.includes('data file write failed'))
        .map((line) => JSON.parse(line))
      expect(failures.length).toBeGreaterThan(0)
      expect(failures[0]).toMatchObject({
        level: 'error',
        file: dataFile,
        reason: 'no space left on the disk (ENOSPC)',
      })
      const recovered = log.split('\n').filter((line) => line.includes('data file writes land again'))
      expect(recovered.map((line) => JSON.parse(line))).toEqual([
        expect.objectContaining({ level: 'warn', file: dataFile }),
      ])

      const onDisk = directoryOnDisk(dataFile)
      expect(
        acknowledged.filter((code) => clubOf(onDisk, code)?.description !== description(Number(code.split('-').pop()))),
      ).toEqual([])
      expect(refused.filter((code) => clubOf(onDisk, code))).toEqual([])
      const again = await start(dataFile)
      for (const code of acknowledged) {
        const res = await again.send('GET', `/api/clubs/${code}/`)
        expect({ code, status: res.status }).toEqual({ code, status: 200 })
        expect((await readJson(res)).description).toBe(description(Number(code.split('-').pop())))
      }
      for (const code of refused) expect((await again.send('GET', `/api/clubs/${code}/`)).status).toBe(404)
      expect((await readJson(await again.send('GET', '/api/clubs/mock-trial/'))).subtitle).toBe('Room again')
      // A clean stop writes the snapshot whole, keeping the one before it as the backup.
      const replayed = readFileSync(dataFile, 'utf8')
      again.proc.kill('SIGTERM')
      expect(await again.proc.exited).toBe(0)
      expect(readFileSync(`${dataFile}.bak`, 'utf8')).toBe(replayed)
      const whole = JSON.parse(readFileSync(dataFile, 'utf8'))
      expect(snapshotProblem(whole)).toBeNull()
      expect(acknowledged.filter((code) => !clubOf(whole, code))).toEqual([])
      expect(leftovers(dir)).toEqual([])
    },
    60_000,
  )

  it.skipIf(SKIP_TMPFS)(
    'a disk that fills during a compaction: each write lands or is refused whole, none acknowledged is lost, the temp file goes, and with room again the compaction lands',
    async () => {
      const dir = freshTmpfs()
      const dataFile = join(dir, 'db.json')
      const temp = join(dir, '.db.json.tmp')
      const journal = join(dir, 'db.json.journal')
      const JOURNAL_BYTES = 16 * 1024
      const env = { CLUBS_JOURNAL_BYTES: String(JOURNAL_BYTES) }
      // A snapshot far larger than what the disk will have left: ten clubs with their longest texts.
      const first = await start(dataFile, env)
      const long = (i: number) => `Big ${i}. `.padEnd(10_000, 'x')
      for (let i = 0; i < 10; i++)
        expect(
          (
            await first.send('POST', '/api/clubs/', {
              name: `Big ${i}`,
              description: long(i),
              how_to_get_involved: long(i),
            })
          ).status,
        ).toBe(201)
      first.proc.kill('SIGTERM')
      expect(await first.proc.exited).toBe(0)

      const second = await start(dataFile, env)
      const snapshot = readFileSync(dataFile, 'utf8')
      expect(snapshot.length).toBeGreaterThan(250_000)
      // A compaction replaces <file>.bak, freeing the older snapshot it held: without it the disk is simply full.
      rmSync(`${dataFile}.bak`)
      fillUp(join(dir, 'filler'), 64 * 1024)
      // Small writes: the journal passes its size within a few, and the compaction it starts runs out of room.
      let last = ''
      const refused: string[] = []
      for (let i = 0; i < 40; i++) {
        const subtitle = `During ${i}`
        const res = await second.send('PATCH', '/api/clubs/mock-trial/', { subtitle })
        if (res.status === 200) {
          last = subtitle
          continue
        }
        expect({ subtitle, status: res.status }).toEqual({ subtitle, status: 503 })
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/)
        refused.push(subtitle)
        expect((await readJson(await second.send('GET', '/api/clubs/mock-trial/'))).subtitle).toBe(last)
      }
      expect(statSync(journal).size).toBeGreaterThan(JOURNAL_BYTES)
      expect(refused.length).toBeGreaterThan(0)
      // The failed compaction takes its temp file away (it may still be writing it now).
      while (existsSync(temp)) await sleep(20)
      expect(leftovers(dir)).toEqual([])
      expect(readFileSync(dataFile, 'utf8')).toBe(snapshot)
      expect(clubOf(directoryOnDisk(dataFile), 'mock-trial').subtitle).toBe(last)

      // Room again: the compaction is tried again a while later, lands, and the journal is cut.
      rmSync(join(dir, 'filler'))
      const grown = statSync(journal).size
      for (let i = 0; statSync(journal).size >= grown; i++) {
        const subtitle = `Room again ${i}`
        expect((await second.send('PATCH', '/api/clubs/mock-trial/', { subtitle })).status).toBe(200)
        last = subtitle
        await sleep(200)
      }
      const compacted = JSON.parse(readFileSync(dataFile, 'utf8'))
      expect(snapshotProblem(compacted)).toBeNull()
      expect(compacted.journal_commits).toBeGreaterThan(JSON.parse(snapshot).journal_commits)
      expect(existsSync(temp)).toBe(false)

      second.proc.kill('SIGKILL')
      await second.proc.exited
      expect(clubOf(directoryOnDisk(dataFile), 'mock-trial').subtitle).toBe(last)
      const again = await start(dataFile, env)
      expect((await readJson(await again.send('GET', '/api/clubs/mock-trial/'))).subtitle).toBe(last)
      for (const subtitle of refused) expect(subtitle).not.toBe(last)
      for (let i = 0; i < 10; i++)
        expect((await readJson(await again.send('GET', `/api/clubs/big-${i}/`))).description).toBe(long(i))
    },
    60_000,
  )

  it.skipIf(SKIP_TMPFS)('a failed backup copy leaves no temp file and no partial backup behind', async () => {
    const dir = freshTmpfs()
    const source = join(tempDir(), 'db.json')
    await Bun.write(source, readFileSync(join(import.meta.dir, '..', 'data', 'seed.json')))
    fillUp(join(dir, 'filler'), 8 * 1024)
    expect(copySnapshot(source, dir, 'backup')).rejects.toMatchObject({ code: 'ENOSPC' })
    await sleep(0)
    expect(readdirSync(dir)).toEqual(['filler'])
  })

  it.skipIf(SKIP_TMPFS)('periodic backups log each one written, and each failed, leaving no temp file', async () => {
    const dir = freshTmpfs()
    const backupDir = join(dir, 'backups')
    const service = await start(join(tempDir(), 'db.json'), {
      CLUBS_BACKUP_DIR: backupDir,
      CLUBS_BACKUP_INTERVAL: '1s',
      CLUBS_LOG_LEVEL: 'info',
    })
    fillUp(join(dir, 'filler'), 8 * 1024)
    await sleep(1_500)
    // No snapshot and no temp file; the logos the backups share may be there already, each whole.
    const leftInLogos = () =>
      existsSync(join(backupDir, 'logos'))
        ? readdirSync(join(backupDir, 'logos')).filter((n) => !n.endsWith('.webp'))
        : []
    expect(readdirSync(backupDir).filter((name) => name !== 'logos')).toEqual([])
    expect(leftInLogos()).toEqual([])
    rmSync(join(dir, 'filler'))
    await sleep(1_000)
    service.proc.kill('SIGTERM')
    await service.proc.exited
    const lines = (await new Response(service.proc.stdout as ReadableStream).text())
      .split('\n')
      .filter((line) => line.includes('"msg":"backup'))
      .map((line) => JSON.parse(line))
    expect(lines[0]).toMatchObject({ level: 'error', reason: 'no space left on the disk (ENOSPC)' })
    const written = lines.find((line) => line.msg === 'backup written')
    expect(written).toMatchObject({ level: 'info' })
    expect(readdirSync(backupDir)).toContain(written.path.split('/').pop())
    expect(readdirSync(backupDir).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })

  const reset = (dataFile: string, backupDir: string) =>
    runToEnd([process.execPath, join(ROOT, 'scripts', 'reset.ts')], {
      cwd: ROOT,
      env: { ...process.env, CLUBS_DATA_FILE: dataFile, CLUBS_BACKUP_DIR: backupDir },
    })

  /** A data file on the tmpfs that is no longer the seed, with `freeKib` left. */
  async function changedDataFile(dir: string, freeKib: number) {
    const dataFile = join(dir, 'db.json')
    const service = await start(dataFile)
    expect((await service.send('POST', '/api/clubs/', { name: 'Before The Reset' })).status).toBe(201)
    service.proc.kill('SIGTERM')
    await service.proc.exited
    // Replacing <file>.bak would free the snapshot it holds: without it the disk is simply full.
    rmSync(`${dataFile}.bak`)
    fillUp(join(dir, 'filler'), freeKib * 1024)
    return { dataFile, before: readFileSync(dataFile, 'utf8') }
  }

  it.skipIf(SKIP_TMPFS)('npm run reset with no room for its copy changes nothing and says why', async () => {
    const dir = freshTmpfs()
    const { dataFile, before } = await changedDataFile(dir, 8)
    const run = await reset(dataFile, join(dir, 'backups'))
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('backups: no space left on the disk (ENOSPC); nothing was changed.')
    expect(readFileSync(dataFile, 'utf8')).toBe(before)
    expect(readdirSync(join(dir, 'backups'))).toEqual([])
  })

  it.skipIf(SKIP_TMPFS)('npm run reset with no room for the seed keeps the old data file whole', async () => {
    const dir = freshTmpfs()
    const { dataFile, before } = await changedDataFile(dir, 8)
    const run = await reset(dataFile, join(tempDir(), 'backups'))
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('ENOSPC')
    expect(readFileSync(dataFile, 'utf8')).toBe(before)
    expect(leftovers(dir)).toEqual([])
  })
})
