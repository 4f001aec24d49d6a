import { afterEach, describe, expect, it } from 'bun:test'
import type { Subprocess } from 'bun'
import { join } from 'node:path'
import { ConfigError, configWarnings, loadConfig } from '../src/config'

// docs/reference.md §10: the environment, validated; an invalid value stops the start with a clear message.

const ROOT = join(import.meta.dir, '..')
const processes: Subprocess[] = []

afterEach(() => {
  for (const proc of processes.splice(0)) if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL')
})

/** The ConfigError that `env` causes; fails the test when there is none. */
function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return error as ConfigError
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`)
}

describe('loadConfig', () => {
  it('uses the defaults for an empty environment', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: '0.0.0.0',
      dataFile: 'data/db.json',
      databaseUrl: null,
      seedFile: 'data/seed.json',
      adminToken: null,
      autoApprove: false,
      readOnly: false,
      logLevel: 'info',
      rateLimit: null,
      trustProxy: false,
      metrics: false,
      metricsToken: null,
      backups: null,
      oidc: null,
      production: false,
      site: { title: 'Club Directory' },
      timezone: 'UTC',
      maxStreams: 1000,
      journalBytes: 8 * 1024 * 1024,
      webhookAllowPrivate: false,
      sandbox: false,
    })
  })

  it('is in production only with NODE_ENV=production (no development admin token then)', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).production).toBe(true)
    for (const NODE_ENV of ['development', 'test', 'Production', ''])
      expect(loadConfig({ NODE_ENV }).production).toBe(false)
  })

  it('treats empty values as unset', () => {
    const empty = { PORT: '', HOST: '', CLUBS_DATA_FILE: '', CLUBS_AUTO_APPROVE: '', CLUBS_LOG_LEVEL: '' }
    expect(loadConfig(empty)).toEqual(loadConfig({}))
  })

  it('reads every variable', () => {
    expect(
      loadConfig({
        PORT: '8080',
        HOST: '127.0.0.1',
        CLUBS_DATA_FILE: '/var/lib/clubs/db.json',
        CLUBS_SEED_FILE: '/srv/seed.json',
        CLUBS_ADMIN_TOKEN: 'a-long-secret',
        CLUBS_AUTO_APPROVE: 'true',
        CLUBS_READ_ONLY: 'true',
        CLUBS_LOG_LEVEL: 'debug',
        CLUBS_RATE_LIMIT: '600',
        CLUBS_MAX_STREAMS: '50',
        CLUBS_JOURNAL_BYTES: '65536',
        CLUBS_WEBHOOK_ALLOW_PRIVATE: 'true',
        CLUBS_SANDBOX: 'true',
      }),
    ).toEqual({
      port: 8080,
      host: '127.0.0.1',
      dataFile: '/var/lib/clubs/db.json',
      databaseUrl: null,
      seedFile: '/srv/seed.json',
      adminToken: 'a-long-secret',
      autoApprove: true,
      readOnly: true,
      logLevel: 'debug',
      rateLimit: 600,
      trustProxy: false,
      metrics: false,
      metricsToken: null,
      backups: null,
      oidc: null,
      production: false,
      site: { title: 'Club Directory' },
      timezone: 'UTC',
      maxStreams: 50,
      journalBytes: 65536,
      webhookAllowPrivate: true,
      sandbox: true,
    })
  })

  it.each(['0', '-1', '1.5', '8M', ''.padEnd(13, '9')])('refuses CLUBS_JOURNAL_BYTES=%p, naming it', (raw) => {
    expect(configError({ CLUBS_JOURNAL_BYTES: raw }).message).toContain('CLUBS_JOURNAL_BYTES')
  })

  it.each(['0', '-1', '1.5', 'many', '1000000'])('refuses CLUBS_MAX_STREAMS=%p, naming it', (raw) => {
    expect(configError({ CLUBS_MAX_STREAMS: raw }).message).toContain('CLUBS_MAX_STREAMS')
  })

  it.each([
    ['0', 0],
    ['1', 1],
    ['65535', 65535],
  ])('accepts PORT=%p', (raw, port) => {
    expect(loadConfig({ PORT: raw }).port).toBe(port)
  })

  it.each(['0.0.0.0', '127.0.0.1', '::', '::1', 'localhost', 'clubs.internal', 'api'])('accepts HOST=%p', (raw) => {
    expect(loadConfig({ HOST: raw }).host).toBe(raw)
  })

  it.each(['999.1.1.1', '1.2.3', '256.0.0.1', 'not a host', 'a_b', '-x', 'x..y', ':::1::'])(
    'refuses HOST=%p with a message naming HOST (not a stack trace at listen)',
    (raw) => {
      expect(configError({ HOST: raw }).message).toStartWith(`config: HOST=${JSON.stringify(raw)} is not valid`)
    },
  )

  it.each([
    [
      'prod',
      [
        'NODE_ENV=prod is not one of production, development, test: the service runs as in development (a development admin token, readable logs); set NODE_ENV=production for a deployment',
      ],
    ],
    ['production', []],
    ['development', []],
    ['test', []],
    [undefined, []],
  ])('warns of NODE_ENV=%p only when it is no value Node tools know', (value, warnings) => {
    expect(configWarnings({ NODE_ENV: value })).toEqual(warnings)
  })

  it.each(['abc', '70000', '65536', '-1', '3000.5', '1e3', '0x50', '80abc'])('refuses PORT=%p, naming PORT', (raw) => {
    expect(configError({ PORT: raw }).message).toContain('PORT')
  })

  it.each([
    ['true', true],
    ['false', false],
    ['TRUE', true],
    ['False', false],
  ])('parses CLUBS_AUTO_APPROVE=%p', (raw, value) => {
    expect(loadConfig({ CLUBS_AUTO_APPROVE: raw }).autoApprove).toBe(value)
  })

  it.each([
    [{}, false, false],
    [{ CLUBS_SANDBOX: 'true' }, true, true],
    [{ CLUBS_SANDBOX: 'true', CLUBS_AUTO_APPROVE: 'false' }, true, false],
    [{ CLUBS_SANDBOX: 'false', CLUBS_AUTO_APPROVE: 'true' }, false, true],
  ])('reads the sandbox of %p, new clubs approved at once in it unless said otherwise', (env, sandbox, autoApprove) => {
    expect(loadConfig(env)).toMatchObject({ sandbox, autoApprove })
  })

  it.each([
    ['demo', 'demo'],
    ['demo:1', 'demo:1'],
    ['demo:100000', 'demo:100000'],
  ])('takes CLUBS_SEED_FILE=%p, a generated campus', (raw, seed) => {
    expect(loadConfig({ CLUBS_SEED_FILE: raw }).seedFile).toBe(seed)
  })

  it.each(['demo:0', 'demo:100001', 'demo:', 'demo:ten', 'demo:-3', 'demo:1.5'])(
    'refuses CLUBS_SEED_FILE=%p, naming it and the range',
    (raw) => {
      const { message } = configError({ CLUBS_SEED_FILE: raw })
      expect(message).toContain('CLUBS_SEED_FILE')
      expect(message).toContain('1 to 100,000')
    },
  )

  it.each([
    ['true', true],
    ['false', false],
  ])('parses CLUBS_READ_ONLY=%p', (raw, value) => {
    expect(loadConfig({ CLUBS_READ_ONLY: raw }).readOnly).toBe(value)
  })

  it.each([
    ['0', null],
    ['', null],
    ['120', 120],
  ])('reads CLUBS_RATE_LIMIT=%p as %p requests a minute', (raw, value) => {
    expect(loadConfig({ CLUBS_RATE_LIMIT: raw }).rateLimit).toBe(value)
  })

  it.each(['-5', 'lots', '1.5', '2000000'])('refuses CLUBS_RATE_LIMIT=%p, naming it', (raw) => {
    expect(configError({ CLUBS_RATE_LIMIT: raw }).message).toContain('CLUBS_RATE_LIMIT')
  })

  it.each([
    ['CLUBS_AUTO_APPROVE', 'maybe'],
    ['CLUBS_AUTO_APPROVE', 'truee'],
    ['CLUBS_READ_ONLY', 'perhaps'],
    ['CLUBS_SANDBOX', 'sometimes'],
    ['CLUBS_LOG_LEVEL', 'loud'],
    ['CLUBS_LOG_LEVEL', 'verbose'],
    ['CLUBS_ADMIN_TOKEN', 'short'],
    ['CLUBS_ADMIN_TOKEN', 'has a space in it'],
  ])('refuses %s=%p, naming the variable', (name, raw) => {
    expect(configError({ [name]: raw }).message).toContain(name)
  })

  it.each(['debug', 'info', 'warn', 'error', 'silent'])('accepts CLUBS_LOG_LEVEL=%p', (level) => {
    expect(loadConfig({ CLUBS_LOG_LEVEL: level }).logLevel).toBe(level)
  })

  it.each([
    ['America/New_York', 'America/New_York'],
    ['europe/berlin', 'Europe/Berlin'],
    ['UTC', 'UTC'],
    ['Asia/Kolkata', 'Asia/Kolkata'],
  ])('takes CLUBS_TIMEZONE=%p as %p', (raw, zone) => {
    expect(loadConfig({ CLUBS_TIMEZONE: raw }).timezone).toBe(zone)
  })

  it.each(['Mars/Olympus_Mons', '+01:00', 'GMT+1:00', 'New York', 'Etc/Nowhere'])(
    'refuses CLUBS_TIMEZONE=%p, naming the variable and what it takes',
    (raw) => {
      const { message } = configError({ CLUBS_TIMEZONE: raw })
      expect(message).toStartWith(`config: CLUBS_TIMEZONE=${JSON.stringify(raw)} is not valid`)
      expect(message).toContain('IANA time zone')
    },
  )

  it('does not print the admin token in its error', () => {
    expect(configError({ CLUBS_ADMIN_TOKEN: 'bad token!' }).message).not.toContain('bad token!')
  })
})

describe('the real service', () => {
  it('exits non-zero with a message naming PORT when PORT=abc', async () => {
    const proc = Bun.spawn([process.execPath, join(ROOT, 'src', 'index.ts')], {
      cwd: ROOT,
      env: { ...process.env, PORT: 'abc', CLUBS_DATA_FILE: ':memory:' },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    processes.push(proc)
    const code = await Promise.race([proc.exited, Bun.sleep(15_000).then(() => 'timeout')])
    expect(code).not.toBe('timeout')
    expect(code).not.toBe(0)
    const stderr = await new Response(proc.stderr as ReadableStream).text()
    expect(stderr).toContain('PORT')
    expect(stderr).toContain('abc')
  })

  it('exits non-zero at start-up with a message naming CLUBS_TIMEZONE when it names no time zone', async () => {
    const proc = Bun.spawn([process.execPath, join(ROOT, 'src', 'index.ts')], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', CLUBS_TIMEZONE: 'Campus/Standard_Time', CLUBS_DATA_FILE: ':memory:' },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    processes.push(proc)
    const code = await Promise.race([proc.exited, Bun.sleep(15_000).then(() => 'timeout')])
    expect(code).toBe(1)
    const stderr = await new Response(proc.stderr as ReadableStream).text()
    expect(stderr).toContain('config: CLUBS_TIMEZONE="Campus/Standard_Time" is not valid')
  })
})
