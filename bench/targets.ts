// A goal of the bench, whether a run met it and the figure it was judged on: a line of
// docs/performance.md's Targets, of npm run bench's summary, and of a bench run alone.

export interface Target {
  readonly text: string
  /** Null when the run did not measure it. */
  readonly met: boolean | null
  readonly figure: string
}

/** `met` and `figure` are asked only when `measured`. */
export const target = (text: string, measured: boolean, met: () => boolean, figure: () => string): Target =>
  measured ? { text, met: met(), figure: figure() } : { text, met: null, figure: 'not measured' }

/** The line a terminal shows. */
export const targetLine = (t: Target) =>
  `${t.met === null ? 'NOT MEASURED' : t.met ? 'MET    ' : 'NOT MET'}  ${t.text}: ${t.figure}`
