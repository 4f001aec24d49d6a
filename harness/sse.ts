import { connect, type Socket } from 'node:net'

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

/**
 * A stream asked for over a plain socket that reads only when told: paused, node:net leaves the
 * bytes in the kernel, whose buffers fill, and the server meets a reader as slow as the test
 * makes it (fetch would read on into memory of its own).
 */
export class SocketReader {
  #chunks: Buffer[] = []
  #socket: Socket
  /** How the connection ended: `reset` when the server aborted it, `end` when it closed it. */
  readonly closed: Promise<'reset' | 'end'>

  private constructor(socket: Socket) {
    this.#socket = socket.pause()
    socket.on('data', (chunk: Buffer) => this.#chunks.push(chunk))
    this.closed = new Promise((resolve) => {
      socket.on('error', () => resolve('reset'))
      socket.on('close', () => resolve('end'))
    })
  }

  /** Sends `GET path` to 127.0.0.1:`port` and reads nothing yet. */
  static open(port: number, path: string): Promise<SocketReader> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`)
        resolve(new SocketReader(socket))
      }).once('error', reject)
    })
  }

  /** Reads what comes, as it comes. */
  read(): void {
    this.#socket.resume()
  }

  /** Reads one chunk at a time, `ms` apart. */
  readSlowly(ms: number): void {
    this.#socket.on('data', () => {
      this.#socket.pause()
      setTimeout(() => this.#socket.resume(), ms)
    })
    this.#socket.resume()
  }

  /** The bytes received so far. */
  get received(): number {
    return this.#chunks.reduce((sum, chunk) => sum + chunk.length, 0)
  }

  /** The whole messages of the body received so far, its chunked framing undone. */
  messages(): SseMessage[] {
    const raw = Buffer.concat(this.#chunks)
    const body: Buffer[] = []
    for (let at = raw.indexOf('\r\n\r\n') + 4; at > 3;) {
      const line = raw.indexOf('\r\n', at)
      if (line < 0) break
      const size = parseInt(raw.subarray(at, line).toString(), 16)
      if (!size || line + 2 + size > raw.length) break
      body.push(raw.subarray(line + 2, line + 2 + size))
      at = line + 2 + size + 2
    }
    const text = Buffer.concat(body).toString()
    return text
      .slice(0, text.lastIndexOf('\n\n') + 2)
      .split('\n\n')
      .slice(0, -1)
      .map(parse)
  }

  close(): void {
    this.#socket.destroy()
  }
}
