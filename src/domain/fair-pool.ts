import { ApiError } from './errors'

export interface FairPoolLimits {
  /** How many pieces of work run at once, whoever asked. */
  readonly slots: number
  /** How many of one caller's run at once. */
  readonly perCaller: number
  /** How many of one caller's may wait (beyond those running); past it, a 429. */
  readonly waitingPerCaller: number
  /** How many may wait in all; past it, a 503. */
  readonly waiting: number
}

/** One caller's work: how much of it runs, and what waits, oldest first. */
interface Line {
  running: number
  readonly waiting: (() => void)[]
}

/**
 * A bounded pool shared fairly: at most `slots` pieces of work run at once, at most `perCaller`
 * of one caller's, and a freed slot goes to the callers with work waiting in turn (round-robin),
 * so a caller's work waits only behind their own and one turn of each other caller's. Each
 * caller's waiting line is bounded (429 past it: theirs to slow down), and so is all the waiting
 * (503: the service is busy); both say when to try again, from how long work has taken lately.
 */
export class FairPool {
  readonly #lines = new Map<string, Line>()
  /** The callers with work waiting that may start it, in their turn's order. */
  readonly #turns: string[] = []
  #running = 0
  #waiting = 0
  /** How long a piece of work has taken lately (a moving average), for Retry-After. */
  #averageMs = 1000

  constructor(private readonly limits: FairPoolLimits) {}

  /** Runs `work` for `caller` when its turn comes; refused at once (429 or 503) when too much waits. */
  async run<T>(caller: string, work: () => Promise<T>): Promise<T> {
    const line = this.#lines.get(caller) ?? this.#lines.set(caller, { running: 0, waiting: [] }).get(caller)!
    if (this.#running < this.limits.slots && line.running < this.limits.perCaller) this.#count(line, 1)
    else {
      if (line.waiting.length >= this.limits.waitingPerCaller) throw this.#refusal(429, line.waiting.length)
      if (this.#waiting >= this.limits.waiting) throw this.#refusal(503, this.#waiting)
      // Counted as running by #next when its turn comes.
      await new Promise<void>((start) => {
        if (line.waiting.length === 0 && line.running < this.limits.perCaller) this.#turns.push(caller)
        line.waiting.push(start)
        this.#waiting++
      })
    }
    const started = performance.now()
    try {
      return await work()
    } finally {
      this.#averageMs = 0.8 * this.#averageMs + 0.2 * (performance.now() - started)
      // At its limit until now, a caller with work waiting is in turn again.
      if (line.running === this.limits.perCaller && line.waiting.length > 0) this.#turns.push(caller)
      this.#count(line, -1)
      if (line.running === 0 && line.waiting.length === 0) this.#lines.delete(caller)
      this.#next()
    }
  }

  #count(line: Line, by: 1 | -1): void {
    line.running += by
    this.#running += by
  }

  /** Starts waiting work while slots are free: the next caller in turn, who goes to the back if more of theirs waits. */
  #next(): void {
    while (this.#running < this.limits.slots && this.#turns.length > 0) {
      const caller = this.#turns.shift()!
      const line = this.#lines.get(caller)!
      const start = line.waiting.shift()!
      this.#waiting--
      // Counted as running now, before its promise resumes it, so the loop sees the slot taken.
      this.#count(line, 1)
      if (line.waiting.length > 0 && line.running < this.limits.perCaller) this.#turns.push(caller)
      start()
    }
  }

  /**
   * A refusal, with when a place to wait frees up: in the caller's own line when their work under
   * way ends, among all the waiting when any does (one of `slots`).
   */
  #refusal(status: 429 | 503, ahead: number): ApiError {
    const wait = Math.max(1, Math.ceil(this.#averageMs / (status === 429 ? 1 : this.limits.slots) / 1000))
    const detail =
      status === 429
        ? `Request was throttled: ${ahead} of your uploads are waiting. Expected available in ${wait} second${wait === 1 ? '' : 's'}.`
        : `Too many uploads are waiting to be processed. Try again in ${wait} second${wait === 1 ? '' : 's'}.`
    return new ApiError(status, { detail }, { 'Retry-After': String(wait) })
  }
}
