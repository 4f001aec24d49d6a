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
  const sink: DestinationStream & { flushSync?: () => void } =
    destination ??
    (readable
      ? pinoPretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' })
      : new LineBatch(pino.destination({ fd: 1, sync: false, contentMode: 'buffer' })))
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
  const now = isoClock()
  return {
    request: (fields) => {
      if (!infoOn) return
      if (readable) return logger.info(fields, 'request')
      // The same line pino writes: level, time, the fields, msg.
      sink.write(`{"level":"info","time":"${now()}",${JSON.stringify(fields).slice(1, -1)},"msg":"request"}\n`)
    },
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    enabled: (name) => logger.isLevelEnabled(name),
    flush: () => {
      logger.flush()
      // An async file descriptor writer keeps lines in memory until its next tick; exit would lose them.
      try {
        sink.flushSync?.()
      } catch {}
    },
  }
}

/** The time as ISO 8601, made once a millisecond: under load many lines share one. */
function isoClock(): () => string {
  let at = 0
  let iso = ''
  return () => {
    const ms = Date.now()
    if (ms !== at) iso = new Date((at = ms)).toISOString()
    return iso
  }
}

/**
 * The lines of one turn of the event loop, handed to `sink` as one write. Under load a write per
 * access line (each measuring, copying and queueing its bytes) cost a third of a small answer.
 */
class LineBatch {
  #pending = ''

  constructor(private readonly sink: DestinationStream & { flushSync(): void }) {}

  write(line: string): void {
    if (this.#pending === '') setImmediate(this.#handOver)
    this.#pending += line
  }

  flushSync(): void {
    this.#handOver()
    this.sink.flushSync()
  }

  readonly #handOver = () => {
    if (this.#pending === '') return
    const lines = this.#pending
    this.#pending = ''
    // As bytes: given a string, the writer would encode all it holds again after each write.
    this.sink.write(Buffer.from(lines) as unknown as string)
  }
}
