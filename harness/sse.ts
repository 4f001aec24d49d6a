/** One Server-Sent Event as it arrived: its fields, or a comment line. */
export interface SseMessage {
  readonly id?: string
  readonly event?: string
  readonly data?: string
  readonly comment?: string
}

/**
 * A reader of a text/event-stream answer, as an EventSource parses it (fields per message,
 * messages split by a blank line), that keeps what arrives and lets a test wait for a message.
 */
export class SseReader {
  readonly messages: SseMessage[] = []
  #waiters: (() => void)[] = []
  #ended = false
  readonly done: Promise<void>

  constructor(response: Response) {
    this.done = this.#read(response.body!)
  }

  get ended(): boolean {
    return this.#ended
  }

  async #read(body: ReadableStream<Uint8Array>) {
    const decoder = new TextDecoder()
    let buffer = ''
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true })
        let end: number
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          this.messages.push(parse(buffer.slice(0, end)))
          buffer = buffer.slice(end + 2)
        }
        this.#wake()
      }
    } catch {
      // The connection went away: the test looks at `ended`.
    } finally {
      this.#ended = true
      this.#wake()
    }
  }

  #wake() {
    for (const wake of this.#waiters.splice(0)) wake()
  }

  /** Waits for the first message from index `from` that `matches`; throws after `ms` or at the end. */
  async waitFor(matches: (message: SseMessage) => boolean, ms = 5_000, from = 0): Promise<SseMessage> {
    const deadline = Date.now() + ms
    for (;;) {
      const found = this.messages.slice(from).find(matches)
      if (found) return found
      if (this.#ended) throw new Error(`the stream ended; it had ${JSON.stringify(this.messages)}`)
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`no such message in ${ms} ms; it had ${JSON.stringify(this.messages.slice(-5))}`)
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve)
        setTimeout(resolve, left)
      })
    }
  }

  /** The change events received, parsed. */
  events(): Record<string, any>[] {
    return this.messages.filter((m) => m.data !== undefined && m.event !== 'reset').map((m) => JSON.parse(m.data!))
  }
}

function parse(block: string): SseMessage {
  const message: Record<string, string> = {}
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) message.comment = line.slice(1).trim()
    const at = line.indexOf(':')
    if (at <= 0) continue
    const value = line.slice(at + 1).replace(/^ /, '')
    const field = line.slice(0, at)
    message[field] = field === 'data' && message.data !== undefined ? `${message.data}\n${value}` : value
  }
  return message
}
