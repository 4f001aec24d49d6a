/**
 * Turns many "save now" requests into few writes: while one write runs, every request that
 * arrives joins the next one, which starts when the running one ends and saves everything
 * changed up to then. Each caller's promise settles when a write that began after its
 * request has landed (or failed).
 */
export class GroupCommit {
  #running: Promise<void> | null = null
  #next: Promise<void> | null = null

  constructor(private readonly write: () => Promise<void>) {}

  commit(): Promise<void> {
    if (this.#next) return this.#next
    if (!this.#running) return this.#start()
    const next = this.#running.then(
      () => this.#start(),
      () => this.#start(),
    )
    this.#next = next
    return next
  }

  /** Resolves when no write is running or queued. */
  async idle(): Promise<void> {
    for (let pending = this.#next ?? this.#running; pending; pending = this.#next ?? this.#running) {
      await pending.catch(() => undefined)
    }
  }

  #start(): Promise<void> {
    this.#next = null
    const running = this.write().finally(() => {
      if (this.#running === running) this.#running = null
    })
    this.#running = running
    return running
  }
}
