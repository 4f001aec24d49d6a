// The sizes of answers made from prepared bodies, noted only while something measures them (the
// sandbox's request log, docs/reference.md §25): read from the body's Blob, so the answer is never read.

/** Off unless the sandbox is on: then each answer made from a prepared body has its size here. */
export const answerSizes = { measuring: false, of: new WeakMap<Response, number>() }

/** `response`, whose body is `bytes` long: noted while answers are measured. */
export function sized(response: Response, bytes: number): Response {
  if (answerSizes.measuring) answerSizes.of.set(response, bytes)
  return response
}
