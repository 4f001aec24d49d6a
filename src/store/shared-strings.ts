/**
 * Makes equal strings in a tree just parsed from JSON one string, in place: each string is
 * replaced by the first equal one met. JSON.parse makes a string per value, and a data file
 * repeats many (dates, times, places, an approver's name, a description copied from club to club),
 * each costing a cell, a header and its characters for as long as the service runs.
 */
export function shareStrings(node: object): void {
  shareIn(node, new Map())
}

function shareIn(node: object, met: Map<string, string>): void {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) node[i] = shared(node[i], met)
    return
  }
  const values = node as Record<string, unknown>
  for (const key in values) values[key] = shared(values[key], met)
}

/** `value`, or the first string equal to it met; an object or array has its own shared. */
function shared(value: unknown, met: Map<string, string>): unknown {
  if (typeof value === 'string') {
    const first = met.get(value)
    if (first !== undefined) return first
    met.set(value, value)
  } else if (value !== null && typeof value === 'object') shareIn(value, met)
  return value
}
