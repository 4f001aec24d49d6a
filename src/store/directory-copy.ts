import { SQL } from 'bun'
import { existsSync } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import { dirname } from 'node:path'
import { copySnapshot } from './backups'
import { changeFileOf, writeChangeFile, type ReadLog } from './change-file'
import { fsync } from './fsync'
import { acquireLock, lockHolder } from './lock'
import { migrate } from './postgres-schema'
import { insertSnapshot, PostgresStore, shownUrl } from './postgres-store'
import type { RecordKeys } from './change-set'
import { journalFileOf } from './journal-file'
import { openSecretKey, writeSecretKey } from './secret-key'
import { SnapshotFile } from './snapshot-file'
import { lockFileOf, Store, type SnapshotCheck } from './store'
import type { SnapshotShape } from './snapshot-text'

/**
 * A whole directory as it moves between a data file and a database (npm run data:copy, reset):
 * every collection, the change log with what was trimmed from it (followers' numbers stay
 * valid), and the secret key (calendar addresses keep working).
 */
export interface WholeDirectory {
  readonly data: SnapshotShape
  readonly log: ReadLog
  readonly key: Uint8Array
}

/** What a database held before it was replaced. */
export interface HeldDirectory {
  readonly clubs: number
  /** The highest change number it handed out. */
  readonly seq: number
  readonly key: Uint8Array
}

/** A copy refused before anything was written: the message says why. */
export class CopyRefused extends Error {}

/** Whether `where` names a database (postgres://…) rather than a data file. */
export const isDatabaseUrl = (where: string) => /^postgres(ql)?:\/\//i.test(where)

/** The directory in a data file (its snapshot and its journal), which no running server may hold (it could write while this reads). */
export async function readDataFileDirectory(
  file: string,
  { check, keys }: { check: SnapshotCheck; keys: RecordKeys },
): Promise<WholeDirectory> {
  const holder = lockHolder(lockFileOf(file))
  if (holder !== null) throw new CopyRefused(`${file} is in use by a running server (${holder}); stop it first`)
  const { store, data, log } = await Store.open(
    file,
    () => Promise.reject(new CopyRefused(`${file} does not exist`)),
    check,
    { readOnly: true, keys },
  )
  await store.close()
  // The copy is another data file: it starts a journal of its own.
  const { journal_id: _, journal_commits: __, ...whole } = data as SnapshotShape & Record<string, unknown>
  return { data: whole as SnapshotShape, log, key: await openSecretKey(file, { readOnly: true }) }
}

/**
 * Writes `directory` as the data file `file`, its change log and its key, holding the file's lock
 * (no server starts on it meanwhile). A file there is refused unless `replace`: then it is kept
 * first beside it as `<name>-<kind>-<time>.json` (with its journal), answered. The data file is
 * written last: it vouches for the change log, so a copy cut short leaves no data file naming
 * events it lacks; the journal of the one it replaces goes first (it no longer goes on from it).
 */
export async function writeDataFileDirectory(
  file: string,
  directory: WholeDirectory,
  { replace = false, kind = 'replaced' } = {},
): Promise<{ kept: string | null }> {
  await mkdir(dirname(file), { recursive: true })
  const lock = acquireLock(lockFileOf(file))
  if ('heldBy' in lock) throw new CopyRefused(`${file} is in use by a running server (${lock.heldBy}); stop it first`)
  try {
    const exists = existsSync(file)
    if (exists && !replace)
      throw new CopyRefused(`${file} already holds a directory; give --replace to replace it (a copy of it is kept)`)
    const kept = exists ? await copySnapshot(file, dirname(file), kind, new Date(), { withJournal: true }) : null
    await rm(journalFileOf(file), { force: true })
    await writeSecretKey(file, directory.key)
    await writeChangeFile(changeFileOf(file), directory.log.lines, directory.log.trimmedUpTo, directory.log.issued)
    await new SnapshotFile(file).write(directory.data)
    await fsync(dirname(file))
    return { kept }
  } finally {
    lock.release()
  }
}

/** The directory in a database, read in one consistent view: servers may be writing to it meanwhile. */
export async function readDatabaseDirectory(
  url: string,
  { check, keys }: { check: SnapshotCheck; keys: RecordKeys },
): Promise<WholeDirectory> {
  const sql = connect(url)
  try {
    if (!(await heldIn(sql))) throw new CopyRefused(`${shownUrl(url)} holds no club directory`)
  } finally {
    await sql.close()
  }
  const { store, data, log, key } = await PostgresStore.open(
    url,
    () => Promise.reject(new Error('unreachable')),
    check,
    { readOnly: true, keys },
  )
  await store.close()
  return { data, log, key }
}

/**
 * Writes `make(held)` as the database's whole directory, its records under `keys`, in one
 * transaction (`held`: what it held, null for none; `make` may refuse). A directory there is replaced only with `replace`, and
 * only while nothing else is connected to the database: a running instance would keep serving
 * what it holds in memory. Answers what was replaced.
 */
export async function writeDatabaseDirectory(
  url: string,
  keys: RecordKeys,
  make: (held: HeldDirectory | null) => WholeDirectory | Promise<WholeDirectory>,
  { replace = false } = {},
): Promise<HeldDirectory | null> {
  const sql = connect(url)
  try {
    const held = await heldIn(sql)
    if (held && !replace)
      throw new CopyRefused(
        `${shownUrl(url)} already holds a directory (${held.clubs} clubs); give --replace to replace it`,
      )
    if (held) await refuseWhileConnected(sql, url)
    let written = false
    await migrate(sql, async (tx) => {
      const { data, log, key } = await make(null)
      await insertSnapshot(tx, data, { keys, log, key })
      written = true
    })
    if (written) return null
    if (!replace)
      throw new CopyRefused(`${shownUrl(url)} was given a directory while this copy ran; nothing was written`)
    return await sql.begin(async (tx) => {
      const [meta] = await tx`SELECT rev FROM club_directory_meta WHERE id = 1 FOR UPDATE`
      const now = (await heldIn(tx))!
      const { data, log, key } = await make(now)
      await tx`DELETE FROM club_directory_records`
      await tx`DELETE FROM club_directory_revisions`
      await tx`DELETE FROM club_directory_changes`
      await tx`DELETE FROM club_directory_meta`
      await insertSnapshot(tx, data, { keys, log, key })
      // A revision past every one held, and none kept: an instance that reads it reads every record again.
      await tx`UPDATE club_directory_meta SET rev = ${Number(meta.rev) + 1} WHERE id = 1`
      return now
    })
  } finally {
    await sql.close()
  }
}

/** One connection is all a copy needs; it counts as one when looking for others. */
const connect = (url: string) => new SQL(url, { max: 1, connectionTimeout: 10 })

/** What the database holds, or null when it holds no directory (no tables, or no meta row). */
async function heldIn(sql: SQL): Promise<HeldDirectory | null> {
  const [{ tables }] = await sql`SELECT to_regclass('club_directory_meta') IS NOT NULL AS tables`
  if (!tables) return null
  const [meta] = await sql`
    SELECT seq, secret_key, (SELECT count(*)::int FROM club_directory_records WHERE collection = 'clubs') AS clubs
    FROM club_directory_meta WHERE id = 1`
  return meta ? { clubs: meta.clubs, seq: Number(meta.seq), key: new Uint8Array(meta.secret_key) } : null
}

/** How long connections just closed may still be listed (their backends are ending). */
const CLOSING_MS = 2_000

/** Refuses while other sessions use the database: the service's instances, most likely. */
async function refuseWhileConnected(sql: SQL, url: string): Promise<void> {
  const until = performance.now() + CLOSING_MS
  for (;;) {
    const others = await sql`
      SELECT coalesce(nullif(client_addr::text, ''), 'local socket') AS address, count(*)::int AS connections
      FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
      GROUP BY 1 ORDER BY 1`
    if (!others.length) return
    if (performance.now() > until) {
      const from = others.map((o: { address: string; connections: number }) => `${o.connections} from ${o.address}`)
      throw new CopyRefused(
        `${shownUrl(url)} is in use (${from.join(', ')} connections): the service's instances keep the directory in memory; stop them first`,
      )
    }
    await Bun.sleep(100)
  }
}
