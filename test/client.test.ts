// The typed client in examples/client/, against the real service: its committed types must be
// what openapi-typescript makes of the running service's /swagger/json today, the example (a
// GET-edit-PUT and a 400's field error, openapi-fetch typed by `paths` alone) must compile against
// them (tsc --noEmit --strict), and it must run.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Subprocess } from 'bun'
import { copyFileSync, readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from '../harness/app'
import { freePort, ROOT, sleep, spawnService, waitForHealth } from '../harness/service'

const CLIENT = join(ROOT, 'examples', 'client')
const COMMITTED = join(CLIENT, 'schema.d.ts')
const TOKEN = 'client-test-admin-token'

let proc: Subprocess<'ignore', 'ignore', 'pipe'>
let base: string
let dir: string
let fresh: string

async function run(argv: string[], env: Record<string, string | undefined> = process.env, timeoutMs = 60_000) {
  const child = Bun.spawn(argv, { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  clearTimeout(timer)
  return { code, stdout, stderr }
}

beforeAll(async () => {
  dir = tempDir('clubs-client-')
  const port = freePort()
  base = `http://127.0.0.1:${port}`
  proc = spawnService(
    port,
    {
      CLUBS_DATA_FILE: ':memory:',
      CLUBS_ADMIN_TOKEN: TOKEN,
      CLUBS_AUTO_APPROVE: 'false',
      CLUBS_READ_ONLY: 'false',
      CLUBS_RATE_LIMIT: '',
      CLUBS_LOG_LEVEL: 'warn',
    },
    {
      stdin: 'ignore',
      stdout: 'ignore',
      stderr: 'pipe',
    },
  )
  await waitForHealth(base, proc)
  // Exactly what `npm run client:types` runs (the CLI, from the repository, so with its redocly.yaml).
  fresh = join(dir, 'schema.d.ts')
  const cli = await run([join(ROOT, 'node_modules', '.bin', 'openapi-typescript'), `${base}/swagger/json`, '-o', fresh])
  if (cli.code !== 0) throw new Error(`openapi-typescript exited with ${cli.code}:\n${cli.stdout}${cli.stderr}`)
}, 60_000)

afterAll(async () => {
  proc?.kill('SIGTERM')
  await Promise.race([proc?.exited, sleep(5000)])
})

describe('examples/client', () => {
  test("the committed schema.d.ts is what openapi-typescript makes of the service's /swagger/json", () => {
    const committed = readFileSync(COMMITTED, 'utf8')
    const generated = readFileSync(fresh, 'utf8')
    if (committed !== generated) {
      const a = committed.split('\n')
      const b = generated.split('\n')
      const i = a.findIndex((line, n) => line !== b[n])
      const at = i < 0 ? Math.min(a.length, b.length) : i
      throw new Error(
        `examples/client/schema.d.ts is out of date with the API (first difference at line ${at + 1}):\n` +
          `  committed: ${a[at] ?? '(end of file)'}\n  generated: ${b[at] ?? '(end of file)'}\n` +
          'Start the service (npm start) and run `npm run client:types`, then commit examples/client/schema.d.ts.',
      )
    }
    expect(generated).toContain('"/api/clubs/": {')
  })

  test('example.ts type-checks (strict) against the freshly generated types', async () => {
    // With no type argument beyond `paths`: the answers are typed as JSON without being told to.
    const source = readFileSync(join(CLIENT, 'example.ts'), 'utf8')
    expect(source.match(/createClient<[^>]*>/g)).toEqual(['createClient<paths>'])
    // The example beside the new types, with the repository's node_modules for openapi-fetch and Bun's types.
    copyFileSync(join(CLIENT, 'example.ts'), join(dir, 'example.ts'))
    copyFileSync(join(CLIENT, 'tsconfig.json'), join(dir, 'tsconfig.json'))
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
    const tsc = await run([
      process.execPath,
      join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '--noEmit',
      '--strict',
      '-p',
      dir,
    ])
    expect(`${tsc.stdout}${tsc.stderr}exit ${tsc.code}`).toBe('exit 0')
  }, 90_000)

  test('example.ts lists the clubs, creates one, reads it, edits it, PUTs it back and reads a 400 field error', async () => {
    const example = await run([process.execPath, join(CLIENT, 'example.ts')], {
      ...process.env,
      CLUBS_URL: base,
      CLUBS_TOKEN: TOKEN,
    })
    expect(`${example.stderr}exit ${example.code}`).toBe('exit 0')

    const clubs = (await (await fetch(`${base}/api/clubs/`)).json()) as { code: string; name: string }[]
    const expected = clubs
      .map((c) => `${c.code}  ${c.name}`)
      .sort((a, b) => a.split('  ')[1]!.localeCompare(b.split('  ')[1]!, undefined, { sensitivity: 'accent' }))
    const printed = example.stdout
      .split('\n')
      .filter((line) => line.startsWith('  '))
      .map((line) => line.trim())
    expect(printed).toEqual(expected.slice(0, 5))

    const code = /^created (\S+)/m.exec(example.stdout)?.[1]
    expect(code).toBeDefined()
    // New clubs await approval: the admin sees it, with the subtitle the PUT set.
    const club = await fetch(`${base}/api/clubs/${code}/`, { headers: { authorization: `Bearer ${TOKEN}` } })
    expect(club.status).toBe(200)
    const read = (await club.json()) as { name: string; subtitle: string; website: string | null }
    expect(read.name).toStartWith('Typed Client Club')
    expect(read.subtitle).toBe('Created by examples/client/example.ts (edited)')
    expect(example.stdout).toContain(`subtitle: ${read.subtitle}\n`)
    // The refused PUT changed nothing, and its field error was read from the typed 400.
    expect(read.website).toBeNull()
    expect(example.stdout).toMatch(/^website refused: \S.*$/m)
  }, 30_000)

  test('example.ts fails, with the status, on a token the service does not know', async () => {
    const example = await run([process.execPath, join(CLIENT, 'example.ts')], {
      ...process.env,
      CLUBS_URL: base,
      CLUBS_TOKEN: 'not-a-known-token',
    })
    expect(example.code).toBe(1)
    expect(example.stderr).toContain('listing the clubs failed: 401')
  }, 30_000)
})
