import type { SQL } from 'bun'

/**
 * The database's tables, one migration per version, applied in order at start (one instance at a
 * time, under an advisory lock) and never changed once released: a later release adds one.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: the directory's records, one row each, and the one row that orders every write.
  `CREATE TABLE club_directory_meta (
     id int PRIMARY KEY CHECK (id = 1),
     format int NOT NULL,
     collections json NOT NULL,
     rev bigint NOT NULL,
     seq bigint NOT NULL,
     trimmed_up_to bigint NOT NULL,
     secret_key bytea NOT NULL
   );
   CREATE TABLE club_directory_records (
     collection text NOT NULL,
     key text NOT NULL,
     doc json NOT NULL,
     born bigint NOT NULL,
     pos int NOT NULL,
     PRIMARY KEY (collection, key)
   );`,
  // 2: what each write changed, for the other instances to apply, and the public change log (docs/reference.md §18).
  `CREATE TABLE club_directory_revisions (rev bigint PRIMARY KEY, changes json NOT NULL);
   CREATE TABLE club_directory_changes (seq bigint PRIMARY KEY, type text NOT NULL, event text NOT NULL);`,
  // 3: club logos (docs/reference.md §21), every size of each, for every instance to serve.
  `CREATE TABLE club_directory_logos (
     name text NOT NULL,
     size text NOT NULL,
     bytes bytea NOT NULL,
     kept_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (name, size)
   );`,
]

/** The advisory lock key migrations and the first seeding run under (any number; fixed). */
const MIGRATION_LOCK = 7_240_318_001

/**
 * Brings the database's tables up to this release's version, and runs `firstStart` once on a
 * database that had none (under the same lock, so two instances starting at once seed it once).
 * Answers the version the database was at. A database newer than this release is refused.
 */
export async function migrate(sql: SQL, firstStart: (tx: SQL) => Promise<void>): Promise<number> {
  const conn = await sql.reserve()
  try {
    await conn`SELECT pg_advisory_lock(${MIGRATION_LOCK})`
    try {
      await conn`CREATE TABLE IF NOT EXISTS club_directory_migrations (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`
      const [{ version }] = await conn`SELECT coalesce(max(version), 0)::int AS version FROM club_directory_migrations`
      if (version > MIGRATIONS.length)
        throw new Error(
          `its tables are at version ${version}, newer than this release knows (${MIGRATIONS.length}); run the newer release`,
        )
      for (let next = version + 1; next <= MIGRATIONS.length; next++)
        await conn.begin(async (tx) => {
          await tx.unsafe(MIGRATIONS[next - 1]!)
          await tx`INSERT INTO club_directory_migrations (version) VALUES (${next})`
        })
      const [seeded] = await conn`SELECT 1 FROM club_directory_meta`
      if (!seeded) await conn.begin((tx) => firstStart(tx))
      return version
    } finally {
      await conn`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`
    }
  } finally {
    conn.release()
  }
}
