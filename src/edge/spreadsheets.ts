import type { Cell } from '../domain/cells'
import type { SpreadsheetFormat } from './negotiate'
import { Prepared } from './prepared'
import type { SpreadsheetFile } from './spreadsheet-files'

export const SPREADSHEET_TYPES: Readonly<Record<SpreadsheetFormat, string>> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
}

/** What the request thread sends the spreadsheet thread: a file's rows a chunk at a time, then its end. */
export type BuildRequest = { readonly id: number } & (
  { readonly rows: Cell[][] } | { readonly format: SpreadsheetFormat; readonly name: string }
)
export type BuildResult = { readonly id: number } & ({ readonly file: SpreadsheetFile } | { readonly error: string })

/** Rows handed over at a time: each chunk costs the request thread a few milliseconds, and then it answers others. */
export const ROWS_PER_CHUNK = 500

const otherWorkFirst = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Builds spreadsheets on one thread of their own (src/edge/spreadsheet-worker.ts): an XLSX of
 * 20,000 clubs takes seconds of CPU, which on the request thread would stall every other answer,
 * /health included. The rows go over in chunks, the request thread answering others between
 * them; one thread bounds the builds under way to one, the others wait their turn.
 */
class SpreadsheetBuilder {
  #worker: Worker | null = null
  #next = 0
  readonly #waiting = new Map<number, { resolve: (file: SpreadsheetFile) => void; reject: (error: Error) => void }>()

  async build(format: SpreadsheetFormat, chunks: Iterable<Cell[][]>, name: string): Promise<SpreadsheetFile> {
    const id = ++this.#next
    const built = new Promise<SpreadsheetFile>((resolve, reject) => this.#waiting.set(id, { resolve, reject }))
    for (const rows of chunks) {
      this.#thread().postMessage({ id, rows } satisfies BuildRequest)
      await otherWorkFirst()
    }
    this.#thread().postMessage({ id, format, name } satisfies BuildRequest)
    return built
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker
    // Idle, it keeps no process alive (a test's, or a server that is stopping).
    const worker = new Worker(new URL('./spreadsheet-worker.ts', import.meta.url).href, { ref: false })
    worker.onmessage = ({ data }: MessageEvent<BuildResult>) => {
      const waiting = this.#waiting.get(data.id)
      this.#waiting.delete(data.id)
      if ('file' in data) waiting?.resolve(data.file)
      else waiting?.reject(new Error(`building a spreadsheet failed: ${data.error}`))
    }
    worker.onerror = (event) => {
      // The thread is gone: fail what it held, and start a new one for the next build.
      for (const { reject } of this.#waiting.values())
        reject(new Error(`the spreadsheet thread failed: ${event.message}`))
      this.#waiting.clear()
      this.#worker = null
    }
    return (this.#worker = worker)
  }
}

const builder = new SpreadsheetBuilder()

/**
 * The table as a file of `format`, and the headers that offer it as `<name>.<format>`. The table
 * comes in chunks of rows (its header row first), each made only when the one before is handed over.
 */
export async function spreadsheet(format: SpreadsheetFormat, chunks: Iterable<Cell[][]>, name: string) {
  const file = await builder.build(format, chunks, name)
  return {
    body: Prepared.built(file.bytes, SPREADSHEET_TYPES[format], file.gzip),
    headers: { 'Content-Disposition': `attachment; filename="${name}.${format}"` },
  }
}
