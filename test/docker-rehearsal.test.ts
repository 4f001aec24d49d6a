// The Docker image, rehearsed without Docker (this machine has no engine): each stage of the
// Dockerfile is performed in a temp dir standing for its filesystem (COPY from the build context
// minus .dockerignore, or from an earlier stage; RUN with sh -c and the repository's Bun standing
// in for the image's), then the final stage is started with the Dockerfile's CMD and ENV and
// checked as `docker run` would use it. It fails when the Dockerfile and the project drift apart:
// a file the image no longer gets, a lock file out of step with package.json, a dev dependency
// in the image, a data file outside the volume, a HEALTHCHECK that does not answer.
import { beforeAll, describe, expect, test } from 'bun:test'
import type { Subprocess } from 'bun'
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync } from 'node:fs'
import { join, posix } from 'node:path'
import {
  type BuiltStage,
  hostPath,
  isIgnored,
  mapEnv,
  parseDockerfile,
  parseDockerignore,
  rehearseBuild,
  standIn,
  stageEnv,
  stagePath,
  startCommand,
} from '../harness/dockerfile'
import { tempDir } from '../harness/app'
import { freePort, ROOT, sleep, waitForHealth } from '../harness/service'
import { directoryOnDisk } from '../harness/on-disk'

const DOCKERFILE = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
const DOCKERIGNORE = existsSync(join(ROOT, '.dockerignore')) ? readFileSync(join(ROOT, '.dockerignore'), 'utf8') : ''
const BUN = realpathSync(join(ROOT, 'node_modules', '.bin', 'bun'))
const TOKEN = 'rehearsal-admin-token'
/** Where the image keeps the bundled sample, for trying the service out. */
const SAMPLE = '/app/seed/seed.json'
/** A secret given as a value (`-e CLUBS_ADMIN_TOKEN=…`, `CLUBS_OIDC_CLIENT_SECRET=…`), not as a file. */
const SECRET_VALUE = /\bCLUBS_[A-Z_]*(TOKEN|SECRET|PASSWORD|DATABASE_URL)=(?!\S*_FILE)/
/** A secret as an argument: a URL with its password, or a secret variable expanded on the command line. */
const SECRET_ARGUMENT = /:\/\/[^\s/:@]+:[^\s@]+@|\$\{?CLUBS_[A-Z_]*(TOKEN|SECRET|PASSWORD|DATABASE_URL)\b/
/** Users the base images come with (oven/bun: `bun`, uid 1000). */
const BASE_IMAGE_USERS: Record<string, string[]> = { 'oven/bun': ['root', 'bun'] }
/** Dev dependencies that must never be in the image, even if someone moves them to dependencies by mistake. */
const NEVER_IN_IMAGE = ['typescript', 'prettier', '@redocly/cli', 'playwright-core', 'bun']

const packageJson = () =>
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>
    devDependencies: Record<string, string>
  }

function rehearse(dockerfile = DOCKERFILE, dockerignore = DOCKERIGNORE, log?: (text: string) => void) {
  const workRoot = tempDir('clubs-image-')
  return rehearseBuild({ context: ROOT, dockerfile, dockerignore, workRoot, bun: BUN, log })
}

const underAny = (path: string, dirs: string[]) =>
  dirs.some((dir) => path === dir || path.startsWith(dir.replace(/\/?$/, '/')))

/** What `docker run -e CLUBS_ADMIN_TOKEN=… -e PORT=…` gives the CMD: the Dockerfile ENV, its /app paths mapped. */
function containerEnv(built: BuiltStage, port: number, extra: Record<string, string> = {}): Record<string, string> {
  const home = hostPath(built.root, `/home/${built.stage.user ?? 'root'}`)
  mkdirSync(home, { recursive: true })
  return {
    ...mapEnv(built.root, built.env),
    PORT: String(port),
    CLUBS_ADMIN_TOKEN: TOKEN,
    // What the base image and Docker add: a PATH (here with the stand-ins first) and the user's HOME.
    PATH: stagePath(built),
    HOME: home,
    ...mapEnv(built.root, extra),
  }
}

/** `docker run`: the CMD (exec form, `bun` → the stand-in) in the WORKDIR; resolves once /health answers. */
async function startImage(built: BuiltStage, extra: Record<string, string> = {}) {
  const port = freePort()
  const env = containerEnv(built, port, extra)
  const [argv0, ...args] = startCommand(built.stage)
  if (!argv0) throw new Error('the final stage has no CMD')
  const proc = Bun.spawn([standIn(built, argv0), ...args], {
    cwd: hostPath(built.root, built.workdir),
    env,
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const stdout = new Response(proc.stdout).text()
  const base = `http://127.0.0.1:${port}`
  try {
    await waitForHealth(base, proc)
  } catch (error) {
    proc.kill('SIGKILL')
    throw error
  }
  return { proc, base, env, stdout }
}

/** Runs the HEALTHCHECK's command the way Docker does: in the WORKDIR, with the container's environment. */
async function healthcheck(built: BuiltStage, env: Record<string, string>): Promise<number> {
  const command = built.stage.healthcheck?.command
  if (!command) throw new Error('no HEALTHCHECK')
  const timeoutS = parseInt(built.stage.healthcheck!.options.timeout ?? '30', 10)
  const proc = Bun.spawn([standIn(built, command[0]!), ...command.slice(1)], {
    cwd: hostPath(built.root, built.workdir),
    env,
    stdout: 'ignore',
    stderr: 'ignore',
  })
  const timer = setTimeout(() => proc.kill('SIGKILL'), (timeoutS + 2) * 1000)
  const code = await proc.exited
  clearTimeout(timer)
  return code
}

async function stop(proc: Subprocess, timeoutMs = 10_000): Promise<number | null> {
  proc.kill('SIGTERM')
  const code = await Promise.race([proc.exited, sleep(timeoutMs).then(() => null)])
  if (code === null) proc.kill('SIGKILL')
  return code
}

describe('the Dockerfile model', () => {
  test('ENV in both forms, with continuations, quotes, comments and earlier values', () => {
    const [stage] = parseDockerfile(`# syntax comment
FROM oven/bun:1 AS base
ENV A=1 \\
    # a comment inside the instruction
    B="two words" \\
    C=\${A}/x
ENV D=\${A}/y LEGACY_FORM=no
ENV LEGACY some value here
WORKDIR /app
WORKDIR sub
`)
    expect(stage!.name).toBe('base')
    // As Docker does, $A expands to its value before the instruction: unset within the same ENV.
    expect(stageEnv(stage!)).toEqual({
      A: '1',
      B: 'two words',
      C: '/x',
      D: '1/y',
      LEGACY_FORM: 'no',
      LEGACY: 'some value here',
    })
    expect(stage!.steps.filter((s) => s.kind === 'ENV')[0]!.line).toBe(3)
    expect(stage!.steps.filter((s) => s.kind === 'WORKDIR').map((s) => s.kind === 'WORKDIR' && s.path)).toEqual([
      '/app',
      'sub',
    ])
  })

  test('COPY flags, RUN, USER, VOLUME, EXPOSE, HEALTHCHECK and the exec-form CMD', () => {
    const stages = parseDockerfile(`FROM x AS one
FROM one AS two
COPY --from=one --chown=bun:bun /app/node_modules ./node_modules
COPY a b ./
RUN echo hi && true
USER bun
VOLUME ["/app/data"]
EXPOSE 3000/tcp
HEALTHCHECK --interval=30s --timeout=5s CMD ["bun", "check.ts"]
CMD ["bun", "src/index.ts"]
`)
    const two = stages[1]!
    expect(two.parent).toBe(stages[0]!)
    expect(two.steps[0]).toMatchObject({ kind: 'COPY', from: 'one', chown: 'bun:bun', sources: ['/app/node_modules'] })
    expect(two.steps[1]).toMatchObject({ kind: 'COPY', from: null, sources: ['a', 'b'], dest: './' })
    expect(two.steps[2]).toMatchObject({ kind: 'RUN', command: 'echo hi && true' })
    expect(two.user).toBe('bun')
    expect(two.volumes).toEqual(['/app/data'])
    expect(two.expose).toEqual(['3000/tcp'])
    expect(two.healthcheck).toMatchObject({ options: { interval: '30s', timeout: '5s' }, command: ['bun', 'check.ts'] })
    expect(startCommand(two)).toEqual(['bun', 'src/index.ts'])
    expect(parseDockerfile('FROM x\nCMD bun run.ts')[0]!.cmd).toEqual(['/bin/sh', '-c', 'bun run.ts'])
  })

  test('refuses what it does not model, rather than passing over it', () => {
    expect(() => parseDockerfile('FROM x\nADD https://example.com/x /x')).toThrow(/line 2: ADD is not modelled/)
    expect(() => parseDockerfile('FROM x\nCMD ["bun", src/index.ts]')).toThrow(/not valid JSON/)
  })

  test('.dockerignore: patterns from the context root, globs, parent folders and ! exceptions', () => {
    const rules = parseDockerignore('# comment\nnode_modules\n/data/db.json*\n*.md\ndocs/\n**/*.log\n!keep.log\n')
    const ignored = (path: string) => isIgnored(rules, path)
    expect(ignored('node_modules')).toBe(true)
    expect(ignored('node_modules/elysia/package.json')).toBe(true)
    expect(ignored('src/node_modules')).toBe(false) // anchored at the root, as Docker does
    expect(ignored('data/db.json')).toBe(true)
    expect(ignored('data/db.json.tmp')).toBe(true)
    expect(ignored('data/seed.json')).toBe(false)
    expect(ignored('README.md')).toBe(true)
    expect(ignored('src/notes.md')).toBe(false) // `*` stays within one folder
    expect(ignored('docs/swagger.png')).toBe(true)
    expect(ignored('a/b/c.log')).toBe(true)
    expect(ignored('keep.log')).toBe(false)
  })

  test("the project's .dockerignore keeps the source and the seed, and leaves out local data and secrets", () => {
    const rules = parseDockerignore(DOCKERIGNORE)
    for (const path of ['src/index.ts', 'src/edge/docs/swagger-init.js', 'package.json', 'bun.lock', 'data/seed.json'])
      expect(`${path}: ${isIgnored(rules, path)}`).toBe(`${path}: false`)
    // compose.yaml suggests an .env file for CLUBS_ADMIN_TOKEN: it must not travel with the build context.
    for (const path of [
      'node_modules/elysia/package.json',
      'data/db.json',
      'data/db.json.lock',
      '.git/config',
      'test/server.ts',
      '.env',
      '.env.production',
    ])
      expect(`${path}: ${isIgnored(rules, path)}`).toBe(`${path}: true`)
  })
})

describe('the image, rehearsed', () => {
  let built: BuiltStage[] = []
  let final: BuiltStage
  const buildLog: string[] = []

  beforeAll(async () => {
    built = await rehearse(DOCKERFILE, DOCKERIGNORE, (text) => buildLog.push(text))
    final = built.at(-1)!
  }, 90_000)

  test('builds every stage: bun install --frozen-lockfile agrees with package.json', () => {
    expect(built.map((b) => b.stage.name)).toEqual(['deps', 'runtime'])
    const install = buildLog.find((text) => /bun install/.test(text)) ?? ''
    expect(install).toMatch(/--frozen-lockfile/)
    expect(install).toMatch(/--production/)
  })

  test('is based on the Bun the project tests with', () => {
    const version = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'bun', 'package.json'), 'utf8')).version
    for (const b of built) {
      const [image, tag = 'latest'] = b.stage.base.split(':')
      expect(image).toBe('oven/bun')
      // oven/bun:1.4.5 and oven/bun:1.4.5-slim, not :1 or :latest, and the version of the bun dev dependency.
      expect(`${b.stage.base}: ${tag.split('-')[0]}`).toBe(`${b.stage.base}: ${version}`)
    }
  })

  test('runs as a non-root user who owns the data volume', () => {
    const user = final.stage.user?.split(':')[0]
    expect(user).toBeDefined()
    expect(['root', '0']).not.toContain(user!)
    const image = final.stage.base.split(':')[0]!
    expect([...(BASE_IMAGE_USERS[image] ?? []), ...final.usersCreated]).toContain(user!)
    // A named volume starts as a copy of the image's folder, owner included: the user must be able to write it.
    for (const volume of final.stage.volumes) {
      expect(existsSync(hostPath(final.root, volume))).toBe(true)
      const owners = final.chowns.filter((c) => c.paths.includes(volume)).map((c) => c.owner.split(':')[0])
      expect(`${volume} owned by ${owners.join(', ')}`).toBe(`${volume} owned by ${user}`)
    }
  })

  test('keeps the data file in the volume; a first start is empty, and the sample, outside the volume, only asked for', () => {
    expect(final.stage.volumes).toContain('/app/data')
    const data = final.env.CLUBS_DATA_FILE
    expect(data).toBeDefined()
    expect(posix.isAbsolute(data!)).toBe(true)
    expect(underAny(data!, final.stage.volumes)).toBe(true)
    // A campus's directory is its own: no made-up clubs unless CLUBS_SEED_FILE names them.
    expect(final.env.CLUBS_SEED_FILE).toBe('none')
    // Under the volume, a seed from an older image would shadow the new one for good.
    expect(underAny(SAMPLE, final.stage.volumes)).toBe(false)
    expect(readFileSync(hostPath(final.root, SAMPLE), 'utf8')).toBe(
      readFileSync(join(ROOT, 'data', 'seed.json'), 'utf8'),
    )
    expect(readdirSync(hostPath(final.root, '/app/seed/seed-logos')).sort()).toEqual(
      readdirSync(join(ROOT, 'data', 'seed-logos')).sort(),
    )
  })

  test('says how to run it without a secret on the command line', () => {
    const comments = DOCKERFILE.split('\n').filter((line) => line.startsWith('#'))
    expect(comments.join('\n')).toContain('CLUBS_SEED_FILE=/app/seed/seed.json')
    for (const line of comments) expect(line).not.toMatch(SECRET_VALUE)
  })

  test('on the sample, asked for, serves its clubs and the logos it brings from the service itself', async () => {
    // A volume of its own: the image's is the empty start's, below.
    const volume = tempDir('clubs-image-sample-')
    const { proc, base } = await startImage(final, {
      CLUBS_SEED_FILE: SAMPLE,
      CLUBS_DATA_FILE: join(volume, 'db.json'),
    })
    try {
      const clubs = (await (await fetch(`${base}/api/clubs/?fields=code`)).json()) as { code: string }[]
      expect(clubs.length).toBeGreaterThanOrEqual(60)
      let logo: string | null = null
      for (let i = 0; i < 100 && logo === null; i++) {
        const chess = (await (await fetch(`${base}/api/clubs/penn-chess-society/`)).json()) as {
          image_url: string | null
        }
        logo = chess.image_url
        if (logo === null) await sleep(100)
      }
      // The image listens on 0.0.0.0: the URL names localhost, where `docker run -p 3000:3000` serves it.
      expect(new URL(logo!).pathname).toStartWith('/api/logos/')
      expect((await fetch(`${base}${new URL(logo!).pathname}`)).headers.get('content-type')).toBe('image/webp')
    } finally {
      await stop(proc)
    }
  }, 30_000)

  test('exposes the PORT it listens on and has a HEALTHCHECK', () => {
    expect(final.env.PORT).toBeDefined()
    expect(final.stage.expose.map((p) => p.replace(/\/tcp$/, ''))).toContain(final.env.PORT!)
    expect(final.stage.healthcheck?.command?.length).toBeGreaterThan(0)
  })

  test('node_modules holds every dependency and no dev dependency', () => {
    const { dependencies, devDependencies } = packageJson()
    const modules = hostPath(final.root, posix.join(final.workdir, 'node_modules'))
    const installed = (name: string) => {
      const file = join(modules, name, 'package.json')
      return existsSync(file) ? (directoryOnDisk(file) as { version: number }) : null
    }
    for (const [name, range] of Object.entries(dependencies)) {
      const version = installed(name)?.version ?? 'missing'
      expect(
        `${name}@${version} satisfies ${range}: ${version !== 'missing' && Bun.semver.satisfies(version, range)}`,
      ).toBe(`${name}@${version} satisfies ${range}: true`)
    }
    // What the installed packages need to run (not their peers, which bun would also install).
    const needed = new Set<string>()
    const scan = (dir: string) => {
      for (const entry of existsSync(dir) ? readdirSync(dir) : []) {
        if (entry.startsWith('.')) continue
        if (entry.startsWith('@')) {
          for (const scoped of readdirSync(join(dir, entry))) visit(join(dir, entry, scoped))
        } else visit(join(dir, entry))
      }
    }
    const visit = (pkgDir: string) => {
      const file = join(pkgDir, 'package.json')
      if (!existsSync(file)) return
      const json = directoryOnDisk(file)
      for (const name of Object.keys({ ...json.dependencies, ...json.optionalDependencies })) needed.add(name)
      scan(join(pkgDir, 'node_modules'))
    }
    scan(modules)
    const leaked = Object.keys(devDependencies).filter(
      (name) => installed(name) && (NEVER_IN_IMAGE.includes(name) || !needed.has(name)),
    )
    for (const name of NEVER_IN_IMAGE) if (installed(name) && !leaked.includes(name)) leaked.push(name)
    expect(leaked).toEqual([])
  })

  test('leaves out the tests, the repository and any local data', () => {
    const app = hostPath(final.root, final.workdir)
    for (const path of ['test', '.git', 'node_modules/.cache', 'data/db.json', 'README.md', '.env'])
      expect(`${path}: ${existsSync(join(app, path))}`).toBe(`${path}: false`)
  })

  test('starts with the Dockerfile ENV, an empty directory, writes into the volume, passes its HEALTHCHECK and stops on SIGTERM', async () => {
    const { proc, base, env, stdout } = await startImage(final)
    try {
      const list = await fetch(`${base}/api/clubs/`)
      expect(list.status).toBe(200)
      expect(await list.json()).toEqual([])

      const created = await fetch(`${base}/api/clubs/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Rehearsal Club', subtitle: 'Made in a rehearsed image' }),
      })
      expect(created.status).toBe(201)
      const { code } = (await created.json()) as { code: string }

      // The data file is where the Dockerfile says, inside the volume's folder, and holds the new club.
      const volume = hostPath(final.root, final.stage.volumes[0]!)
      expect(env.CLUBS_DATA_FILE!.startsWith(volume + '/')).toBe(true)
      const saved = directoryOnDisk(env.CLUBS_DATA_FILE!) as { clubs: { code: string }[] }
      expect(saved.clubs.map((c) => c.code)).toContain(code)

      expect(await healthcheck(final, env)).toBe(0)
    } finally {
      const code = await stop(proc)
      const logs = await stdout
      expect(`exit ${code}`).toBe('exit 0')
      expect(logs).toContain('club directory stopped')
    }
    // …and the HEALTHCHECK notices when the service is gone.
    expect(await healthcheck(final, env)).not.toBe(0)
  }, 30_000)
})

describe('the rehearsal fails when the Dockerfile drifts', () => {
  test('a COPY of a file that is not there', async () => {
    const drifted = DOCKERFILE.replace('COPY data/seed.json', 'COPY data/sample.json')
    expect(drifted).not.toBe(DOCKERFILE)
    await expect(rehearse(drifted)).rejects.toThrow(/COPY data\/sample\.json: not found in the build context/)
  }, 60_000)

  test('a COPY of what .dockerignore leaves out', async () => {
    await expect(rehearse(DOCKERFILE, DOCKERIGNORE + '\nsrc\n')).rejects.toThrow(
      /COPY src: .*left out by \.dockerignore/,
    )
  }, 60_000)

  test('an image without the source does not start', async () => {
    const drifted = DOCKERFILE.replace(/^COPY src \.\/src\n/m, '')
    expect(drifted).not.toBe(DOCKERFILE)
    const stages = await rehearse(drifted)
    await expect(startImage(stages.at(-1)!)).rejects.toThrow(/exited early with 1/)
  }, 60_000)
})

describe('the examples that run the service', () => {
  test('pass no secret on a command line: the README and the guides name secret files (NAME_FILE)', () => {
    const docs = [
      'README.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ]
    const offending: string[] = []
    for (const doc of docs) {
      const text = readFileSync(join(ROOT, doc), 'utf8')
      for (const [, block] of text.matchAll(/```(?:sh|bash|shell)[^\n]*\n([\s\S]*?)```/g))
        for (const line of block!.split('\n'))
          if (SECRET_VALUE.test(line) || SECRET_ARGUMENT.test(line)) offending.push(`${doc}: ${line.trim()}`)
    }
    expect(offending).toEqual([])
  })
})
