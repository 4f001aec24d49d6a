/** What the store writes: a format version, lists of records, and the highest change number handed out. */
export type SnapshotShape = { readonly version: number; readonly changes_seq?: number }

/** About how much text is handed to the file at a time. */
const CHUNK_CHARS = 1 << 20

// Records never change in place (a change stores a new object), so each one's JSON can be
// kept and reused: writing a snapshot of 10,000 clubs after one create serialises one club.
const serialised = new WeakMap<object, string>()

export function recordText(record: object): string {
  let text = serialised.get(record)
  if (text === undefined) {
    text = JSON.stringify(record)
    serialised.set(record, text)
  }
  return text
}

/** The pieces of the data file's text, in order: valid JSON, one record a line, so it diffs and greps well. */
function pieces(snapshot: SnapshotShape): string[] {
  const out = [`{\n"version": ${snapshot.version}`]
  for (const [key, value] of Object.entries(snapshot)) {
    if (key !== 'version' && typeof value === 'number') out.push(`,\n${JSON.stringify(key)}: ${value}`)
    if (!Array.isArray(value)) continue
    out.push(`,\n${JSON.stringify(key)}: [`)
    value.forEach((record, i) => out.push(`${i ? ',' : ''}\n`, recordText(record)))
    out.push(value.length ? '\n]' : ']')
  }
  out.push('\n}\n')
  return out
}

/**
 * The data file's text in chunks of about a megabyte. The snapshot is read at the call (its
 * records' texts are kept, so this is quick, and sees one state however long the writing takes);
 * the chunks are joined as they are asked for, so the whole text is never held as one string,
 * nor its bytes as one buffer.
 */
export function snapshotChunks(snapshot: SnapshotShape): Iterable<string> {
  return chunksOf(pieces(snapshot))
}

function* chunksOf(all: readonly string[]): Generator<string> {
  let start = 0
  let size = 0
  for (let i = 0; i < all.length; i++) {
    size += all[i]!.length
    if (size < CHUNK_CHARS && i < all.length - 1) continue
    yield all.slice(start, i + 1).join('')
    start = i + 1
    size = 0
  }
}
