import { LOG_LEVELS, type LogLevel } from './config'

export type Fields = Record<string, unknown>

export interface Logger {
  debug(msg: string, fields?: Fields): void
  info(msg: string, fields?: Fields): void
  warn(msg: string, fields?: Fields): void
  error(msg: string, fields?: Fields): void
  /** Whether a line of this level would be written (so callers can skip building it). */
  enabled(level: Exclude<LogLevel, 'silent'>): boolean
}

/** One JSON object a line, on stdout, from `level` up (CLUBS_LOG_LEVEL). */
export function createLogger(level: LogLevel, write: (line: string) => void = (line) => console.log(line)): Logger {
  const threshold = LOG_LEVELS.indexOf(level)
  const at = (name: Exclude<LogLevel, 'silent'>) => {
    const on = LOG_LEVELS.indexOf(name) >= threshold
    return (msg: string, fields: Fields = {}) => {
      if (on) write(JSON.stringify({ time: new Date().toISOString(), level: name, msg, ...fields }))
    }
  }
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    enabled: (name) => LOG_LEVELS.indexOf(name) >= threshold,
  }
}
