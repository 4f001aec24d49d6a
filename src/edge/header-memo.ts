/** How many distinct values a memo keeps, and the longest it keeps: clients may send anything. */
const VALUES = 64
const LONGEST = 256

/**
 * `read`, remembered per header value: clients send the same few Accept and Accept-Encoding
 * values again and again, and parsing one per request is a measurable part of a small answer.
 */
export function memoByValue<T>(read: (value: string) => T): (value: string) => T {
  const known = new Map<string, T>()
  return (value) => {
    let answer = known.get(value)
    if (answer !== undefined) return answer
    answer = read(value)
    if (value.length <= LONGEST) {
      if (known.size >= VALUES) known.clear()
      known.set(value, answer)
    }
    return answer
  }
}
