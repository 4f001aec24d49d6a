/** What the store writes: a format version and lists of records. */
export type SnapshotShape = { readonly version: number }

// Records never change in place (a change stores a new object), so each one's JSON can be
// kept and reused: writing a snapshot of 10,000 clubs after one create serialises one club.
const serialised = new WeakMap<object, string>()

function recordText(record: object): string {
  let text = serialised.get(record)
  if (text === undefined) {
    text = JSON.stringify(record)
    serialised.set(record, text)
  }
  return text
}

/** The data file's text: valid JSON, one record a line, so it diffs and greps well. */
export function snapshotText(snapshot: SnapshotShape): string {
  const parts = [`{\n"version": ${snapshot.version}`]
  for (const [key, value] of Object.entries(snapshot)) {
    if (!Array.isArray(value)) continue
    parts.push(
      `,\n${JSON.stringify(key)}: [${value.length ? '\n' : ''}${value.map(recordText).join(',\n')}${value.length ? '\n' : ''}]`,
    )
  }
  parts.push('\n}\n')
  return parts.join('')
}
