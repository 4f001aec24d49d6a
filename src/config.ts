import { IN_MEMORY } from './store/store'

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

export interface Config {
  readonly port: number
  readonly host: string
  /** A path, or ":memory:" to keep everything in memory. */
  readonly dataFile: string
  readonly seedFile: string
  readonly adminToken: string | null
  readonly autoApprove: boolean
  readonly readOnly: boolean
  readonly logLevel: LogLevel
  /** Requests a minute per token or address; null: no limit. */
  readonly rateLimit: number | null
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

/** Reads CONTRACT §10's variables; throws ConfigError on the first invalid one. */
export function loadConfig(env: Env = process.env): Config {
  const adminToken = env.CLUBS_ADMIN_TOKEN || null
  if (adminToken !== null && (adminToken.length < 8 || /\s/.test(adminToken)))
    throw new ConfigError('CLUBS_ADMIN_TOKEN', '<hidden>', 'at least 8 characters, no spaces')
  const logLevel = (env.CLUBS_LOG_LEVEL || 'info').toLowerCase()
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
    throw new ConfigError('CLUBS_LOG_LEVEL', env.CLUBS_LOG_LEVEL ?? '', `one of ${LOG_LEVELS.join(', ')}`)
  return {
    port: port(env),
    host: text(env, 'HOST', '0.0.0.0'),
    dataFile: text(env, 'CLUBS_DATA_FILE', 'data/db.json'),
    seedFile: text(env, 'CLUBS_SEED_FILE', 'data/seed.json'),
    adminToken,
    autoApprove: flag(env, 'CLUBS_AUTO_APPROVE'),
    readOnly: flag(env, 'CLUBS_READ_ONLY'),
    logLevel: logLevel as LogLevel,
    rateLimit: rateLimit(env),
  }
}

export { IN_MEMORY }
