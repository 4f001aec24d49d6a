// The compose files, rehearsed without Docker (this machine has no engine and no compose plugin):
// each is read as compose reads it (harness/compose.ts) and checked against the project (the
// variables the service knows, the secrets and where they must never travel, the Dockerfile's
// port and healthcheck, the nginx config the proxy mounts, `nginx -t`); then compose.postgres.yaml
// is run on loopback: a real PostgreSQL set up as its postgres service sets it up, its nginx config
// pointed at two `bun src/index.ts` started with the instances' environment and secrets.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import type { Subprocess } from 'bun'
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join, posix } from 'node:path'
import { loadConfig, VARIABLES } from '../src/config'
import { tempDir } from '../harness/app'
import {
  type ComposeFile,
  type ComposeService,
  headerCommands,
  interpolate,
  parseCompose,
  parseEnvFile,
} from '../harness/compose'
import { isIgnored, parseDockerfile, parseDockerignore, stageEnv, type Stage } from '../harness/dockerfile'
import { checkNginxConfig, onLoopback, startNginx, upstreamServers } from '../harness/nginx'
import { type Postgres, startPostgres } from '../harness/postgres'
import { SseReader } from '../harness/sse'
import { freePort, ROOT, sleep, spawnService, stopService, waitForHealth } from '../harness/service'

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8')
const COMPOSE = read('compose.yaml')
const POSTGRES_COMPOSE = read('compose.postgres.yaml')
const IMAGE = parseDockerfile(read('Dockerfile')).at(-1)!
/** The campus settings' template, which the opening comments copy to campus.env. */
const TEMPLATE = 'deploy/campus.env.example'
/** Variables whose values are secrets: never in an env file or the environment, only in secret files. */
const SECRETS = ['CLUBS_ADMIN_TOKEN', 'CLUBS_METRICS_TOKEN', 'CLUBS_OIDC_CLIENT_SECRET', 'CLUBS_DATABASE_URL']
/** The store issue 28 adds; until it is merged, the service knows no CLUBS_DATABASE_URL. */
const KNOWN = new Set<string>(VARIABLES)

const instancesOf = (file: ComposeFile) => Object.values(file.services).filter((s) => s.build === '.')
const secretPath = (name: string) => `/run/secrets/${name}`
/** The nginx config the proxy service mounts, as its host path. */
const proxyConfig = (proxy: ComposeService) => proxy.volumes[0]!.split(':')[0]!

describe.each([
  ['compose.yaml', COMPOSE],
  ['compose.postgres.yaml', POSTGRES_COMPOSE],
])('%s', (_, text) => {
  const file = parseCompose(text)

  test('the service is given only variables it reads, and each *_FILE is one of its secrets', () => {
    for (const service of instancesOf(file)) {
      expect(service.image).toBe('club-directory')
      for (const [name, value] of Object.entries(service.environment)) {
        // CLUBS_DATA_FILE is a variable of its own; CLUBS_ADMIN_TOKEN_FILE is CLUBS_ADMIN_TOKEN read from a file.
        const fromFile = !KNOWN.has(name) && name.endsWith('_FILE') && KNOWN.has(name.slice(0, -'_FILE'.length))
        expect(`${name}: ${KNOWN.has(name) || fromFile}`).toBe(`${name}: true`)
        if (fromFile) expect(service.secrets.map(secretPath)).toContain(value)
      }
    }
  })

  test('every secret is declared and used, and its file is kept out of git and the build context', () => {
    const used = Object.values(file.services).flatMap((s) => s.secrets)
    expect([...new Set(used)].sort()).toEqual(Object.keys(file.secrets).sort())
    const dockerignore = parseDockerignore(read('.dockerignore'))
    const gitignore = read('.gitignore').split('\n')
    for (const path of Object.values(file.secrets)) {
      const rel = posix.normalize(path)
      expect(`${rel} in .dockerignore: ${isIgnored(dockerignore, rel)}`).toBe(`${rel} in .dockerignore: true`)
      expect(`${rel} in .gitignore: ${gitignore.includes(rel)}`).toBe(`${rel} in .gitignore: true`)
    }
  })

  test('takes the campus settings from campus.env, made from the documented template, which holds no secret', () => {
    for (const service of instancesOf(file)) expect(service.envFiles).toEqual(['campus.env'])
    expect(headerCommands(text)).toContain(`cp ${TEMPLATE} campus.env`)
    const template = parseEnvFile(read(TEMPLATE))
    for (const name of Object.keys(template)) expect(`${name}: ${KNOWN.has(name)}`).toBe(`${name}: true`)
    for (const name of ['CLUBS_SITE_TITLE', 'CLUBS_TIMEZONE', 'CLUBS_SEED_FILE', 'CLUBS_OIDC_ISSUER'])
      expect(Object.keys(template)).toContain(name)
    for (const name of SECRETS.flatMap((secret) => [secret, `${secret}_FILE`])) expect(template[name]).toBeUndefined()
    // campus.env is the operator's own: kept out of git and the build context.
    expect(isIgnored(parseDockerignore(read('.dockerignore')), 'campus.env')).toBe(true)
    expect(read('.gitignore').split('\n')).toContain('campus.env')
  })

  test("with the template's settings the image starts empty, in the zone and under the name campus.env gives", () => {
    const template = parseEnvFile(read(TEMPLATE))
    for (const service of instancesOf(file)) {
      // The secret files are left out: what they hold is the secrets' test above.
      const env = { ...stageEnv(IMAGE), ...template, ...service.environment }
      const readable = Object.fromEntries(Object.entries(env).filter(([name]) => KNOWN.has(name)))
      const config = loadConfig({ ...readable, CLUBS_DATABASE_URL: undefined, CLUBS_DATA_FILE: '/app/data/db.json' })
      expect(config.seedFile).toBe('none')
      expect(config.oidc).toBeNull()
      const campus = loadConfig({
        ...readable,
        CLUBS_DATA_FILE: 'x',
        CLUBS_DATABASE_URL: undefined,
        CLUBS_TIMEZONE: 'America/New_York',
        CLUBS_SITE_TITLE: 'Example University',
      })
      expect([campus.timezone, campus.site?.title]).toEqual(['America/New_York', 'Example University'])
    }
  })

  test('its opening comment passes no secret as a value', () => {
    for (const command of headerCommands(text))
      expect(command).not.toMatch(/\b(CLUBS_[A-Z_]*(TOKEN|SECRET|PASSWORD|DATABASE_URL))=(?!\S*_FILE)/)
  })

  test('every named volume is declared', () => {
    const named = Object.values(file.services)
      .flatMap((s) => s.volumes)
      .map((v) => v.split(':')[0]!)
      .filter((source) => !/^[./~]/.test(source))
    expect(named.every((v) => file.volumes.includes(v))).toBe(true)
  })
})

describe('compose.postgres.yaml, read', () => {
  const file = parseCompose(POSTGRES_COMPOSE)
  const single = parseCompose(COMPOSE).services.clubs!
  const instances = instancesOf(file)
  const { postgres, proxy } = file.services
  const nginx = () => read(proxyConfig(proxy!))

  test('runs PostgreSQL 13 or later on a named volume, healthy once pg_isready says so', () => {
    const [image, tag] = postgres!.image!.split(':')
    expect(image).toBe('postgres')
    expect(Number(tag)).toBeGreaterThanOrEqual(13)
    const data = postgres!.volumes.find((v) => v.endsWith(':/var/lib/postgresql/data'))
    expect(file.volumes).toContain(data!.split(':')[0]!)
    expect(postgres!.healthcheck?.test).toContain('pg_isready')
    expect(postgres!.environment.POSTGRES_PASSWORD_FILE).toBe(secretPath(postgres!.secrets[0]!))
  })

  test('runs two or more instances alike, each on the database, with the admin token and healthcheck of compose.yaml', () => {
    expect(instances.length).toBeGreaterThanOrEqual(2)
    for (const instance of instances) {
      expect({ ...instance, name: '' }).toEqual({ ...instances[0]!, name: '' })
      expect(instance.dependsOn.postgres).toBe('service_healthy')
      expect(instance.healthcheck).toEqual(single.healthcheck)
      expect(instance.environment.CLUBS_ADMIN_TOKEN_FILE).toBe(single.environment.CLUBS_ADMIN_TOKEN_FILE!)
      expect(instance.environment.CLUBS_DATABASE_URL_FILE ?? instance.environment.CLUBS_DATABASE_URL).toBeTruthy()
      // The image names a data file; the database replaces it, and backups are pg_dump's.
      expect(stageEnv(IMAGE).CLUBS_DATA_FILE).toBeTruthy()
      expect(instance.environment.CLUBS_DATA_FILE).toBe('')
      expect(Object.keys(instance.environment).filter((n) => n.startsWith('CLUBS_BACKUP'))).toEqual([])
      expect(instance.ports).toEqual([])
    }
    expect(file.secrets.admin_token).toBe(parseCompose(COMPOSE).secrets.admin_token!)
  })

  test('its opening comment makes every secret, the database URL matching the postgres service', () => {
    const dir = tempDir('clubs-compose-secrets-')
    makeSecrets(dir)
    // The sign-in client's secret stays empty until the provider gives the site one.
    for (const [name, path] of Object.entries(file.secrets))
      expect(readFileSync(join(dir, path), 'utf8').length > 8 || name === 'oidc_client_secret').toBe(true)
    const url = new URL(readFileSync(join(dir, file.secrets.database_url!), 'utf8'))
    expect(url.protocol).toBe('postgres:')
    expect(url.hostname).toBe('postgres')
    expect(url.port).toBe('5432')
    expect(url.username).toBe(postgres!.environment.POSTGRES_USER!)
    expect(url.pathname).toBe(`/${postgres!.environment.POSTGRES_DB}`)
    const password = readFileSync(join(dir, file.secrets.postgres_password!), 'utf8')
    expect(decodeURIComponent(url.password)).toBe(password.trim())
  })

  test('publishes the proxy on CLUBS_PUBLISH (3000 unless set), at the port its nginx config listens on', () => {
    expect(proxy!.image).toBe('nginx')
    expect(proxy!.ports).toEqual(['3000:80'])
    expect(parseCompose(POSTGRES_COMPOSE, { CLUBS_PUBLISH: '127.0.0.1:8080' }).services.proxy!.ports).toEqual([
      '127.0.0.1:8080:80',
    ])
    expect(proxy!.volumes).toEqual([`${proxyConfig(proxy!)}:/etc/nginx/conf.d/default.conf:ro`])
    expect(existsSync(join(ROOT, proxyConfig(proxy!)))).toBe(true)
    expect(nginx()).toMatch(/^\s*listen\s+80;/m)
  })

  test("nginx balances over every instance at the image's port, and holds the change stream open unbuffered", () => {
    const upstreams = upstreamServers(nginx())
    const [name] = Object.keys(upstreams)
    expect(Object.keys(upstreams)).toHaveLength(1)
    expect(upstreams[name!]!.sort()).toEqual(instances.map((i) => `${i.name}:${stageEnv(IMAGE).PORT}`).sort())
    for (const [, target] of nginx().matchAll(/proxy_pass\s+http:\/\/([^;/]+)/g)) expect(target).toBe(name!)
    const stream = /location = \/api\/changes\/stream \{([^}]*)\}/.exec(nginx())?.[1] ?? ''
    expect(stream).toMatch(/proxy_buffering off;/)
    const timeout = /proxy_read_timeout (\d+)([smh]);/.exec(stream)
    const seconds = Number(timeout?.[1]) * { s: 1, m: 60, h: 3600 }[timeout?.[2] as 's' | 'm' | 'h']
    expect(seconds).toBeGreaterThan(60)
  })

  test('nginx -t accepts the config (on loopback), and refuses it broken', () => {
    const ports = Object.fromEntries(instances.map((i) => [i.name, freePort()]))
    const loopback = onLoopback(nginx(), ports, freePort())
    const checked = checkNginxConfig(tempDir('clubs-compose-nginx-'), loopback)
    expect(checked.output).toContain('syntax is ok')
    expect(checked.ok).toBe(true)
    expect(
      checkNginxConfig(tempDir('clubs-compose-nginx-'), loopback.replace('proxy_buffering off;', 'proxy_buffering off'))
        .ok,
    ).toBe(false)
    // An upstream naming a service compose does not have is no instance's.
    expect(() => onLoopback(nginx().replace('clubs-2:', 'clubs-3:'), ports, 1)).toThrow(/clubs-3/)
  })
})

describe('the compose model', () => {
  test('interpolates as compose does', () => {
    const vars = { SET: 'x', EMPTY: '' }
    for (const [text, out] of [
      ['${SET}', 'x'],
      ['$SET/y', 'x/y'],
      ['${UNSET:-d}', 'd'],
      ['${EMPTY:-d}', 'd'],
      ['${EMPTY-d}', ''],
      ['${SET:-d}', 'x'],
      ['$$SET', '$SET'],
      ['${UNSET}', ''],
    ])
      expect(`${text} → ${interpolate(text!, vars)}`).toBe(`${text} → ${out}`)
    expect(() => interpolate('${UNSET:?set the password}', vars)).toThrow(/set the password/)
    expect(() => interpolate('${EMPTY:?}', vars)).toThrow(/EMPTY is required/)
  })

  test('refuses what it does not model', () => {
    expect(() => parseCompose('services:\n  a:\n    image: x\n    network_mode: host\n')).toThrow(
      /service a: network_mode is not modelled/,
    )
    expect(() => parseCompose('services: {}\nnetworks: {}\n')).toThrow(/networks at the top level/)
  })

  test('reads the list forms of environment and depends_on', () => {
    const { services } = parseCompose('services:\n  a:\n    environment: [A=1, B=x=y]\n    depends_on: [b]\n')
    expect(services.a!.environment).toEqual({ A: '1', B: 'x=y' })
    expect(services.a!.dependsOn).toEqual({ b: 'service_started' })
  })
})

/** Runs the compose file's opening commands in `dir`, as an operator does beside the file. */
function makeSecrets(dir: string) {
  mkdirSync(join(dir, 'deploy'), { recursive: true })
  copyFileSync(join(ROOT, TEMPLATE), join(dir, TEMPLATE))
  for (const command of headerCommands(POSTGRES_COMPOSE).filter((c) => !c.startsWith('docker '))) {
    const run = Bun.spawnSync(['sh', '-c', command], { cwd: dir, stderr: 'pipe' })
    if (run.exitCode !== 0) throw new Error(`${command}: ${run.stderr.toString()}`)
  }
}

/** The image's own paths (what its COPY lines put where) → the repository's files they come from. */
function imageFiles(stage: Stage): Record<string, string> {
  const out: Record<string, string> = {}
  let workdir = '/'
  for (const step of stage.steps) {
    if (step.kind === 'WORKDIR') workdir = posix.resolve(workdir, step.path)
    if (step.kind !== 'COPY' || step.from !== null || step.sources.length !== 1) continue
    const source = step.sources[0]!
    const dest = step.dest.endsWith('/') ? posix.join(step.dest, basename(source)) : step.dest
    out[posix.resolve(workdir, dest)] = join(ROOT, source)
  }
  return out
}

describe('compose.postgres.yaml, run on loopback', () => {
  const file = parseCompose(POSTGRES_COMPOSE)
  const instances = instancesOf(file)
  const processes: Subprocess[] = []
  const direct: Record<string, string> = {}
  const dir = tempDir('clubs-compose-run-')
  const secrets = join(dir, 'secrets')
  let pg: Postgres
  let proxied = ''
  let adminToken = ''
  const envs: Record<string, Record<string, string>> = {}

  beforeAll(async () => {
    mkdirSync(secrets)
    makeSecrets(secrets)
    adminToken = readFileSync(join(secrets, file.secrets.admin_token!), 'utf8').trim()
    // What the postgres image's entrypoint does with POSTGRES_USER, POSTGRES_PASSWORD_FILE and POSTGRES_DB.
    pg = await startPostgres()
    const { POSTGRES_USER: user, POSTGRES_DB: db } = file.services.postgres!.environment
    const password = readFileSync(join(secrets, file.secrets.postgres_password!), 'utf8').trim()
    const admin = new SQL(pg.url())
    await admin.unsafe(`CREATE ROLE "${user}" LOGIN PASSWORD '${password.replaceAll("'", "''")}'`)
    await admin.unsafe(`CREATE DATABASE "${db}" OWNER "${user}"`)
    await admin.close()

    // /run/secrets/<name> → the files the commands made; the URL's host is the harness's.
    const mounted: Record<string, string> = {}
    for (const [name, path] of Object.entries(file.secrets)) mounted[secretPath(name)] = join(secrets, path)
    const url = readFileSync(mounted[secretPath('database_url')]!, 'utf8').replace(
      '@postgres:5432/',
      `@127.0.0.1:${pg.port}/`,
    )
    writeFileSync(join(secrets, 'database_url.loopback.txt'), url)
    mounted[secretPath('database_url')] = join(secrets, 'database_url.loopback.txt')

    const files = imageFiles(IMAGE)
    const image = Object.fromEntries(Object.entries(stageEnv(IMAGE)).map(([k, v]) => [k, files[v] ?? v]))
    for (const instance of instances) {
      const port = freePort()
      direct[instance.name] = `http://127.0.0.1:${port}`
      // campus.env as the template makes it, but for the sample the operator tries it out on.
      const campus = {
        ...parseEnvFile(readFileSync(join(secrets, 'campus.env'), 'utf8')),
        CLUBS_SEED_FILE: '/app/seed/seed.json',
      }
      const env = { ...image, ...campus, ...instance.environment, PORT: String(port), HOST: '127.0.0.1' }
      envs[instance.name] = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, mounted[v] ?? files[v] ?? v]))
    }
    // As compose starts them: at once, on an empty database.
    const started = instances.map((i) =>
      spawnService(Number(new URL(direct[i.name]!).port), envs[i.name]!, { stdout: 'ignore', stderr: 'pipe' }),
    )
    processes.push(...started)
    await Promise.all(started.map((proc, n) => waitForHealth(direct[instances[n]!.name]!, proc)))

    const listen = freePort()
    proxied = `http://127.0.0.1:${listen}`
    const ports = Object.fromEntries(instances.map((i) => [i.name, Number(new URL(direct[i.name]!).port)]))
    const config = onLoopback(read(proxyConfig(file.services.proxy!)), ports, listen).replace(
      /^server \{/m,
      `log_format upstreams '$upstream_addr';\nserver {\n    access_log ${join(dir, 'upstreams.log')} upstreams;`,
    )
    processes.push(await startNginx(dir, config, () => fetch(`${proxied}/health`).then((r) => r.ok)))
  }, 120_000)

  afterAll(async () => {
    for (const proc of processes) await stopService(proc)
    await pg?.stop()
  }, 60_000)

  test("each instance passes the compose file's healthcheck, and both serve the same directory, seeded once", async () => {
    for (const instance of instances) {
      const [, ...command] = instance.healthcheck!.test as string[]
      const check = Bun.spawnSync(command, { cwd: ROOT, env: { ...process.env, ...envs[instance.name] } })
      expect(`${instance.name}: ${check.exitCode}`).toBe(`${instance.name}: 0`)
    }
    const lists = await Promise.all(
      instances.map(async (i) =>
        ((await (await fetch(`${direct[i.name]}/api/clubs/?fields=code`)).json()) as { code: string }[]).map(
          (c) => c.code,
        ),
      ),
    )
    expect(lists[0]!.length).toBeGreaterThan(0)
    expect(new Set(lists[0]!).size).toBe(lists[0]!.length)
    for (const list of lists) expect(list).toEqual(lists[0]!)
  })

  test('a write through the proxy is read on every instance within 1 s, and the proxy uses them all', async () => {
    const created = await fetch(`${proxied}/api/clubs/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Two Instances Club', subtitle: 'Written through the proxy' }),
    })
    expect(created.status).toBe(201)
    const { code } = (await created.json()) as { code: string }
    const deadline = Date.now() + 1_000
    for (const instance of instances) {
      let status = 0
      while (status !== 200 && Date.now() < deadline) {
        // Pending until approved: the admin sees it.
        status = (
          await fetch(`${direct[instance.name]}/api/clubs/${code}/`, {
            headers: { authorization: `Bearer ${adminToken}` },
          })
        ).status
        if (status !== 200) await sleep(20)
      }
      expect(`${instance.name}: ${status}`).toBe(`${instance.name}: 200`)
    }
    for (let i = 0; i < 2 * instances.length; i++) await fetch(`${proxied}/api/clubs/${code}/`)
    const used = new Set(readFileSync(join(dir, 'upstreams.log'), 'utf8').split('\n').filter(Boolean))
    expect([...used].sort()).toEqual(
      Object.values(direct)
        .map((base) => base.replace('http://', ''))
        .sort(),
    )
  })

  test('the change stream through the proxy carries a write made on another instance', async () => {
    const abort = new AbortController()
    try {
      const res = await fetch(`${proxied}/api/changes/stream`, { signal: abort.signal })
      expect(res.status).toBe(200)
      const reader = new SseReader(res)
      for (const instance of instances) {
        const subtitle = `Changed on ${instance.name}`
        const changed = await fetch(`${direct[instance.name]}/api/clubs/penn-chess-society/`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ subtitle }),
        })
        expect(changed.status).toBe(200)
        await reader.waitFor((m) => m.event === 'club.changed' && JSON.parse(m.data!).club.subtitle === subtitle)
      }
    } finally {
      abort.abort()
    }
  }, 20_000)
})
