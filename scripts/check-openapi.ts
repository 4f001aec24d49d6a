// The OpenAPI document as the tools clients use read it (npm run check:openapi; .ci/run runs it):
//
//   1. Spectral (spectral:oas, .spectral.yaml) and Redocly (recommended, redocly.yaml) lint the
//      served /swagger/json: no errors.
//   2. The conformance suite runs through Prism as a validating proxy in front of a
//      real service: no violation (see `classify` for what counts as one). The suite's own
//      verdicts through the proxy are printed, not counted: Prism answers a HEAD whose GET answers
//      JSON with a 500 of its own (it parses the empty body as JSON), which fails the suite's
//      HEAD check though the service answered 200.
//   3. Orval generates a fetch client, and its list call must be typed as the JSON answer: a
//      small file that says so type-checks (strict).
//
// The conformance suite is not part of this repository: give its folder as
// $CONFORMANCE_DIR. Without it step 2 is skipped, saying so.
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { answerHelp } from '../src/command-help'
import { freePort, ROOT, sleep, spawnService, stopService, waitForHealth } from '../harness/service'

answerHelp(`usage: npm run check:openapi

Lints the served OpenAPI document with Spectral and Redocly, runs the conformance suite
($CONFORMANCE_DIR) through Prism as a validating proxy, and type-checks
an Orval-generated list call. Prints what each found; exits 1 on any error or violation.`)

const BIN = join(ROOT, 'node_modules', '.bin')
const ADMIN_TOKEN = 'check-openapi-admin-token'
const QUIET = { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' }

const work = mkdtempSync(join(tmpdir(), 'check-openapi-'))
const failures: string[] = []
const children: ReturnType<typeof Bun.spawn>[] = []

async function run(argv: string[], cwd = work) {
  const child = Bun.spawn(argv, { cwd, env: { ...process.env, ...QUIET }, stdout: 'pipe', stderr: 'pipe' })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { code, stdout, stderr }
}

/** A service of its own, on an empty in-memory directory with the demo clubs, new clubs pending. */
async function startService() {
  const port = freePort()
  const proc = spawnService(port, {
    CLUBS_DATA_FILE: ':memory:',
    CLUBS_ADMIN_TOKEN: ADMIN_TOKEN,
    CLUBS_AUTO_APPROVE: 'false',
    CLUBS_READ_ONLY: 'false',
    CLUBS_RATE_LIMIT: '',
    CLUBS_LOG_LEVEL: 'warn',
  })
  children.push(proc)
  const base = `http://127.0.0.1:${port}`
  await waitForHealth(base, proc)
  return base
}

async function lint(doc: string) {
  const spectral = await run([
    join(BIN, 'spectral'),
    'lint',
    doc,
    '--ruleset',
    join(ROOT, '.spectral.yaml'),
    '-f',
    'json',
    '--quiet',
  ])
  const found = JSON.parse(spectral.stdout || '[]') as {
    code: string
    severity: number
    message: string
    path: string[]
  }[]
  // Spectral's severities: 0 error, 1 warning, 2 info, 3 hint.
  const spectralErrors = found.filter((p) => p.severity === 0)
  console.log(`spectral: ${spectralErrors.length} errors, ${found.length - spectralErrors.length} warnings`)
  for (const p of found)
    console.log(`  ${p.severity === 0 ? 'error' : 'warn '} ${p.code} ${p.path.join('.')}: ${p.message}`)
  failures.push(...spectralErrors.map((p) => `spectral ${p.code} at ${p.path.join('.')}: ${p.message}`))

  const redocly = await run([
    join(BIN, 'redocly'),
    'lint',
    doc,
    '--config',
    join(ROOT, 'redocly.yaml'),
    '--format',
    'json',
  ])
  const problems = (JSON.parse(redocly.stdout).problems ?? []) as {
    ruleId: string
    severity: string
    message: string
    location: { pointer: string }[]
  }[]
  const redoclyErrors = problems.filter((p) => p.severity === 'error')
  console.log(`redocly: ${redoclyErrors.length} errors, ${problems.length - redoclyErrors.length} warnings`)
  for (const p of problems)
    console.log(`  ${p.severity === 'error' ? 'error' : 'warn '} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)
  failures.push(...redoclyErrors.map((p) => `redocly ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`))
}

interface Violation {
  location: string[]
  severity: string
  code?: string | number
  message: string
}
interface Exchange {
  method: string
  url: URL
  status: number
  type: string
  violations: Violation[]
}

type OpenApi = { paths: Record<string, Record<string, { responses?: Record<string, Record<string, unknown>> }>> }

/** The media types the document names for this answer under x-other-media (a spreadsheet, the browsable view). */
function otherMedia(doc: OpenApi, { method, url, status }: Exchange): string[] {
  const template = Object.keys(doc.paths).find((path) =>
    new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`).test(url.pathname),
  )
  const response = template ? doc.paths[template]![method.toLowerCase()]?.responses?.[String(status)] : undefined
  return Object.keys((response?.['x-other-media'] as object | undefined) ?? {})
}

/**
 * What the proxy's findings mean. A violation of the answer is the document's fault, always. A
 * request the document refuses is the document's fault only when the service took it (below
 * 400): the suite sends bad requests on purpose, and Prism rightly flags those the service refuses.
 * A warning that the path is not documented is expected for the aliases without the trailing
 * slash and for `/` (redirects the document leaves out). An answer to ?fields= holds only the
 * fields named, as that parameter says, so the typed default's `required` does not hold for it:
 * a field it leaves out is no violation, and everything else about it (the type of each field it
 * holds, a field the schema does not have) still is. An answer in a media type the document lists
 * under x-other-media is not in `content`, which is all Prism reads, so Prism finds its body wrong:
 * such answers are checked by test/openapi-traffic.test.ts instead. Anything else is reported.
 */
function classify(doc: OpenApi, exchanges: Exchange[]) {
  const faults: string[] = []
  let refused = 0
  let aliases = 0
  let selections = 0
  let other = 0
  for (const exchange of exchanges) {
    const { method, url, status, type, violations } = exchange
    const elsewhere = otherMedia(doc, exchange).includes(type)
    for (const v of violations) {
      const where = `${method} ${url.pathname}${url.search} → ${status}: ${v.location.join('.')}: ${v.message}`
      if (v.message === 'Selected route not found' && (url.pathname === '/' || !url.pathname.endsWith('/'))) aliases++
      else if (v.location[0] === 'request' && status >= 400 && v.severity === 'Error') refused++
      else if (v.location[0] === 'response' && v.code === 'required' && url.searchParams.has('fields')) selections++
      else if (v.location[0] === 'response' && elsewhere) other++
      else faults.push(where)
    }
  }
  return { faults, refused, aliases, selections, other }
}

const TOO_MANY = 'Too many violations! '

/**
 * Prism's sl-violations header: a JSON list; past 8 KiB, "Too many violations! " and the list cut
 * short, of which the whole violations are kept (test/openapi-traffic.test.ts checks such answers whole).
 */
function violationsOf(answer: Response): Violation[] {
  const raw = answer.headers.get('sl-violations')
  if (!raw) return []
  if (!raw.startsWith(TOO_MANY)) return JSON.parse(raw) as Violation[]
  const whole = raw.slice(TOO_MANY.length + 1).match(/\{"location":.*?"message":"(?:[^"\\]|\\.)*"\}/g) ?? []
  return whole.map((text) => JSON.parse(text) as Violation)
}

/** Forwards each request to `target` as it came, and keeps the status and Prism's sl-violations. */
function recorder(target: string, exchanges: Exchange[]) {
  return Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const url = new URL(request.url)
      const headers = new Headers(request.headers)
      headers.delete('host')
      const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer()
      const answer = await fetch(`${target}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        body,
        redirect: 'manual',
        decompress: false,
      })
      exchanges.push({
        method: request.method,
        url,
        status: answer.status,
        type: (answer.headers.get('content-type') ?? '').split(';')[0]!.trim(),
        violations: violationsOf(answer),
      })
      return new Response(answer.body, { status: answer.status, headers: answer.headers })
    },
  })
}

const SUITES = (process.env.CONFORMANCE_SUITES ?? 'conformance.mjs').split(',')

function conformanceDir(): string | null {
  const candidates = [process.env.CONFORMANCE_DIR]
  for (const candidate of candidates) {
    if (!candidate) continue
    const dir = resolve(ROOT, candidate)
    if (existsSync(join(dir, 'conformance.mjs'))) return dir
  }
  return null
}

async function throughPrism(base: string, doc: string) {
  const suite = conformanceDir()
  if (!suite) {
    console.log('prism: skipped, no conformance suite found (set CONFORMANCE_DIR to the folder with conformance.mjs)')
    return
  }
  const port = freePort()
  const prism = Bun.spawn(
    [join(BIN, 'prism'), 'proxy', doc, base, '--host', '127.0.0.1', '--port', String(port), '--errors=false'],
    { cwd: work, env: { ...process.env, ...QUIET }, stdout: 'pipe', stderr: 'pipe' },
  )
  children.push(prism)
  const prismBase = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    const up = await fetch(`${prismBase}/health`).then(
      () => true,
      () => false,
    )
    if (up) break
    if (i > 600 || prism.exitCode !== null)
      throw new Error(`prism did not start: ${await new Response(prism.stderr).text()}`)
    await sleep(100)
  }
  const exchanges: Exchange[] = []
  const front = recorder(prismBase, exchanges)
  try {
    const runs = []
    for (const file of SUITES)
      runs.push(
        await run([
          'node',
          join(suite, file),
          '--base',
          `http://127.0.0.1:${front.port}`,
          '--admin-token',
          ADMIN_TOKEN,
        ]),
      )
    const suiteRun = { stdout: runs.map((r) => r.stdout).join('\n') }
    const summary = runs.map((r) => r.stdout.trim().split('\n').at(-1)).join('; ')
    const { faults, refused, aliases, selections, other } = classify(JSON.parse(readFileSync(doc, 'utf8')), exchanges)
    console.log(
      `prism: ${exchanges.length} requests proxied, ${faults.length} violations; besides, ${refused} of bad requests the service refused too, ${aliases} of undocumented aliases, ${selections} of fields a ?fields= answer leaves out, ${other} of answers in x-other-media`,
    )
    console.log(`  ${summary}`)
    for (const line of suiteRun.stdout.split('\n').filter((l) => l.startsWith('FAIL'))) console.log(`  ${line}`)
    for (const fault of faults) console.log(`  violation: ${fault}`)
    failures.push(...faults.map((fault) => `prism: ${fault}`))
  } finally {
    front.stop(true)
  }
}

/** Orval's fetch client for the document, and a file that holds its list call to the JSON type. */
async function orvalListCall(doc: string) {
  const out = join(work, 'orval')
  writeFileSync(
    join(work, 'orval.config.cjs'),
    `module.exports = { clubs: { input: { target: ${JSON.stringify(doc)} }, output: { target: ${JSON.stringify(join(out, 'clubs.ts'))}, client: 'fetch', mode: 'single', prettier: false } } }`,
  )
  const generated = await run([join(BIN, 'orval'), '--config', join(work, 'orval.config.cjs')])
  if (generated.code !== 0) {
    failures.push(`orval exited with ${generated.code}: ${generated.stderr.slice(-2000)}`)
    return
  }
  writeFileSync(
    join(out, 'list.ts'),
    `import { getApiClubs, type ClubListItem, type ClubPage } from './clubs'

// A 200 of the list is the JSON answer, not a Blob or a string: a bare array or a page of list items.
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const answer = await getApiClubs()
if (answer.status === 200) {
  const isJson: Exactly<typeof answer.data, ClubListItem[] | ClubPage> = true
  const clubs = Array.isArray(answer.data) ? answer.data : answer.data.results
  console.log(isJson, clubs.map((club) => club.name.length))
}
`,
  )
  writeFileSync(
    join(out, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ESNext',
        module: 'Preserve',
        moduleResolution: 'bundler',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        lib: ['ESNext', 'DOM', 'DOM.Iterable'],
        types: [],
      },
      files: ['list.ts'],
    }),
  )
  symlinkSync(join(ROOT, 'node_modules'), join(out, 'node_modules'), 'dir')
  const tsc = await run([process.execPath, join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', out])
  const ok = tsc.code === 0
  console.log(`orval: the list call's 200 is ${ok ? '' : 'NOT '}typed as ClubListItem[] | ClubPage`)
  if (!ok) failures.push(`orval's list call does not type-check as the JSON answer:\n${tsc.stdout}${tsc.stderr}`)
}

try {
  const base = await startService()
  const doc = join(work, 'openapi.json')
  writeFileSync(doc, await (await fetch(`${base}/swagger/json`)).text())
  await lint(doc)
  await throughPrism(base, doc)
  await orvalListCall(doc)
} catch (error) {
  failures.push(String(error instanceof Error ? (error.stack ?? error.message) : error))
} finally {
  for (const child of children) await stopService(child)
  rmSync(work, { recursive: true, force: true })
}
if (failures.length) {
  console.error(`check:openapi: ${failures.length} problems`)
  for (const failure of failures) console.error(`  ${failure}`)
  process.exit(1)
}
console.log('check:openapi: no errors, no violations')
