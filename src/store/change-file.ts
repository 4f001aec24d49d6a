import { open, truncate } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { replaceFile } from './replace-file'
import { writeSyncedAt } from './write-all'

/** A change log event as its file keeps it: one JSON object a line. */
export interface LogLine {
  readonly seq: number
  readonly type: string
  readonly text: string
}

/** What a change log file held, as far as the data file vouches for it. */
export interface ReadLog {
  readonly lines: LogLine[]
  /** Every event at or below this number is no longer kept. */
  readonly trimmedUpTo: number
  /**
   * The highest number the file ever held, when past the data file's: lines of a write that never
   * landed, or of a data file restored to an earlier state. Numbering goes on past it.
   */
  readonly issued?: number
}

/** The change log beside a data file (docs/reference.md §18). */
export const changeFileOf = (dataFile: string) => `${dataFile}.changes`

const header = (trimmedUpTo: number, issued?: number) =>
  issued === undefined ? `{"trimmed_up_to":${trimmedUpTo}}\n` : `{"trimmed_up_to":${trimmedUpTo},"issued":${issued}}\n`

/**
 * The change log's file: a header line naming what compaction dropped, then one event a line,
 * oldest first. Each snapshot write appends its new events first (synced), so an event is on
 * disk before the snapshot that names it; a write that fails takes its lines back. The data file
 * says which events are real (its `changes_seq`): lines past it, and a line torn by a crash, are
 * dropped when the file is opened, the header keeping the highest number they used (so none is
 * given again). Compaction rewrites it whole (temp file and rename).
 */
export class ChangeFile {
  #length: number
  #lines: number
  #last: number

  // No handle is kept open between writes: a test's app left unclosed would have it closed by the
  // garbage collector, which Bun makes an error. An open per write is nothing beside its sync.
  private constructor(
    readonly path: string,
    length: number,
    lines: number,
    last: number,
  ) {
    this.#length = length
    this.#lines = lines
    this.#last = last
  }

  /** The number of the newest event the file holds (or last dropped). */
  get last(): number {
    return this.#last
  }

  /** How many events the file holds. */
  get lines(): number {
    return this.#lines
  }

  /**
   * Reads the log at `path`, keeping the events up to `upTo` (what the data file vouches for);
   * `writable` opens it for appending, cutting off what is not kept, or creates it.
   */
  static async open(path: string, upTo: number, writable: boolean): Promise<{ file: ChangeFile | null; log: ReadLog }> {
    let bytes: Buffer | null = null
    try {
      bytes = Buffer.from(await Bun.file(path).arrayBuffer())
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
    }
    // With no file, every event the data file numbered is gone (a log deleted, or a data file from before it).
    const parsed = bytes ? parseLog(bytes, upTo) : { log: { lines: [], trimmedUpTo: upTo }, validBytes: 0 }
    if (!writable) return { file: null, log: parsed.log }
    // A new log, one whose history the data file no longer holds, or one with lines past the data
    // file (their numbers now kept in the header) is written again whole.
    if (parsed.validBytes === 0 || parsed.log.issued !== undefined) {
      const { lines, trimmedUpTo, issued } = parsed.log
      parsed.validBytes = await writeChangeFile(path, lines, trimmedUpTo, issued)
      bytes = null
    }
    const { lines, trimmedUpTo } = parsed.log
    const file = new ChangeFile(path, parsed.validBytes, lines.length, lines.at(-1)?.seq ?? trimmedUpTo)
    if (bytes && parsed.validBytes < bytes.byteLength) await file.#cut(parsed.validBytes)
    return { file, log: parsed.log }
  }

  /** Appends `lines` and syncs them; on failure nothing of them stays. Returns how to take them back. */
  async append(lines: readonly LogLine[]): Promise<() => Promise<void>> {
    const before = this.#length
    const linesBefore = this.#lines
    const lastBefore = this.#last
    if (!lines.length) return async () => {}
    const takeBack = async () => {
      await this.#cut(before)
      this.#lines = linesBefore
      this.#last = lastBefore
    }
    const bytes = Buffer.from(lines.map((line) => `${line.text}\n`).join(''))
    try {
      await writeSyncedAt(this.path, bytes, before)
      this.#length = before + bytes.byteLength
      this.#lines = linesBefore + lines.length
      this.#last = lines.at(-1)!.seq
    } catch (error) {
      await takeBack()
      throw error
    }
    return takeBack
  }

  /** Replaces the file with `lines`, dropped events up to `trimmedUpTo`. */
  async rewrite(lines: readonly LogLine[], trimmedUpTo: number): Promise<void> {
    this.#length = await writeChangeFile(this.path, lines, trimmedUpTo)
    this.#lines = lines.length
    this.#last = lines.at(-1)?.seq ?? trimmedUpTo
  }

  /** Cuts the file back to `length` bytes, durably: lines of a write that did not land. */
  async #cut(length: number): Promise<void> {
    await truncate(this.path, length)
    const handle = await open(this.path, 'r')
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
    this.#length = length
  }
}

/**
 * Writes a whole change log at `path` (temp file, synced, renamed): `lines` after the header naming
 * the events dropped up to `trimmedUpTo` (and the highest number used, when past the lines).
 * Answers its length in bytes.
 */
export async function writeChangeFile(
  path: string,
  lines: readonly LogLine[],
  trimmedUpTo: number,
  issued?: number,
): Promise<number> {
  const text = header(trimmedUpTo, issued) + lines.map((line) => `${line.text}\n`).join('')
  await replaceFile(path, join(dirname(path), `.${basename(path)}.tmp`), [text])
  return Buffer.byteLength(text)
}

/** Why a change log cannot be used: it was not written by this service, or was changed by hand. */
export class ChangeFileError extends Error {}

/** The start of an event line as the change log writes it: `{"seq":N,"type":"T",...}`. */
const WRITTEN_EVENT = /^\{"seq":(\d{1,16}),"type":"([a-z.]+)",/

/**
 * The number and type of an event line as the change log writes it, read from its start; null for
 * any other line, which is parsed whole. A full log is 25 MB: parsing every line took about 80 ms
 * of each start, this takes 6.
 */
function writtenEvent(text: string): { seq: number; type: string } | null {
  const match = text.endsWith('}') ? WRITTEN_EVENT.exec(text) : null
  return match && { seq: Number(match[1]), type: match[2]! }
}

function parseLog(bytes: Buffer, upTo: number): { log: ReadLog; validBytes: number } {
  const lines: LogLine[] = []
  let trimmedUpTo = 0
  let highest = 0
  let validBytes = 0
  let start = 0
  for (let lineNo = 1; start < bytes.byteLength; lineNo++) {
    const end = bytes.indexOf(10, start)
    // A last line without its newline was torn by a crash: its write never finished.
    if (end < 0) break
    const text = bytes.toString('utf8', start, end)
    const fail = (why: string) => {
      throw new ChangeFileError(`line ${lineNo} ${why}; move it away to start a new log`)
    }
    let value: { seq?: unknown; type?: unknown; trimmed_up_to?: unknown; issued?: unknown }
    try {
      value = (lineNo > 1 && writtenEvent(text)) || JSON.parse(text)
    } catch {
      return fail('is not JSON')
    }
    if (lineNo === 1) {
      if (!Number.isSafeInteger(value.trimmed_up_to)) fail('is not the header {"trimmed_up_to": N}')
      if (value.issued !== undefined && !Number.isSafeInteger(value.issued)) fail('names a number used that is not one')
      trimmedUpTo = value.trimmed_up_to as number
      highest = Math.max(trimmedUpTo, (value.issued as number | undefined) ?? 0)
    } else {
      const seq = value.seq
      if (!Number.isSafeInteger(seq) || typeof value.type !== 'string') fail('is not an event with seq and type')
      if ((seq as number) <= (lines.at(-1)?.seq ?? trimmedUpTo)) fail(`numbers ${seq} out of order`)
      highest = Math.max(highest, seq as number)
      if ((seq as number) <= upTo) {
        lines.push({ seq: seq as number, type: value.type as string, text })
        validBytes = end + 1
      }
    }
    if (lineNo === 1) validBytes = end + 1
    start = end + 1
  }
  if (validBytes === 0) throw new ChangeFileError('it has no header line; move it away to start a new log')
  if (trimmedUpTo > upTo) {
    // A data file restored to a state older than everything the log keeps: no follower can go on
    // from what is kept, so the log starts again past every number it used (410 for every follower).
    return { log: { lines: [], trimmedUpTo: highest + 1 }, validBytes: 0 }
  }
  if (highest > upTo) {
    // Events the data file does not hold: a write that never landed (never announced: events are
    // published once their snapshot is on disk), or a data file restored to an earlier state (a
    // follower may have seen them). The events it holds stay, so followers up to there go on; one
    // that saw further is past the newest (410); and numbering goes on past every number used.
    return { log: { lines, trimmedUpTo, issued: highest }, validBytes }
  }
  return { log: { lines, trimmedUpTo }, validBytes }
}
