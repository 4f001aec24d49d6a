import { SQL, type ReservedSQL } from 'bun'
import { AsyncLocalStorage } from 'node:async_hooks'
import { randomBytes } from 'node:crypto'
import type { LogLine, ReadLog } from './change-file'
import { LogoRows } from './logo-rows'
import { migrate } from './postgres-schema'
import { recordText } from './snapshot-text'
import { StoreError, type LogSource, type SnapshotCheck } from './store'
import type { SnapshotShape } from './snapshot-text'
import type { Applied, ChangeSet, RecordKeys, TakeChanges } from './change-set'

/** The change log as a shared store sees it: events other instances committed. */
export interface SharedLog extends LogSource {
  /** Takes in events another instance committed, oldest first. */
  adopt(lines: readonly LogLine[]): void
  /** Numbers on from `seq`, the highest the database holds. */
  resumeAt(seq: number): void
  /** Announces what was taken in. */
  publish(): void
}

/** One collection of the snapshot: each record's key, how one committed elsewhere is put in place, and what changed here. */
export interface Collection {
  key(record: object): string
  put(key: string, record: object | null): void
  changed(): unknown
}
export type Replica = { readonly [collection: string]: Collection }

/** How long any one query may take before the connection is given up (a lost connection can hang one). */
const QUERY_TIMEOUT_MS = 5_000
/** How long reading or loading the whole directory may take (a start, a copy, reading every record again): 100,000 clubs take seconds. */
const START_TIMEOUT_MS = 300_000
/** How often each instance looks for writes it was not told of (a notification lost in a reconnect). */
const POLL_MS = 500
/** How often an instance that does not send webhooks asks to (the one that did may have stopped). */
const LEADER_CHECK_MS = 2_000
/** Revisions kept for instances catching up; one further behind reads every record again. */
const KEPT_REVISIONS = 10_000
const CHANNEL = 'club_directory'
/** The advisory lock the one instance that sends webhooks holds (any number; fixed). */
const WEBHOOK_LOCK = 7_240_318_002

/** A write under way: the connection holding the write lock, and the highest change number the database held. */
interface Scope {
  conn: ReservedSQL | null
  /** Every event at or below this number is no longer kept in the database. */
  trimmedUpTo: number
}

/** A query that took longer than QUERY_TIMEOUT_MS. */
class QueryTimeout extends Error {
  readonly code = 'ETIMEDOUT'
  constructor(ms: number) {
    super(`the database did not answer within ${ms / 1000} s`)
  }
}

/**
 * The directory in PostgreSQL (docs/reference.md §19), shared by any number of instances. Each instance
 * keeps the whole directory in memory and answers reads from it; a write takes the one meta row's
 * lock, applies what other instances committed first, runs, and commits the records it changed,
 * the revision other instances apply, and its numbered events, in one transaction. Instances are
 * woken by NOTIFY and also poll, so a lost notification delays a change and never loses it.
 */
export class PostgresStore {
  #sql: SQL
  #capture: () => SnapshotShape = () => {
    throw new Error('store: nothing to save; call track() first')
  }
  #log: SharedLog | null = null
  #replica: Replica = {}
  #take: TakeChanges = () => ({ records: [], refused() {} })
  /** The highest revision applied here. */
  #rev: number
  /** The highest change number committed or taken in here. */
  #seq: number
  #turn: Promise<void> = Promise.resolve()
  readonly #scopes = new AsyncLocalStorage<Scope>()
  #problem: string | null = null
  #timers: ReturnType<typeof setInterval>[] = []
  #leader: ReservedSQL | null = null
  #leaderAsked = -Infinity
  #closed = false
  #polling = false
  /** Told of each write: how long it took (seconds), and why it failed (null when it landed). */
  onWrite: ((seconds: number, failure: Error | null) => void) | null = null
  /** Never told: the database keeps every record as it is written, with no snapshot to write. */
  onSnapshot: ((failure: Error | null) => void) | null = null

  private constructor(
    private readonly url: string,
    sql: SQL,
    { rev, seq }: { rev: number; seq: number },
    private readonly readOnly: boolean,
  ) {
    this.#sql = sql
    this.#rev = rev
    this.#seq = seq
  }

  /** The database, as logs may name it: no password. */
  get file(): string {
    return shownUrl(this.url)
  }

  /**
   * Connects, brings the tables up to date, loads `seed` into a database that has no directory
   * yet, and reads the directory. `check` decides what a snapshot is; `keys` names the seed's records.
   */
  static async open<Snapshot extends SnapshotShape>(
    url: string,
    seed: () => Promise<Snapshot>,
    check: SnapshotCheck,
    { readOnly = false, keys }: { readOnly?: boolean; keys: RecordKeys },
  ) {
    const sql = connect(url)
    const named = shownUrl(url)
    const fail = (e: unknown): never => {
      void sql.close({ timeout: 0 })
      if (e instanceof StoreError) throw e
      throw new StoreError(named, (e as Error).message)
    }
    let seeded = false
    try {
      await timed(
        migrate(sql, async (tx) => {
          if (readOnly) throw new Error('it holds no directory yet, and a read-only instance writes none')
          await insertSnapshot(tx, await seed(), { keys })
          seeded = true
        }),
        START_TIMEOUT_MS,
      )
    } catch (e) {
      fail(e)
    }
    const loaded = await timed(readDirectory(sql), START_TIMEOUT_MS).catch(fail)
    const problem = check(loaded.data)
    if (problem) fail(new StoreError(named, `it does not hold a club directory (${problem})`))
    const store = new PostgresStore(url, sql, loaded, readOnly)
    return {
      store,
      data: loaded.data as Snapshot,
      log: loaded.log,
      key: loaded.key,
      source: seeded ? ('seed' as const) : ('file' as const),
    }
  }

  /** Names the state to capture, its change log, and its collections; starts following the other instances. */
  track(capture: () => SnapshotShape, log: SharedLog, replica: Replica, take: TakeChanges): void {
    this.#capture = capture
    this.#log = log
    this.#replica = replica
    this.#take = take
    void this.#listen()
    if (!this.readOnly) void this.#claimWebhooks()
    this.#timers.push(setInterval(() => void this.#poll(), POLL_MS))
    for (const timer of this.#timers) timer.unref()
  }

  /** Club logos, kept in the database for every instance. */
  readonly logos = new LogoRows(() => this.#sql)

  /**
   * Whether this instance is the one that sends webhook deliveries (each is sent by one instance).
   * Asked while deliveries wait; until it is, it asks the database again (the one that was may have stopped).
   */
  get sendsWebhooks(): boolean {
    if (!this.#leader && !this.readOnly && performance.now() - this.#leaderAsked >= LEADER_CHECK_MS) {
      this.#leaderAsked = performance.now()
      void this.#claimWebhooks()
    }
    return this.#leader !== null
  }

  /** No file for a backup to copy: the database's own backups keep it. */
  readonly backedUpFile = null

  /**
   * Not before the app opens it: the database takes the directory it opened as committed, so a
   * change made before would stay in this instance's memory only.
   */
  readonly savesBeforeOpening = false

  /** Refuses: see savesBeforeOpening. */
  saveOpened(): Promise<void> {
    return Promise.reject(new Error('store: PostgreSQL keeps the directory it opened; change it through the app'))
  }

  /** Not replaced whole in place: other instances share the database (stop them all and run npm run reset). */
  readonly resettable = false

  /** Refuses: see resettable. */
  restartLog(): Promise<void> {
    return Promise.reject(
      new Error('store: a PostgreSQL change log is not restarted in place; stop every instance and run npm run reset'),
    )
  }

  /** Why writes cannot be made now, in words (readiness, docs/reference.md §17); null when they can. */
  get writeProblem(): string | null {
    return this.#problem
  }

  /** Commits whatever changed in memory since the last write. */
  async save(): Promise<void> {
    await this.commit(() => {
      const taken = this.#take()
      return { undo: [() => taken.refused()], changes: { records: taken.records, events: [] } }
    })
  }

  /**
   * Runs a request's `work` holding the write lock, with every other instance's writes applied
   * first: what it checks is what it changes. Its first `commit` commits.
   */
  exclusive = async <T>(work: () => Promise<T>): Promise<T> => {
    if (this.#scopes.getStore()) return work()
    const done = await this.#takeTurn()
    const scope: Scope = { conn: null, trimmedUpTo: 0 }
    try {
      await this.#begin(scope)
      return await this.#scopes.run(scope, work)
    } finally {
      await this.#end(scope)
      done()
    }
  }

  /** Applies `apply` in memory under the write lock and commits its change set; on failure, takes it back. */
  commit = async (apply: () => Applied): Promise<void> => {
    const scope = this.#scopes.getStore()
    if (!scope) return this.exclusive(() => this.commit(apply))
    if (!scope.conn) await this.#begin(scope)
    const { undo, changes } = apply()
    const started = performance.now()
    try {
      await this.#commit(scope, changes)
      this.#problem = null
      this.onWrite?.((performance.now() - started) / 1000, null)
    } catch (error) {
      for (const step of undo.reverse()) step()
      this.#fault(error)
      this.onWrite?.((performance.now() - started) / 1000, error as Error)
      throw error
    }
  }

  /** Stops following the others, waits for the write under way, and closes the connections. */
  async close(): Promise<void> {
    this.#closed = true
    for (const timer of this.#timers) clearInterval(timer)
    await this.#takeTurn().then((done) => done())
    this.#leader?.release()
    await this.#sql.close({ timeout: 1 })
  }

  /** Waits for this instance's turn to write or apply; answers how to pass it on. */
  async #takeTurn(): Promise<() => void> {
    let done!: () => void
    const previous = this.#turn
    this.#turn = new Promise((resolve) => (done = resolve))
    await previous
    return done
  }

  /** Takes the write lock in a new transaction and applies what other instances committed meanwhile. */
  async #begin(scope: Scope): Promise<void> {
    try {
      const conn = (scope.conn = await timed(this.#sql.reserve()))
      await timed(conn`BEGIN`)
      const [meta] = await timed(conn`SELECT rev, seq, trimmed_up_to FROM club_directory_meta WHERE id = 1 FOR UPDATE`)
      await this.#catchUp(conn, meta)
      scope.trimmedUpTo = Number(meta.trimmed_up_to)
      this.#log!.resumeAt(this.#seq)
    } catch (error) {
      this.#fault(error)
      this.onWrite?.(0, error as Error)
      throw error
    }
  }

  /** Gives the write lock back: a transaction left open (the work wrote nothing) is rolled back. */
  async #end(scope: Scope): Promise<void> {
    const conn = scope.conn
    if (!conn) return
    scope.conn = null
    await timed(conn`ROLLBACK`).catch(() => undefined)
    conn.release()
  }

  /** Writes a write's change set (records, revision, events) and commits; nothing when it changed nothing. */
  async #commit(scope: Scope, { records, events }: ChangeSet): Promise<void> {
    const conn = scope.conn!
    scope.conn = null
    try {
      const rows: Row[] = records.map(([collection, key, record]) => ({
        collection,
        key,
        text: record && recordText(record),
      }))
      if (!rows.length && !events.length) {
        await timed(conn`ROLLBACK`)
        return
      }
      const rev = this.#rev + 1
      const seq = events.at(-1)?.seq ?? this.#seq
      const written = rows.filter((row) => row.text !== null)
      const gone = rows.filter((row) => row.text === null)
      if (rev % 1000 === 0) await timed(conn`DELETE FROM club_directory_revisions WHERE rev <= ${rev - KEPT_REVISIONS}`)
      if (seq - scope.trimmedUpTo > 2 * this.#log!.keep) await timed(this.#trimChanges(conn, seq))
      // One statement, one round trip: the records, their deletions, the events, the revision, the meta row, the wake-up.
      await timed(conn`
        WITH written AS (
          INSERT INTO club_directory_records (collection, key, doc, born, pos)
          SELECT c, k, d::json, ${rev}, p
          FROM unnest(${written.map((r) => r.collection)}::text[], ${written.map((r) => r.key)}::text[], ${written.map((r) => r.text)}::text[]) WITH ORDINALITY AS t(c, k, d, p)
          ON CONFLICT (collection, key) DO UPDATE SET doc = EXCLUDED.doc
          RETURNING 1
        ), gone AS (
          DELETE FROM club_directory_records r
          USING unnest(${gone.map((r) => r.collection)}::text[], ${gone.map((r) => r.key)}::text[]) AS t(c, k)
          WHERE r.collection = t.c AND r.key = t.k
          RETURNING 1
        ), numbered AS (
          INSERT INTO club_directory_changes (seq, type, event)
          SELECT * FROM unnest(${events.map((e) => e.seq)}::bigint[], ${events.map((e) => e.type)}::text[], ${events.map((e) => e.text)}::text[])
          RETURNING 1
        ), revision AS (
          INSERT INTO club_directory_revisions (rev, changes) VALUES (${rev}, ${revisionText(rows)}::text::json)
          RETURNING 1
        ), meta AS (
          UPDATE club_directory_meta SET rev = ${rev}, seq = ${seq} WHERE id = 1
          RETURNING 1
        )
        SELECT pg_notify(${CHANNEL}, ${`${rev} ${seq}`})`)
      await timed(conn`COMMIT`)
      this.#rev = rev
      this.#seq = seq
    } catch (error) {
      await timed(conn`ROLLBACK`).catch(() => undefined)
      throw error
    } finally {
      conn.release()
    }
  }

  /** Keeps the newest `keep` events at least, once twice as many are kept. */
  async #trimChanges(conn: ReservedSQL, seq: number): Promise<void> {
    const upTo = seq - this.#log!.keep
    await conn`DELETE FROM club_directory_changes WHERE seq <= ${upTo}`
    await conn`UPDATE club_directory_meta SET trimmed_up_to = ${upTo} WHERE id = 1`
  }

  /**
   * Applies every revision other instances committed after ours, up to `meta`'s (read in the same
   * view), and takes in their events; when those revisions are no longer kept, every record.
   */
  async #catchUp(conn: SQL, meta: { rev: unknown; seq: unknown }): Promise<void> {
    const upTo = Number(meta.rev)
    if (upTo <= this.#rev) return
    const revisions = await timed(
      conn`SELECT rev, changes::text AS changes FROM club_directory_revisions WHERE rev > ${this.#rev} AND rev <= ${upTo} ORDER BY rev`,
    )
    const touched =
      Number(revisions[0]?.rev) === this.#rev + 1 && revisions.length === upTo - this.#rev
        ? this.#applyRows(revisions.flatMap(({ changes }: { changes: string }) => JSON.parse(changes) as RemoteRow[]))
        : await this.#differences(conn)
    const events = await timed(
      conn`SELECT seq, type, event FROM club_directory_changes WHERE seq > ${this.#seq} AND seq <= ${meta.seq} ORDER BY seq`,
    )
    this.#log!.resumeAt(this.#seq)
    this.#log!.adopt(events.map(lineOf))
    this.#rev = upTo
    this.#seq = Number(meta.seq)
    this.#absorb(touched)
    this.#log!.publish()
  }

  /** Reads every record again and puts in memory each that differs (an instance further behind than the kept revisions). */
  async #differences(conn: SQL): Promise<Set<string>> {
    const records = await timed(
      conn`SELECT collection, key, doc::text AS doc FROM club_directory_records ORDER BY born, pos`,
      START_TIMEOUT_MS,
    )
    const held = new Map<string, Map<string, string>>()
    for (const [collection, records] of collectionsOf(this.#capture())) {
      const keyOf = this.#replica[collection]?.key
      if (keyOf) held.set(collection, new Map(records.map((record) => [keyOf(record), recordText(record)])))
    }
    const rows: RemoteRow[] = []
    for (const { collection, key, doc } of records) {
      const mine = held.get(collection)
      if (mine?.get(key) !== doc) rows.push([collection, key, JSON.parse(doc)])
      mine?.delete(key)
    }
    for (const [collection, keys] of held) for (const key of keys.keys()) rows.push([collection, key, null])
    return this.#applyRows(rows)
  }

  /** Puts rows other instances committed in memory, in the replica's order of collections (tags before the clubs naming them); answers the collections touched. */
  #applyRows(rows: readonly RemoteRow[]): Set<string> {
    const touched = new Set(rows.map(([collection]) => collection))
    for (const collection of Object.keys(this.#replica))
      if (touched.has(collection))
        for (const [named, key, record] of rows) if (named === collection) this.#replica[collection]!.put(key, record)
    return touched
  }

  /** Takes what changed in the `touched` collections (others' records, put in place) as committed, not as changes of this instance's. */
  #absorb(touched: ReadonlySet<string>): void {
    for (const collection of touched) this.#replica[collection]?.changed()
  }

  /** Applies what others committed, when woken or on the poll; also notes whether the database answers. */
  async #poll(): Promise<void> {
    // One at a time: on a busy instance a poll may outlast the interval.
    if (this.#closed || this.#polling) return
    this.#polling = true
    try {
      const [meta] = await timed(this.#sql`SELECT rev, seq FROM club_directory_meta WHERE id = 1`)
      this.#problem = null
      if (Number(meta.rev) > this.#rev) await this.#follow(meta)
    } catch (error) {
      this.#fault(error)
    } finally {
      this.#polling = false
    }
  }

  /** Applies the other instances' revisions up to `meta`'s, in this instance's turn (never in the middle of a write). */
  async #follow(meta: { rev: unknown; seq: unknown }): Promise<void> {
    const done = await this.#takeTurn()
    try {
      await this.#catchUp(this.#sql, meta)
    } finally {
      done()
    }
  }

  async #listen(): Promise<void> {
    try {
      // A notification says the revision and the change number it committed: no query to learn them.
      await this.#sql.listen(CHANNEL, (payload) => {
        const [rev, seq] = payload.split(' ').map(Number)
        if (rev! > this.#rev) void this.#follow({ rev, seq }).catch((error) => this.#fault(error))
      })
    } catch (error) {
      // The poll still follows; the listen is tried again with the next connection.
      this.#fault(error)
    }
  }

  /** Becomes the instance that sends webhooks when none is (a session lock: it goes with a lost connection). */
  async #claimWebhooks(): Promise<void> {
    if (this.#leader || this.#closed) return
    let conn: ReservedSQL | null = null
    try {
      conn = await timed(this.#sql.reserve())
      const [{ held }] = await timed(conn`SELECT pg_try_advisory_lock(${WEBHOOK_LOCK}) AS held`)
      if (held) {
        this.#leader = conn
        return
      }
    } catch {
      // Asked again shortly.
    }
    conn?.release()
  }

  /** Notes a database failure for readiness; a query that hung gives up every connection for new ones. */
  #fault(error: unknown): void {
    this.#problem = `the database cannot be reached: ${describe(error)}`
    // The advisory lock went with the connection if the database did: another instance may send now.
    void this.#leader?.close().catch(() => undefined)
    this.#leader = null
    if (error instanceof QueryTimeout && !this.#closed) {
      const old = this.#sql
      this.#sql = connect(this.url)
      void old.close({ timeout: 0 }).catch(() => undefined)
      void this.#listen()
    }
  }
}

interface Row {
  readonly collection: string
  readonly key: string
  /** The record's JSON text; null when it is gone. */
  readonly text: string | null
}

const connect = (url: string) => new SQL(url, { max: 8, idleTimeout: 60, connectionTimeout: 5 })

/** A database URL as logs and messages may show it: no password. */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url)
    parsed.password = ''
    return parsed.href
  } catch {
    return 'the database URL'
  }
}

/** `promise`, or a QueryTimeout once it took QUERY_TIMEOUT_MS. */
function timed<T>(promise: PromiseLike<T>, ms = QUERY_TIMEOUT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout>
  return Promise.race([
    Promise.resolve(promise),
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new QueryTimeout(ms)), ms))),
  ]).finally(() => clearTimeout(timer))
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown }).code
  const message = error instanceof Error ? error.message : String(error)
  return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message
}

/** The snapshot's lists of records, by name. */
function collectionsOf(snapshot: SnapshotShape): [string, object[]][] {
  return Object.entries(snapshot as Record<string, unknown>).filter((entry): entry is [string, object[]] =>
    Array.isArray(entry[1]),
  )
}

/** A revision's changes as JSON text: [collection, key, record or null] each, records as their kept text. */
const revisionText = (rows: readonly Row[]) =>
  `[${rows.map((row) => `[${JSON.stringify(row.collection)},${JSON.stringify(row.key)},${row.text ?? 'null'}]`).join(',')}]`

/** A record another instance committed: its collection, its key, and the record (null: gone). */
type RemoteRow = [collection: string, key: string, record: object | null]

const lineOf = (row: { seq: string | number; type: string; event: string }): LogLine => ({
  seq: Number(row.seq),
  type: row.type,
  text: row.event,
})

/** Adds change log events (docs/reference.md §18), as their text. */
const insertChanges = (sql: SQL, lines: readonly LogLine[]) => sql`
  INSERT INTO club_directory_changes (seq, type, event)
  SELECT * FROM unnest(${lines.map((e) => e.seq)}::bigint[], ${lines.map((e) => e.type)}::text[], ${lines.map((e) => e.text)}::text[])`

/**
 * Writes a whole snapshot as revision 0: every record a row under its key (what every later write
 * names it by), in the snapshot's order; with `log`,
 * its events and what was trimmed, and `key` as the secret key (a copy of a directory, which keeps
 * its followers' numbers and its calendar addresses), else a log that starts at the snapshot's
 * number and a new key.
 */
export async function insertSnapshot(
  tx: SQL,
  snapshot: SnapshotShape,
  { keys, log, key = randomBytes(32) }: { keys: RecordKeys; log?: ReadLog; key?: Uint8Array },
): Promise<void> {
  const collections = collectionsOf(snapshot)
  const trimmedUpTo = log?.trimmedUpTo ?? snapshot.changes_seq ?? 0
  const seq = Math.max(snapshot.changes_seq ?? 0, trimmedUpTo, log?.lines.at(-1)?.seq ?? 0, log?.issued ?? 0)
  // The service's secret key (calendar addresses) is the database's, the same for every instance.
  await tx`INSERT INTO club_directory_meta (id, format, collections, rev, seq, trimmed_up_to, secret_key)
           VALUES (1, ${snapshot.version}, ${JSON.stringify(collections.map(([name]) => name))}::text::json, 0, ${seq}, ${trimmedUpTo}, ${key})`
  if (log?.lines.length) await insertChanges(tx, log.lines)
  let pos = 0
  for (const [collection, records] of collections) {
    const named = keys(collection, records)
    for (let i = 0; i < records.length; i += 1000)
      await tx`INSERT INTO club_directory_records (collection, key, doc, born, pos)
               SELECT ${collection}, k, d::json, 0, ${pos} + p FROM unnest(${named.slice(i, i + 1000)}::text[], ${records.slice(i, i + 1000).map(recordText)}::text[]) WITH ORDINALITY AS t(k, d, p)`
    pos += records.length
  }
}

/** The directory as the database holds it, read in one consistent view. */
async function readDirectory(
  sql: SQL,
): Promise<{ data: SnapshotShape; rev: number; seq: number; log: ReadLog; key: Uint8Array }> {
  return sql.begin('isolation level repeatable read read only', async (tx) => {
    const [meta] =
      await tx`SELECT format, collections::text AS collections, rev, seq, trimmed_up_to, secret_key FROM club_directory_meta WHERE id = 1`
    const data: Record<string, unknown> = { version: meta.format }
    for (const name of JSON.parse(meta.collections) as string[]) data[name] = []
    const records = await tx`SELECT collection, doc::text AS doc FROM club_directory_records ORDER BY born, pos`
    for (const { collection, doc } of records) ((data[collection] ??= []) as unknown[]).push(JSON.parse(doc))
    data.changes_seq = Number(meta.seq)
    const events = await tx`SELECT seq, type, event FROM club_directory_changes ORDER BY seq`
    return {
      data: data as unknown as SnapshotShape,
      rev: Number(meta.rev),
      seq: Number(meta.seq),
      key: new Uint8Array(meta.secret_key),
      log: { lines: events.map(lineOf), trimmedUpTo: Number(meta.trimmed_up_to) },
    }
  })
}
