import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { existsSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { join, posix } from 'node:path'
import { tempDir } from '../harness/app'
import { npmStart, pathWithoutBun, shellEnvironment, type StartedService } from '../harness/npm-start'
import {
  bareBunCommands,
  EXAMPLE_FILES,
  examplesOf,
  headingAnchors,
  shellExamples,
  trailingComment,
  variablesOf,
  type Command,
  type Example,
} from '../harness/readme-examples'
import { freePort, ROOT } from '../harness/service'

// The README and the guides run (issues 16, 25): their shell examples, in order — the files in the
// order of EXAMPLE_FILES, the README first — against one server started the README's way —
// `npm start` (bun src/index.ts) with nothing set but a free port and a new data file, the
// development admin token read from its start-up output — each command in bash with
// `set -euo pipefail`, each answer's status checked: the one its comment states, or below 400.
// The hackathon guide's examples run against a second server, with the sandbox on (issue 39).
// The commands run with no bun on PATH, as on a fresh machine (issue 35): bun is a dev dependency,
// in node_modules/.bin, which `npx bun ...` finds.
// harness/readme-examples.ts says which blocks and lines run and how placeholders are filled.

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')
const README = read('README.md')
const COMMANDS = examplesOf(ROOT)
const VARIABLES = variablesOf(COMMANDS)
/** What the examples address; the test's server listens elsewhere. */
const README_BASE = 'http://localhost:3000'

const dir = tempDir('clubs-readme-')
const headersFile = join(dir, '.headers')
const stateFile = join(dir, '.variables')
let service: StartedService
/** The server of docs/hackathon.md's examples, with CLUBS_SANDBOX=true. */
let sandbox: StartedService
/** The guide whose examples run against `sandbox`. */
const SANDBOX_GUIDE = 'docs/hackathon.md'
/** The shell variables the examples have set so far. */
const variables = new Map<string, string>()
/** What each example printed. */
const printed = new Map<Command, string>()
/** The tokens the answers have issued, by username: what a reader copies into `NAME=<...>`. */
const issued = new Map<string, string>()

beforeAll(async () => {
  // The examples run where a reader runs them, the repository's folder: its examples/ and
  // node_modules/ (where npx finds bun) are there.
  for (const name of ['examples', 'node_modules']) symlinkSync(join(ROOT, name), join(dir, name))
  service = await npmStart(freePort(), { CLUBS_DATA_FILE: join(dir, 'db.json') })
  if (service.developmentToken === null) throw new Error(`npm start printed no token:\n${service.stdout()}`)
  // The hackathon guide runs its examples on a server with the sandbox on (docs/reference.md §25), which its
  // resets put back to the seed; the same admin token opens both.
  sandbox = await npmStart(freePort(), {
    CLUBS_DATA_FILE: join(dir, 'sandbox.json'),
    CLUBS_SANDBOX: 'true',
    CLUBS_ADMIN_TOKEN: service.developmentToken,
  })
  issued.set('admin', service.developmentToken)
})

afterAll(async () => {
  await service?.stop()
  await sandbox?.stop()
})

/** Bash around one command: curl dumps its headers where the test reads the status; the variables are kept. */
function script(command: Example): string {
  const save = VARIABLES.map((name) => `if [[ -v ${name} ]]; then printf '%s=%s\\0' ${name} "$${name}"; fi; `).join('')
  return [
    `curl() { command curl --silent --show-error --dump-header ${JSON.stringify(headersFile)} "$@"; }`,
    `keep() { { ${save}true; } > ${JSON.stringify(stateFile)}; }`,
    'trap keep EXIT',
    'set -euo pipefail',
    command.text.replaceAll(README_BASE, (command.file === SANDBOX_GUIDE ? sandbox : service).base),
  ].join('\n')
}

/** The status of the last answer curl received in the command, or null when it sent nothing. */
function lastStatus(): number | null {
  if (!existsSync(headersFile)) return null
  const statuses = [...readFileSync(headersFile, 'utf8').matchAll(/^HTTP\/\S+ (\d{3})/gm)]
  return statuses.length ? Number(statuses.at(-1)![1]) : null
}

/** A reader's shell: the variables the examples set so far, and a PATH with no bun on it. */
const EXAMPLE_ENVIRONMENT = () =>
  shellEnvironment({ ...Object.fromEntries(variables), PATH: pathWithoutBun(process.env.PATH ?? '') })

async function run(command: Example) {
  rmSync(headersFile, { force: true })
  rmSync(stateFile, { force: true })
  const proc = Bun.spawn(['bash', '-c', script(command)], {
    cwd: dir,
    env: EXAMPLE_ENVIRONMENT(),
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    timeout: 20_000,
  })
  const [code, stdout, stderr] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ])
  if (existsSync(stateFile))
    for (const pair of readFileSync(stateFile, 'utf8').split('\0').filter(Boolean)) {
      const at = pair.indexOf('=')
      variables.set(pair.slice(0, at), pair.slice(at + 1))
    }
  noteIssuedToken(stdout)
  return { code, stdout, stderr, status: lastStatus() }
}

function noteIssuedToken(stdout: string) {
  try {
    const answer = JSON.parse(stdout)
    if (typeof answer?.username === 'string' && typeof answer.token === 'string')
      issued.set(answer.username, answer.token)
  } catch {}
}

/** What `NAME=<...>` stands for: the token last issued to the user `name` (TOKEN: the admin's, from the start-up). */
function fill(name: string) {
  const username = name === 'TOKEN' ? 'admin' : name.toLowerCase()
  const token = issued.get(username)
  if (token === undefined) throw new Error(`${name}=<...>: no answer so far issued a token to "${username}"`)
  variables.set(name, token)
}

const title = (command: Example) => {
  const first = command.text.split('\n')[0]!
  const shown = (trailingComment(first) ? first.slice(0, first.length - trailingComment(first)!.length) : first).trim()
  const expects = command.placeholder ? 'filled in' : (command.status ?? '< 400')
  return `${command.file} line ${command.line} (${expects}): ${shown.length > 90 ? `${shown.slice(0, 87)}...` : shown}`
}

/** Where a link in `file` leads: a file of the repository (`file` itself for `#anchor`), and the anchor. */
function target(file: string, link: string): { path: string; anchor: string | null } {
  const [path = '', anchor] = link.split('#')
  return { path: path ? posix.join(posix.dirname(file), path) : file, anchor: anchor ?? null }
}

/** The site's screenshots (docs/screenshots/) are made apart from the tests; until they are, links to them are not checked. */
const SCREENSHOTS_MADE = existsSync(join(ROOT, 'docs/screenshots'))

describe('the README', () => {
  it('opens with the two commands: run it, test it', () => {
    expect(README).toMatch(/^# .*\n\n```sh no-run\nnpm install && npm start .*\nnpm install && npm test .*\n```\n/)
  })

  it('is a front page: short, and it links every guide', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(150)
    const links = [...README.matchAll(/\]\(([^)\s#]+)[^)\s]*\)/g)].map((match) => match[1]!)
    for (const guide of ['docs/hackathon.md', 'docs/api.md', 'docs/campus.md', 'docs/development.md'])
      expect(links).toContain(guide)
  })
})

describe('the README and the guides', () => {
  it('list every guide in docs/ that has examples to run in EXAMPLE_FILES, and every file listed exists', () => {
    const guides = readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`)
    const running = guides.filter((guide) => shellExamples(read(guide)).length > 0)
    expect(running.filter((guide) => !(EXAMPLE_FILES as readonly string[]).includes(guide))).toEqual([])
    expect(EXAMPLE_FILES.filter((file) => !existsSync(join(ROOT, file)))).toEqual([])
  })

  it('link the typed client example, and every file and heading they link to exists', () => {
    const targets = EXAMPLE_FILES.flatMap((file) =>
      [...read(file).matchAll(/\]\(([^)\s]+)\)/g)]
        .map((match) => match[1]!)
        .filter((link) => !/^[a-z]+:/.test(link))
        .map((link) => ({ file, link, ...target(file, link) })),
    )
    expect(targets.map(({ path }) => path)).toContain('examples/client/README.md')
    const broken = targets
      .filter(({ path }) => SCREENSHOTS_MADE || !path.startsWith('docs/screenshots/'))
      .filter(
        ({ path, anchor }) =>
          !existsSync(join(ROOT, path)) ||
          (anchor !== null && path.endsWith('.md') && !headingAnchors(read(path)).has(anchor)),
      )
      .map(({ file, link }) => `${file}: ${link}`)
    expect(broken).toEqual([])
  })

  it('have examples to run, and tokens they use come from placeholders or the start-up', () => {
    expect(COMMANDS.length).toBeGreaterThan(50)
    expect(VARIABLES).toContain('TOKEN')
  })
})

describe('the examples of the README and the guides, in order, against npm start', () => {
  for (const command of COMMANDS)
    it(title(command), async () => {
      if (command.placeholder) return fill(command.placeholder)
      const { code, stdout, stderr, status } = await run(command)
      printed.set(command, stdout)
      const expected = command.status === null ? 'below 400' : command.status
      // A command that sent no request (an assignment, a file) only has to succeed.
      const answered = status === null ? command.status === null : (command.status ?? 399) >= status
      const ok = code === 0 && answered && (command.status === null || status === command.status)
      if (!ok)
        throw new Error(
          `${command.file} line ${command.line}: expected ${expected}, got ${status ?? 'no answer'} (bash exit ${code})\n` +
            `${command.text}\n--- stdout\n${stdout.slice(0, 2000)}\n--- stderr\n${stderr.slice(0, 2000)}`,
        )
    })
})

/** Every guide a reader follows: the README, docs/*.md, and each example's README. */
const GUIDES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  ...readdirSync(join(ROOT, 'examples'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, 'examples', entry.name, 'README.md')))
    .map((entry) => `examples/${entry.name}/README.md`),
]

describe('bun as a fresh machine has it: in node_modules/.bin, not on PATH (issue 35)', () => {
  it('no command of the README, the guides or the examples READMEs runs a bare `bun`', () => {
    expect(GUIDES).toContain('examples/client/README.md')
    const bare = GUIDES.flatMap((file) =>
      bareBunCommands(read(file)).map(({ line, text }) => `${file}:${line}: ${text}`),
    )
    expect(bare).toEqual([])
  })

  it('runs the examples with no bun on PATH, and npx finds it', async () => {
    const proc = Bun.spawn(['bash', '-c', 'command -v bun; npx bun --version'], {
      cwd: dir,
      env: EXAMPLE_ENVIRONMENT(),
      stdout: 'pipe',
      stderr: 'ignore',
    })
    const [code, stdout] = await Promise.all([proc.exited, new Response(proc.stdout).text()])
    expect({ code, stdout }).toEqual({ code: 0, stdout: `${Bun.version}\n` })
  })

  const rows: { rule: string; markdown: string; found: { line: number; text: string }[] }[] = [
    {
      rule: 'finds a bare bun in shell blocks, run or not, behind variables, after ; && | &',
      markdown:
        '```sh no-run\nbun x.ts   # one\nnpx bun y.ts\nA=1 B=2 bun z.ts\ncurl a && bun b.ts\nsleep 1 & exec bun c.ts\n```',
      found: [
        { line: 2, text: 'bun x.ts   # one' },
        { line: 4, text: 'A=1 B=2 bun z.ts' },
        { line: 5, text: 'curl a && bun b.ts' },
        { line: 6, text: 'sleep 1 & exec bun c.ts' },
      ],
    },
    {
      rule: 'finds one in inline code, in prose (over a line break) and in a code block comment',
      markdown:
        'Run `bun a.ts` or `npx bun b.ts`, or\n`bun test\nc.ts`.\n```ts\n// `bun d.ts [N]` stops\nconst bun = 1\n```',
      found: [
        { line: 1, text: 'bun a.ts' },
        { line: 2, text: 'bun test c.ts' },
        { line: 5, text: 'bun d.ts [N]' },
      ],
    },
    {
      rule: 'leaves npx bun, npm scripts, comments, other languages, the bun user and the oven/bun image',
      markdown:
        '```sh\nnpm start   # runs bun src/index.ts\nnpx bun x.ts\n```\n```dockerfile\nRUN bun install\n```\n' +
        'Runs as the `bun` user on `oven/bun`; `bunx` and `bun.lock`; `npm run bench`.',
      found: [],
    },
  ]
  for (const { rule, markdown, found } of rows) it(rule, () => expect(bareBunCommands(markdown)).toEqual(found))
})

describe('reading the examples (harness/readme-examples.ts)', () => {
  const rows: { rule: string; markdown: string; commands: Partial<Command>[] }[] = [
    {
      rule: 'runs sh, bash and shell blocks, not no-run ones or other languages',
      markdown: '```sh\na\n```\n```bash\nb\n```\n```sh no-run\nc\n```\n```json\nd\n```\n```\ne\n```',
      commands: [
        { text: 'a', line: 2 },
        { text: 'b', line: 5 },
      ],
    },
    {
      rule: 'joins continuation lines into one command, numbered by its first line',
      markdown: '```sh\ncurl -X POST x \\\n  -d y\ncurl z\n```',
      commands: [
        { text: 'curl -X POST x \\\n  -d y', line: 2 },
        { text: 'curl z', line: 4 },
      ],
    },
    {
      rule: 'takes the status from a trailing comment or the comment line right below, not from a # in quotes',
      markdown:
        '```sh\ncurl a   # 201 created\ncurl b\n# 204: gone\ncurl "c#400"\ncurl d   # ordering: -x\n\n# 400 too far\n```',
      commands: [
        { text: 'curl a   # 201 created', status: 201 },
        { text: 'curl b', status: 204 },
        { text: 'curl "c#400"', status: null },
        { text: 'curl d   # ordering: -x', status: null },
      ],
    },
    {
      rule: 'knows a placeholder to fill in, with or without export',
      markdown: "```sh\nALICE=<alice's token>\nexport TOKEN=<the token>   # paste it\nX=1\n```",
      commands: [{ placeholder: 'ALICE' }, { placeholder: 'TOKEN' }, { placeholder: null }],
    },
    {
      rule: 'reads blocks indented in a list item',
      markdown: '1. Approve:\n   ```sh\n   curl a \\\n     -d b   # 200\n   ```',
      commands: [{ text: 'curl a \\\n  -d b   # 200', line: 3, status: 200 }],
    },
  ]
  for (const { rule, markdown, commands } of rows)
    it(rule, () => {
      const found = shellExamples(markdown)
      expect(found).toHaveLength(commands.length)
      found.forEach((command, i) => expect(command).toMatchObject(commands[i]!))
    })

  it('gives headings the anchors GitHub gives them, not comment lines in code blocks', () => {
    const markdown =
      '# Title\n## List clubs — `GET /api/clubs/`\n## Start again: `npm run reset`\n```sh\n# 201 created\n```\n' +
      "### The data file's format\n## Roles\n## Roles"
    expect([...headingAnchors(markdown)]).toEqual([
      'title',
      'list-clubs--get-apiclubs',
      'start-again-npm-run-reset',
      'the-data-files-format',
      'roles',
      'roles-1',
    ])
  })
})

it('shows the mirror client in the README as examples/mirror.ts has it, which the examples above run', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const shown = readme.slice(readme.indexOf('```ts\n', readme.indexOf('## Mirror the directory')) + 6)
  expect(shown.slice(0, shown.indexOf('```'))).toBe(readFileSync(join(ROOT, 'examples', 'mirror.ts'), 'utf8'))
  // Run in the background, its failure would not fail its command (`wait` answers 0): what it printed does.
  const mirror = COMMANDS.find((command) => command.text.startsWith('npx bun examples/mirror.ts 1 &'))
  expect(mirror?.file).toBe('docs/api.md')
  expect(printed.get(mirror!)).toMatch(
    /^\d+ clubs, as of change \d+\n\d+ club\.changed penn-chess-society: \d+ clubs\n$/,
  )
})
