/** What the store writes: a format version, lists of records, and the highest change number handed out. */
export type SnapshotShape = { readonly version: number; readonly changes_seq?: number }

/** About how much text is handed to the file at a time. */
const CHUNK_CHARS = 1 << 20

/** A record's JSON text, as the data file, its journal and the database keep it. */
export const recordText = (record: object): string => JSON.stringify(record)

/** The pieces of the data file's text, in order: valid JSON, one record a line, so it diffs and greps well. */
function* pieces(snapshot: SnapshotShape): Generator<string> {
  yield `{\n"version": ${snapshot.version}`
  for (const [key, value] of Object.entries(snapshot)) {
    if (key !== 'version' && typeof value === 'number') yield `,\n${JSON.stringify(key)}: ${value}`
    if (!Array.isArray(value)) continue
    yield `,\n${JSON.stringify(key)}: [`
    for (let i = 0; i < value.length; i++) yield `${i ? ',' : ''}\n${recordText(value[i])}`
    yield value.length ? '\n]' : ']'
  }
  yield '\n}\n'
}

/**
 * The data file's text in chunks of about a megabyte, each made as it is asked for: the records
 * are serialised a chunk at a time between the writes of the chunks, so a snapshot of 100,000
 * clubs neither holds the event loop while it is serialised nor keeps every record's text in
 * memory. The snapshot is one state however long the writing takes: its lists were captured at
 * the call, and records never change in place.
 */
export function* snapshotChunks(snapshot: SnapshotShape): Generator<string> {
  let chunk: string[] = []
  let size = 0
  for (const piece of pieces(snapshot)) {
    chunk.push(piece)
    size += piece.length
    if (size < CHUNK_CHARS) continue
    yield chunk.join('')
    chunk = []
    size = 0
  }
  if (chunk.length) yield chunk.join('')
}
