// Copies a whole directory between a data file and a PostgreSQL database (docs/reference.md §19), either
// way, losing nothing: every collection, the change log (followers' numbers stay valid) and the
// secret key (tokens and calendar addresses keep working).
//   npm run data:copy -- <from> <to> [--replace]
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { answerHelp } from '../src/command-help'
import { recordKeys } from '../src/domain/replica'
import { snapshotProblem, upgradeSnapshot } from '../src/domain/snapshot-format'
import { logoNamesOf } from '../src/domain/logos'
import type { Snapshot, StoredSnapshot } from '../src/model/snapshot'
import { copyLogos } from '../src/store/backups'
import {
  CopyRefused,
  isDatabaseUrl,
  readDatabaseDirectory,
  readDataFileDirectory,
  writeDatabaseDirectory,
  writeDataFileDirectory,
  type WholeDirectory,
} from '../src/store/directory-copy'
import { shownUrl } from '../src/store/postgres-store'
import { filesOf, logoDirOf, logoSourceOf } from '../src/store/logo-store'
import { LogoRows } from '../src/store/logo-rows'
import { SQL } from 'bun'
import { StoreError } from '../src/store/store'

const USAGE = 'usage: npm run data:copy -- <from> <to> [--replace]'
answerHelp(`${USAGE}

Copies a whole club directory from <from> to <to>, each a data file (a path) or a PostgreSQL
database: \`database\` for the one CLUBS_DATABASE_URL_FILE (a file holding its URL) or
CLUBS_DATABASE_URL names, which keeps its password off the command line, or its URL
(postgres://user:password@host:5432/database): every club with its approved versions
and history, tags, users with their token hashes (tokens keep working), memberships, favorites,
subscriptions, join requests, sessions, webhooks with their secrets and pending deliveries, the
interested students' entries, the
change log (<file>.changes; followers keep their numbers) and the secret key (<file>.key;
calendar addresses keep working), in this release's format.

A data file being copied must not be in use by a running server (stop it first); a database can
be copied while its instances run (it is read in one consistent view). A <to> that already holds
a directory is refused unless --replace is given: a data file is then kept first beside it as
<name>-replaced-<time>.json; a database is replaced only while nothing else is connected to it.
Logos go with the directory: the ones its clubs name, from a data file's own <file>.logos/ folder
(or the logos/ folder data files shared before it had one) and the database's logos table.`)

function commandLine() {
  try {
    const { positionals, values } = parseArgs({
      args: Bun.argv.slice(2),
      options: { replace: { type: 'boolean', default: false } },
      allowPositionals: true,
    })
    if (positionals.length !== 2) throw new Error(`expected <from> and <to>, got ${positionals.length} arguments`)
    return { from: placeOf(positionals[0]!), to: placeOf(positionals[1]!), replace: values.replace }
  } catch (error) {
    console.error(`data:copy: ${(error as Error).message}\n${USAGE}`)
    process.exit(2)
  }
}

/** `database` as the URL of the database the environment names, as the service reads it; any other place as it is. */
function placeOf(place: string): string {
  if (place !== 'database') return place
  const file = process.env.CLUBS_DATABASE_URL_FILE
  const url = file ? readFileSync(file, 'utf8').trim() : process.env.CLUBS_DATABASE_URL
  if (!url)
    throw new Error('`database` is the database CLUBS_DATABASE_URL_FILE or CLUBS_DATABASE_URL names; neither is set')
  return url
}

/** The files of the logos the directory's clubs point to: a data file's folder may hold others (an old shared logos/). */
const logoFilesOf = (data: Snapshot) => new Set([...logoNamesOf(data.clubs)].flatMap(filesOf))

/** Copies the directory's logos between a data file's folder and a database (either way); null when neither is a database. */
async function copyLogosBetween(from: string, to: string, data: Snapshot): Promise<number | null> {
  const database = isDatabaseUrl(from) ? from : isDatabaseUrl(to) ? to : null
  if (database === null || (isDatabaseUrl(from) && isDatabaseUrl(to))) return null
  const sql = new SQL(database)
  try {
    const rows = new LogoRows(() => sql)
    return isDatabaseUrl(from)
      ? await rows.exportTo(logoDirOf(to))
      : await rows.importFrom(await logoSourceOf(from), logoNamesOf(data.clubs))
  } finally {
    await sql.close()
  }
}

const shown = (where: string) => (isDatabaseUrl(where) ? shownUrl(where) : resolve(where))

async function main(): Promise<number> {
  const { from, to, replace } = commandLine()
  if (shown(from) === shown(to)) throw new CopyRefused(`<from> and <to> are the same (${shown(from)})`)
  const read = isDatabaseUrl(from)
    ? await readDatabaseDirectory(from, { check: snapshotProblem, keys: recordKeys })
    : await readDataFileDirectory(from, { check: snapshotProblem, keys: recordKeys })
  const data = upgradeSnapshot(read.data as StoredSnapshot)
  const directory: WholeDirectory = { ...read, data }
  let replaced: string | null = null
  if (isDatabaseUrl(to)) {
    const held = await writeDatabaseDirectory(to, recordKeys, () => directory, { replace })
    if (held) replaced = `the directory it held (${held.clubs} clubs, changes up to ${held.seq})`
  } else {
    const { kept } = await writeDataFileDirectory(to, directory, { replace })
    if (kept) replaced = `the data file it held, kept in ${resolve(kept)}`
    if (!isDatabaseUrl(from)) await copyLogos(await logoSourceOf(from), logoDirOf(to), logoFilesOf(data))
  }
  const logos = await copyLogosBetween(from, to, data)
  const { lines, trimmedUpTo } = directory.log
  console.log(
    `Copied ${shown(from)} to ${shown(to)}: ${data.clubs.length} clubs, ${data.users.length} users, ` +
      `changes up to ${data.changes_seq ?? 0} (${lines.length} kept, ${trimmedUpTo} trimmed), and the secret key.`,
  )
  if (replaced) console.log(`It replaced ${replaced}.`)
  if (logos !== null) console.log(`Logos copied: ${logos}.`)
  return 0
}

main().then(
  (code) => process.exit(code),
  (error) => {
    const refused = error instanceof CopyRefused || error instanceof StoreError
    console.error(`data:copy: ${refused ? '' : 'failed: '}${(error as Error).message}`)
    if (refused) console.error('Nothing was written.')
    process.exit(1)
  },
)
