import pino, { type DestinationStream } from 'pino'
import type PinoPretty from 'pino-pretty'
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
  flush(): Promise<void>
}

/** Readable coloured lines when a person watches a terminal outside production; JSON lines otherwise. */
const readableOnTerminal = () => Boolean(process.stdout.isTTY) && process.env.NODE_ENV !== 'production'

/** Coloured lines for a person at a terminal; pino-pretty is loaded only then (it takes a start 25 ms). */
function readableLines(): DestinationStream {
  const pinoPretty = (require('pino-pretty') as { default: typeof PinoPretty }).default
  return pinoPretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' })
}

/**
 * One JSON object a line (`level`, `time`, the fields, `msg`), from `level` up (CLUBS_LOG_LEVEL),
 * on stdout without blocking a request on a write, or to `destination`.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const readable = destination === undefined && readableOnTerminal()
  const stdout = destination === undefined && !readable ? new StdoutLines() : null
  const sink: DestinationStream = stdout ?? destination ?? readableLines()
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
    flush: async () => {
      logger.flush()
      // Lines wait for the end of the event loop's turn; exit would lose them.
      await stdout?.flush()
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
 * The lines of one turn of the event loop, handed to Bun's writer for stdout as one write: it
 * writes without blocking and without a thread or a callback per write. Under load, a write per
 * access line (sonic-boom's, each measured, copied and sent through the thread pool) cost a
 * third of a small answer, and batched through sonic-boom still a tenth.
 */
class StdoutLines {
  readonly #writer = Bun.stdout.writer()
  #pending = ''

  constructor() {
    // The writer alone must not keep the process alive.
    this.#writer.unref()
  }

  write(line: string): void {
    if (this.#pending === '') setImmediate(this.#handOver)
    this.#pending += line
  }

  async flush(): Promise<void> {
    this.#handOver()
    await this.#writer.flush()
  }

  readonly #handOver = () => {
    if (this.#pending === '') return
    this.#writer.write(this.#pending)
    this.#pending = ''
    void this.#writer.flush()
  }
}
