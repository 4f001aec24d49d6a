// npm run bench: generates the data sets, measures OURS, CEILING and json-server at each size,
// writes docs/performance.md and docs/perf-chart.svg, and prints a summary.
// BENCH_SIZES=100,1000 and BENCH_SECONDS=2 shorten a run while working on the harness;
// BENCH_KEEP=1 keeps the temp folder (data sets, server logs). BENCH_SCALE sets the size of the
// scale profile (100000 unless told; 0 skips it); BENCH_POSTGRES=0 skips the PostgreSQL rows.
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { writeDataSet } from './generate'
import { stopAll } from './procs'
import { summary, writeReport, type Results } from './report'
import { DURATION_S, WARMUP_S } from './measure'
import { benchSize, type SizeResult } from './scenarios'
import { benchScale, SCALE } from './scale'
import { benchCreatesBySize, CREATES_BY_SIZE } from './creates-by-size'
import { benchExportStall, STALL_CLUBS } from './export-stall'
import { benchSitePage, SITE_PAGE_CLUBS } from './site-page'
import { benchMyClubsPage, MY_CLUBS_CLUBS } from './my-clubs-page'
import { benchPosters, POSTER_CLUBS } from './posters'
import { benchWebFormats, WEB_FORMATS_CLUBS } from './web-formats'
import { benchFitting, FITTING_CLUBS } from './fitting'
import { benchChangeStreams, STREAMS_OPEN } from './change-streams'
import { benchUnreadStreams } from './unread-streams'
import { benchWebhookFanout, FANOUT_WRITES } from './webhook-fanout'
import { benchPostgres, POSTGRES_ROWS } from './postgres'
import { benchRoundClose, ROUND_CLOSE_CLUBS } from './round-close'
import { benchSandbox, SANDBOX_CLUBS } from './sandbox'
import { ROOT } from './servers'

const USAGE = `usage: npm run bench [-- --help]

Measures the service (OURS) against a bare Bun.serve doing the same job (CEILING) and json-server
at each data size, the small answers, the spreadsheet and review rows, the scale profile, the
campus site's directory page and My clubs, and several instances on PostgreSQL; writes docs/performance.md and
docs/perf-chart.svg and prints a summary. A full run takes 12 minutes or more.

  BENCH_SIZES=100,1000     data sizes (default 100,1000,10000)
  BENCH_SECONDS=2          seconds a measurement runs (shorter while working on the harness)
  BENCH_SCALE=0            clubs in the scale profile and the largest size of the creates by size (default 100000; 0 skips it)
  BENCH_CREATES=0          creates one after another at 1,000, 10,000 and BENCH_SCALE clubs (default 200; 0 skips them)
  EXPORT_STALL_CLUBS=0     clubs in the export-stall row (default 20000; 0 skips it)
  SITE_PAGE_CLUBS=0        clubs in the directory page rows (default 1000; 0 skips them)
  FITTING_CLUBS=0          clubs in the rows of clubs that fit a week (default 10000; 0 skips them)
  MY_CLUBS_CLUBS=0         clubs in the My clubs row (default 10000; 0 skips it)
  WEB_FORMATS_CLUBS=0      clubs in the Atom feed and sitemap rows (default 10000; 0 skips them)
  STREAMS_OPEN=0           change streams open for the lag row (default 1000; 0 skips the stream rows)
  UNREAD_STREAMS=60        streams that never read in the unread row, UNREAD_EVENTS=3000 events before them
  WEBHOOK_FANOUT_WRITES=0  writes in the webhook fan-out row (default 300; 0 skips it)
  ROUND_CLOSE_CLUBS=0      clubs in the re-registration close row (default 10000; 0 skips it)
  SANDBOX_CLUBS=0          clubs in the sandbox rows: reads on/off, reset, demo first start (default 10000; 0 skips them)
  BENCH_POSTGRES=0         skips the PostgreSQL rows (issue 28: lag, reads, creates, the mix)
  BENCH_POSTGRES_WRITES=200  writes in the lag row; BENCH_POSTGRES_CREATES=100 creates per size
  BENCH_KEEP=1             keep the temp folder (data sets, server logs)

Needs wrk (Debian: apt-get install wrk), and for the PostgreSQL rows Debian's postgresql.`

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(USAGE)
  process.exit(0)
}

const SIZES = (process.env.BENCH_SIZES ?? '100,1000,10000').split(',').map(Number)
const tmp = mkdtempSync(join(tmpdir(), 'club-bench-'))
const say = (line: string) => console.log(line)

/** The first line a command prints (wrk --version exits 1), or "?". */
function firstLine(cmd: string[]): string {
  try {
    const out = Bun.spawnSync(cmd, { stdout: 'pipe', stderr: 'pipe' })
    return (out.stdout.toString() || out.stderr.toString()).split('\n')[0]!.trim() || '?'
  } catch {
    return '?'
  }
}

/** The commit measured; src/ may hold work not committed yet. */
function commit(): string {
  const head = firstLine(['git', '-C', ROOT, 'rev-parse', '--short', 'HEAD'])
  const changes = Bun.spawnSync(['git', '-C', ROOT, 'status', '--porcelain', '--', 'src']).stdout.toString().trim()
  return changes ? `${head} with uncommitted changes in src/` : head
}

async function machine(loadBefore: string): Promise<Results['machine']> {
  const cpuinfo = await Bun.file('/proc/cpuinfo').text()
  return {
    cpus: cpus().length,
    model: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? 'unknown',
    memoryGb: totalmem() / 2 ** 30,
    bun: Bun.version,
    node: firstLine(['node', '--version']),
    wrk: firstLine(['wrk', '--version']).split(' Copyright')[0]!,
    kernel: firstLine(['uname', '-r']),
    commit: commit(),
    loadBefore,
  }
}

async function cleanUp() {
  await stopAll()
  if (process.env.BENCH_KEEP) console.error(`Kept ${tmp}`)
  else rmSync(tmp, { recursive: true, force: true })
}

let interrupted = false
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    interrupted = true
    console.error(`\n${signal}: stopping the servers and removing ${tmp}`)
    void cleanUp().finally(() => process.exit(130))
  })
}

async function main() {
  const started = performance.now()
  const loadBefore = (await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')
  const sizes: SizeResult[] = []
  for (const size of SIZES) {
    const dataSet = join(tmp, `clubs-${size}.json`)
    const bytes = await writeDataSet(size, dataSet)
    say(`${size} clubs (data file ${(bytes / 1e6).toFixed(1)} MB)`)
    sizes.push(await benchSize(size, dataSet, tmp, say))
  }
  if (SCALE) say(`Scale profile: one node at ${SCALE} clubs`)
  const scale = SCALE ? await benchScale(tmp, say) : null
  const createsBySize = CREATES_BY_SIZE ? await benchCreatesBySize(tmp, say) : null
  const exportStall = STALL_CLUBS ? await benchExportStall(tmp, say) : null
  const sitePage = SITE_PAGE_CLUBS ? await benchSitePage(tmp, say) : null
  const myClubs = MY_CLUBS_CLUBS ? await benchMyClubsPage(tmp, say) : null
  const posters = POSTER_CLUBS ? await benchPosters(tmp, say) : null
  const webFormats = WEB_FORMATS_CLUBS ? await benchWebFormats(tmp, say) : null
  const fitting = FITTING_CLUBS ? await benchFitting(tmp, say) : null
  const changeStreams = STREAMS_OPEN ? await benchChangeStreams(tmp, say) : null
  const unreadStreams = STREAMS_OPEN ? await benchUnreadStreams(tmp, say) : null
  const webhookFanout = FANOUT_WRITES ? await benchWebhookFanout(tmp, say) : null
  const roundClose = ROUND_CLOSE_CLUBS ? await benchRoundClose(tmp, say) : null
  const sandbox = SANDBOX_CLUBS ? await benchSandbox(tmp, say) : null
  const postgres = POSTGRES_ROWS ? await benchPostgres(tmp, say) : null
  const results: Results = {
    date: new Date().toISOString(),
    machine: await machine(loadBefore),
    warmupS: WARMUP_S,
    durationS: DURATION_S,
    totalS: (performance.now() - started) / 1000,
    sizes,
    scale,
    createsBySize,
    exportStall,
    sitePage,
    myClubs,
    posters,
    webFormats,
    fitting,
    changeStreams,
    unreadStreams,
    webhookFanout,
    roundClose,
    sandbox,
    postgres,
  }
  const files = await writeReport(results)
  say('')
  say(summary(results))
  say(`\nWrote ${files.join(' and ')} in ${results.totalS.toFixed(0)} s.`)
}

try {
  await main()
} catch (error) {
  // Once interrupted, what fails is only the work the clean-up stopped.
  if (!interrupted) console.error(error)
  process.exitCode = 1
} finally {
  await cleanUp()
}
