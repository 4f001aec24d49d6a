import pino, { type DestinationStream } from 'pino'
import pinoPretty from 'pino-pretty'
import type { LogLevel } from './config'

export type Fields = Record<string, unknown>

export interface Logger {
  debug(msg: string, fields?: Fields): void
  info(msg: string, fields?: Fields): void
  warn(msg: string, fields?: Fields): void
  error(msg: string, fields?: Fields): void
  /** Whether a line of this level would be written (so callers can skip building it). */
  enabled(level: Exclude<LogLevel, 'silent'>): boolean
  /** Writes out what is buffered: before the process exits. */
  flush(): void
}

/**
 * Where lines go: JSON lines on stdout, written asynchronously (no blocking write per request);
 * readable coloured lines when a person watches a terminal outside production.
 */
function standardOutput(): DestinationStream {
  if (process.stdout.isTTY && process.env.NODE_ENV !== 'production')
    return pinoPretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' })
  return pino.destination({ fd: 1, sync: false })
}

/** One JSON object a line (`time`, `level`, `msg`, then the fields), from `level` up (CLUBS_LOG_LEVEL). */
export function createLogger(level: LogLevel, destination: DestinationStream = standardOutput()): Logger {
  const logger = pino(
    {
      level,
      base: null,
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  )
  const at =
    (name: Exclude<LogLevel, 'silent'>) =>
    (msg: string, fields: Fields = {}) =>
      logger[name](fields, msg)
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    enabled: (name) => logger.isLevelEnabled(name),
    flush: () => {
      logger.flush()
      const sink = destination as DestinationStream & { flushSync?: () => void }
      // An async file descriptor writer keeps lines in memory until its next tick; exit would lose them.
      try {
        sink.flushSync?.()
      } catch {}
    },
  }
}
