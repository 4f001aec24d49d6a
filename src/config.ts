import { readFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { DEFAULT_MAX_STREAMS } from './edge/change-streams'
import type { OidcSettings } from './edge/oidc'
import { IN_MEMORY, JOURNAL_BYTES } from './store/store'

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

export interface Config {
  readonly port: number
  readonly host: string
  /** A path, or ":memory:" to keep everything in memory. */
  readonly dataFile: string
  /** PostgreSQL in place of the data file (docs/reference.md §19); null: the data file. */
  readonly databaseUrl: string | null
  readonly seedFile: string
  readonly adminToken: string | null
  readonly autoApprove: boolean
  readonly readOnly: boolean
  readonly logLevel: LogLevel
  /** Requests a minute per token or address; null: no limit. */
  readonly rateLimit: number | null
  /** Whose X-Forwarded-* headers to believe: nobody, any peer, or these proxy addresses (docs/reference.md §17). */
  readonly trustProxy: boolean | readonly string[]
  readonly metrics: boolean
  /** The bearer token /metrics asks for; null: none. */
  readonly metricsToken: string | null
  /** Timestamped copies of the data file: where, how often, how many; null dir: none. */
  readonly backups: { readonly dir: string; readonly intervalMs: number; readonly keep: number } | null
  /** Campus sign-in (docs/reference.md §13); null when CLUBS_OIDC_ISSUER is not set. */
  readonly oidc: OidcSettings | null
  /** NODE_ENV=production (as the Docker image sets): no development admin token is made or taken. */
  readonly production: boolean
  /** The campus site (docs/reference.md §20), with the campus's name; null when CLUBS_SITE=false. */
  readonly site: { readonly title: string } | null
  /** How many change streams (docs/reference.md §18) may be open at once. */
  readonly maxStreams: number
  /** How large the data file's journal grows before the snapshot is written again (CLUBS_JOURNAL_BYTES). */
  readonly journalBytes: number
  /** The campus time zone, an IANA name as the platform spells it: meeting times are in it (docs/reference.md §21). */
  readonly timezone: string
  /** Webhooks may reach loopback, private and link-local addresses (docs/reference.md §18): a receiver on this host or network. */
  readonly webhookAllowPrivate: boolean
  /** The sandbox for prototyping (docs/reference.md §25): reset over HTTP, delays and faults on request, a request log. */
  readonly sandbox: boolean
}

/** A setting that stops the start; the message says which variable and why. */
export class ConfigError extends Error {
  constructor(variable: string, value: string, expected: string) {
    super(`config: ${variable}=${JSON.stringify(value)} is not valid: ${expected}`)
  }
}

type Env = Record<string, string | undefined>

function flag(env: Env, name: string): boolean {
  const raw = env[name]
  if (raw === undefined || raw === '') return false
  const v = raw.trim().toLowerCase()
  if (['true', '1', 'yes', 'on'].includes(v)) return true
  if (['false', '0', 'no', 'off'].includes(v)) return false
  throw new ConfigError(name, raw, 'use true or false')
}

function port(env: Env): number {
  const raw = env.PORT
  if (raw === undefined || raw === '') return 3000
  const n = Number(raw)
  if (!/^\d+$/.test(raw.trim()) || n < 0 || n > 65535)
    throw new ConfigError('PORT', raw, 'a whole number from 0 to 65535')
  return n
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i

/** An IP address or a host name to listen on; dotted digits must be a real IPv4 address (999.1.1.1 is not). */
function host(env: Env): string {
  const raw = text(env, 'HOST', '0.0.0.0')
  const dotted = /^[\d.]+$/.test(raw)
  if (isIP(raw) !== 0 || (!dotted && HOST_NAME.test(raw))) return raw
  throw new ConfigError('HOST', raw, 'an IP address (0.0.0.0, 127.0.0.1, ::) or a host name to listen on')
}

function rateLimit(env: Env): number | null {
  const raw = env.CLUBS_RATE_LIMIT
  if (raw === undefined || raw === '' || raw.trim() === '0') return null
  if (!/^\d+$/.test(raw.trim()) || Number(raw) > 1_000_000)
    throw new ConfigError(
      'CLUBS_RATE_LIMIT',
      raw,
      'requests a minute per caller, a whole number (0 or unset: no limit)',
    )
  return Number(raw)
}

function text(env: Env, name: string, fallback: string): string {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (raw.trim() !== raw) throw new ConfigError(name, raw, 'no leading or trailing spaces')
  return raw
}

/** Every variable the service reads; each may also come from a file as NAME_FILE (docs/reference.md §17). */
export const VARIABLES = [
  'PORT',
  'HOST',
  'CLUBS_DATA_FILE',
  'CLUBS_DATABASE_URL',
  'CLUBS_SEED_FILE',
  'CLUBS_ADMIN_TOKEN',
  'CLUBS_AUTO_APPROVE',
  'CLUBS_READ_ONLY',
  'CLUBS_LOG_LEVEL',
  'CLUBS_RATE_LIMIT',
  'CLUBS_TRUST_PROXY',
  'CLUBS_METRICS',
  'CLUBS_METRICS_TOKEN',
  'CLUBS_BACKUP_DIR',
  'CLUBS_BACKUP_INTERVAL',
  'CLUBS_BACKUP_KEEP',
  'CLUBS_OIDC_ISSUER',
  'CLUBS_OIDC_AUDIENCE',
  'CLUBS_OIDC_USERNAME_CLAIM',
  'CLUBS_OIDC_GROUPS_CLAIM',
  'CLUBS_OIDC_ADMIN_GROUP',
  'CLUBS_OIDC_CLIENT_ID',
  'CLUBS_OIDC_CLIENT_SECRET',
  'CLUBS_SITE',
  'CLUBS_SITE_TITLE',
  'CLUBS_TIMEZONE',
  'CLUBS_MAX_STREAMS',
  'CLUBS_JOURNAL_BYTES',
  'CLUBS_WEBHOOK_ALLOW_PRIVATE',
  'CLUBS_SANDBOX',
] as const

/** `env` with each NAME_FILE read into NAME (its content less one trailing newline); both set is an error. */
export function withFileVariables(env: Env): Env {
  const out: Env = { ...env }
  for (const name of VARIABLES) {
    const file = env[`${name}_FILE`]
    if (file === undefined || file === '') continue
    if (env[name] !== undefined && env[name] !== '')
      throw new ConfigError(`${name}_FILE`, file, `${name} is set too; set one of ${name} and ${name}_FILE`)
    try {
      out[name] = readFileSync(file, 'utf8').replace(/\r?\n$/, '')
    } catch (e) {
      throw new ConfigError(`${name}_FILE`, file, `a readable file (${(e as NodeJS.ErrnoException).code ?? e})`)
    }
  }
  return out
}

function trustProxy(env: Env): Config['trustProxy'] {
  const raw = env.CLUBS_TRUST_PROXY
  if (raw === undefined || raw === '' || raw.trim().toLowerCase() === 'false') return false
  if (raw.trim().toLowerCase() === 'true') return true
  const addresses = raw.split(',').map((part) => part.trim())
  if (addresses.some((a) => !/^[0-9a-fA-F.:]+$/.test(a)))
    throw new ConfigError('CLUBS_TRUST_PROXY', raw, 'false, true, or a comma-separated list of proxy IP addresses')
  return addresses
}

const DURATION_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

function backups(env: Env): Config['backups'] {
  const dir = env.CLUBS_BACKUP_DIR
  if (dir === undefined || dir === '') return null
  const interval = env.CLUBS_BACKUP_INTERVAL || '1h'
  const match = /^(\d+)([smhd])$/.exec(interval.trim())
  if (!match || Number(match[1]) === 0)
    throw new ConfigError('CLUBS_BACKUP_INTERVAL', interval, 'a whole number and a unit: 30s, 30m, 1h, 1d')
  const keep = env.CLUBS_BACKUP_KEEP || '24'
  if (!/^\d+$/.test(keep.trim()) || Number(keep) < 1)
    throw new ConfigError('CLUBS_BACKUP_KEEP', keep, 'how many backups to keep, a whole number from 1')
  return {
    dir: text(env, 'CLUBS_BACKUP_DIR', dir),
    intervalMs: Number(match[1]) * DURATION_UNITS[match[2]!]!,
    keep: Number(keep),
  }
}

function oidc(env: Env): Config['oidc'] {
  const issuer = env.CLUBS_OIDC_ISSUER || null
  const audience = env.CLUBS_OIDC_AUDIENCE || null
  if (issuer === null && audience === null) return null
  if (issuer === null || audience === null) {
    const [set, unset] =
      issuer === null ? ['CLUBS_OIDC_AUDIENCE', 'CLUBS_OIDC_ISSUER'] : ['CLUBS_OIDC_ISSUER', 'CLUBS_OIDC_AUDIENCE']
    throw new ConfigError(set, env[set]!, `campus sign-in needs ${unset} too`)
  }
  if (!URL.canParse(issuer) || !/^https?:$/.test(new URL(issuer).protocol))
    throw new ConfigError('CLUBS_OIDC_ISSUER', issuer, 'the issuer URL, as its tokens name it in "iss" (https://...)')
  return {
    issuer: text(env, 'CLUBS_OIDC_ISSUER', issuer),
    audience: text(env, 'CLUBS_OIDC_AUDIENCE', audience),
    usernameClaim: text(env, 'CLUBS_OIDC_USERNAME_CLAIM', 'preferred_username'),
    groupsClaim: text(env, 'CLUBS_OIDC_GROUPS_CLAIM', 'groups'),
    adminGroup: env.CLUBS_OIDC_ADMIN_GROUP ? text(env, 'CLUBS_OIDC_ADMIN_GROUP', '') : null,
    clientId: env.CLUBS_OIDC_CLIENT_ID ? text(env, 'CLUBS_OIDC_CLIENT_ID', '') : undefined,
    clientSecret: clientSecret(env),
  }
}

/** The site's client secret at the provider, never repeated in a message. */
function clientSecret(env: Env): string | null {
  const raw = env.CLUBS_OIDC_CLIENT_SECRET || null
  if (raw !== null && raw.trim() !== raw)
    throw new ConfigError('CLUBS_OIDC_CLIENT_SECRET', '<hidden>', 'no leading or trailing spaces')
  return raw
}

/** Reads the variables of docs/reference.md §10 and §17 (each also as NAME_FILE); throws ConfigError on the first invalid one. */
export function loadConfig(rawEnv: Env = process.env): Config {
  const env = withFileVariables(rawEnv)
  const adminToken = env.CLUBS_ADMIN_TOKEN || null
  if (adminToken !== null && (adminToken.length < 8 || /\s/.test(adminToken)))
    throw new ConfigError('CLUBS_ADMIN_TOKEN', '<hidden>', 'at least 8 characters, no spaces')
  const sandbox = flag(env, 'CLUBS_SANDBOX')
  const logLevel = (env.CLUBS_LOG_LEVEL || 'info').toLowerCase()
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
    throw new ConfigError('CLUBS_LOG_LEVEL', env.CLUBS_LOG_LEVEL ?? '', `one of ${LOG_LEVELS.join(', ')}`)
  return {
    port: port(env),
    host: host(env),
    dataFile: text(env, 'CLUBS_DATA_FILE', 'data/db.json'),
    databaseUrl: databaseUrl(env),
    seedFile: seedFile(env),
    adminToken,
    // In the sandbox an admin's new club is public at once, unless CLUBS_AUTO_APPROVE=false says otherwise.
    autoApprove: env.CLUBS_AUTO_APPROVE ? flag(env, 'CLUBS_AUTO_APPROVE') : sandbox,
    readOnly: flag(env, 'CLUBS_READ_ONLY'),
    logLevel: logLevel as LogLevel,
    rateLimit: rateLimit(env),
    trustProxy: trustProxy(env),
    metrics: flag(env, 'CLUBS_METRICS'),
    metricsToken: env.CLUBS_METRICS_TOKEN || null,
    backups: backups(env),
    oidc: oidc(env),
    production: env.NODE_ENV === 'production',
    site: site(env),
    timezone: timezone(env),
    maxStreams: maxStreams(env),
    journalBytes: journalBytes(env),
    webhookAllowPrivate: flag(env, 'CLUBS_WEBHOOK_ALLOW_PRIVATE'),
    sandbox,
  }
}

/** A generated campus of this many clubs when CLUBS_SEED_FILE=demo names none (docs/reference.md §25). */
export const DEMO_CLUBS = 300
/** The most clubs a generated campus may have. */
export const MAX_DEMO_CLUBS = 100_000
const DEMO_SEED = /^demo(?::(.*))?$/

/** How many clubs CLUBS_SEED_FILE=demo[:N] asks for, or null when it names a file (or none). */
export function demoClubs(seedFile: string): number | null {
  const match = DEMO_SEED.exec(seedFile)
  if (!match) return null
  return match[1] === undefined ? DEMO_CLUBS : Number(match[1])
}

/** CLUBS_SEED_FILE: a file, none, or demo[:N] with N from 1 to 100,000. */
function seedFile(env: Env): string {
  const raw = text(env, 'CLUBS_SEED_FILE', 'data/seed.json')
  const match = DEMO_SEED.exec(raw)
  if (match && match[1] !== undefined && (!/^\d{1,6}$/.test(match[1]) || +match[1] < 1 || +match[1] > MAX_DEMO_CLUBS))
    throw new ConfigError(
      'CLUBS_SEED_FILE',
      raw,
      `demo or demo:N, a generated campus of N clubs, N a whole number from 1 to ${MAX_DEMO_CLUBS.toLocaleString('en-US')} (or a seed file, or none)`,
    )
  return raw
}

/** CLUBS_DATABASE_URL: a postgres:// URL, never with CLUBS_DATA_FILE too. Messages hide its password. */
function databaseUrl(env: Env): string | null {
  const raw = env.CLUBS_DATABASE_URL || null
  if (raw === null) return null
  let url: URL | null = null
  try {
    url = new URL(raw)
  } catch {
    // Said below.
  }
  const shown = url?.password ? ((url.password = '<hidden>'), url.href) : raw
  if (env.CLUBS_DATA_FILE)
    throw new ConfigError(
      'CLUBS_DATABASE_URL',
      shown,
      `not with CLUBS_DATA_FILE (${env.CLUBS_DATA_FILE}) too: the directory is kept in one of them; unset one`,
    )
  if (!url || !['postgres:', 'postgresql:'].includes(url.protocol) || !url.hostname)
    throw new ConfigError(
      'CLUBS_DATABASE_URL',
      '<hidden>',
      'a PostgreSQL URL, postgres://user:password@host:5432/database',
    )
  return raw
}

/** A whole number from 1 of at most `digits` digits, `fallback` when not set; the message says what it counts. */
function count(env: Env, name: (typeof VARIABLES)[number], fallback: number, digits: number, counts: string): number {
  const raw = text(env, name, String(fallback))
  if (!new RegExp(`^\\d{1,${digits}}$`).test(raw) || Number(raw) < 1)
    throw new ConfigError(name, raw, `${counts}, a whole number from 1`)
  return Number(raw)
}

const maxStreams = (env: Env) =>
  count(env, 'CLUBS_MAX_STREAMS', DEFAULT_MAX_STREAMS, 6, 'how many change streams may be open at once')

const journalBytes = (env: Env) =>
  count(
    env,
    'CLUBS_JOURNAL_BYTES',
    JOURNAL_BYTES,
    12,
    "how many bytes the data file's journal may hold before the snapshot is written again",
  )

/** An IANA time zone name this platform knows ("Europe/Paris", "UTC"), in its own spelling. */
function timezone(env: Env): string {
  const raw = text(env, 'CLUBS_TIMEZONE', 'UTC')
  const expected = 'an IANA time zone name, such as America/New_York, Europe/Berlin or UTC'
  // Offsets ("+01:00") are no zone: their clocks never change with the seasons.
  if (!/^[A-Za-z]/.test(raw)) throw new ConfigError('CLUBS_TIMEZONE', raw, expected)
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: raw }).resolvedOptions().timeZone
  } catch {
    throw new ConfigError('CLUBS_TIMEZONE', raw, expected)
  }
}

function site(env: Env): Config['site'] {
  const on = env.CLUBS_SITE === undefined || env.CLUBS_SITE === '' || flag(env, 'CLUBS_SITE')
  if (!on) return null
  const title = text(env, 'CLUBS_SITE_TITLE', 'Club Directory')
  if (title.length > 100 || /[\u0000-\u001f]/.test(title))
    throw new ConfigError('CLUBS_SITE_TITLE', title, "the campus's name, at most 100 characters on one line")
  return { title }
}

const NODE_ENVS = ['production', 'development', 'test']

/** Settings that start the service but probably not as meant: each a line for the start-up log. */
export function configWarnings(env: Env = process.env): string[] {
  const nodeEnv = env.NODE_ENV
  if (nodeEnv === undefined || nodeEnv === '' || NODE_ENVS.includes(nodeEnv)) return []
  return [
    `NODE_ENV=${nodeEnv} is not one of ${NODE_ENVS.join(', ')}: the service runs as in development (a development admin token, readable logs); set NODE_ENV=production for a deployment`,
  ]
}

export { IN_MEMORY }
