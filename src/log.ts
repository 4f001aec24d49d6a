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
  /** One access-log line (`msg: "request"` at info): the hot path, so JSON lines skip pino's per-line work. */
  request(fields: Fields): void
  /** Writes out what is buffered: before the process exits. */
  flush(): void
}

/** Readable coloured lines when a person watches a terminal outside production; JSON lines otherwise. */
const readableOnTerminal = () => Boolean(process.stdout.isTTY) && process.env.NODE_ENV !== 'production'

/**
 * One JSON object a line (`level`, `time`, the fields, `msg`), from `level` up (CLUBS_LOG_LEVEL),
 * on stdout written asynchronously (no blocking write per request), or to `destination`.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const readable = destination === undefined && readableOnTerminal()
  const sink: DestinationStream =
    destination ??
    (readable
      ? pinoPretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' })
      : pino.destination({ fd: 1, sync: false }))
  const logger = pino(
    {
      level,
      base: null,
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    sink,
  )
  const at =
    (name: Exclude<LogLevel, 'silent'>) =>
    (msg: string, fields: Fields = {}) =>
      logger[name](fields, msg)
  const infoOn = logger.isLevelEnabled('info')
  return {
    request: (fields) => {
      if (!infoOn) return
      if (readable) return logger.info(fields, 'request')
      // The same line pino writes: level, time, the fields, msg.
      sink.write(
        `{"level":"info","time":"${new Date().toISOString()}",${JSON.stringify(fields).slice(1, -1)},"msg":"request"}\n`,
      )
    },
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    enabled: (name) => logger.isLevelEnabled(name),
    flush: () => {
      logger.flush()
      const flushing = sink as DestinationStream & { flushSync?: () => void }
      // An async file descriptor writer keeps lines in memory until its next tick; exit would lose them.
      try {
        flushing.flushSync?.()
      } catch {}
    },
  }
}
