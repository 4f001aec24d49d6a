import { ChangesGone, type ChangeLog, type LoggedChange } from '../domain/change-log'
import { ApiError } from '../domain/errors'

const encoder = new TextEncoder()
/** How often the open streams are looked after: a stop closes them within this. */
const TICK_MS = 1_000
/** A comment this often keeps Bun's idle timeout and proxies from closing a quiet stream (CONTRACT §18: 5 s at most). */
const HEARTBEAT_TICKS = 4
const HEARTBEAT = encoder.encode(': keep-alive\n\n')
/** Backlog events read from the log at a time. */
const BACKLOG_PAGE = 1_000
/** Bytes a reader may leave unread before its stream is closed (it comes back with Last-Event-ID). */
const MAX_UNREAD = 16 << 20
/** Holds no state of its own: one for every stream. */
const QUEUING = new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 })

/** One Server-Sent Event per change: its number as the id, its type as the event name. */
const frame = (event: LoggedChange) => `id: ${event.seq}\nevent: ${event.type}\ndata: ${event.text}\n\n`

/** How many streams may be open at once unless CLUBS_MAX_STREAMS says (CONTRACT §18). */
export const DEFAULT_MAX_STREAMS = 1_000

/** Past CLUBS_MAX_STREAMS open streams. */
export class TooManyStreams extends ApiError {
  constructor(max: number) {
    super(
      503,
      { detail: `${max} change streams are open, the most this service keeps; try again later.` },
      { 'Retry-After': '5' },
    )
  }
}

type Reader = ReadableStreamDefaultController<Uint8Array>

/**
 * The open change streams (CONTRACT §18): each is sent what it missed, then every event as it is
 * published, one encoding of each batch shared by all. An idle stream costs its socket and its
 * entry here; one timer for all of them sends heartbeats and closes them when the service stops.
 */
export class ChangeStreams {
  #readers = new Set<Reader>()
  #timer: ReturnType<typeof setInterval> | null = null
  #ticks = 0
  #unfollow: (() => void) | null = null

  constructor(
    private readonly log: ChangeLog,
    private readonly stopping: () => boolean,
    private readonly max = DEFAULT_MAX_STREAMS,
  ) {}

  get open(): number {
    return this.#readers.size
  }

  /**
   * A stream of the events after `since`, then of each new one; when `since` is no longer kept,
   * one `reset` event and the end. Closed by the client going away (the runtime cancels it) or a stop.
   */
  stream(since: number): ReadableStream<Uint8Array> {
    if (this.#readers.size >= this.max) throw new TooManyStreams(this.max)
    let backlog: string
    try {
      backlog = this.#backlog(since)
    } catch (error) {
      if (!(error instanceof ChangesGone)) throw error
      const reset = `event: reset\ndata: ${JSON.stringify(error.body)}\n\n`
      return new ReadableStream({ start: (reader) => (reader.enqueue(encoder.encode(reset)), reader.close()) })
    }
    let reader: Reader
    return new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          reader = controller
          controller.enqueue(encoder.encode(`retry: 2000\n\n${backlog}`))
          this.#add(reader)
        },
        cancel: () => this.#drop(reader),
      },
      QUEUING,
    )
  }

  /** Every published event after `since`, as frames; ChangesGone when some of them are no longer kept. */
  #backlog(since: number): string {
    const frames: string[] = []
    for (let cursor = since; ;) {
      const page = this.log.since(cursor, BACKLOG_PAGE)
      if (!page.length) return frames.join('')
      for (const event of page) frames.push(frame(event))
      cursor = page.at(-1)!.seq
    }
  }

  #add(reader: Reader): void {
    this.#readers.add(reader)
    this.#unfollow ??= this.log.follow((events) => this.#send(encoder.encode(events.map(frame).join(''))))
    this.#timer ??= setInterval(() => this.#tick(), TICK_MS)
    this.#timer.unref?.()
  }

  #drop(reader: Reader): void {
    if (!this.#readers.delete(reader)) return
    try {
      reader.close()
    } catch {
      // Already closed by the client going away.
    }
    if (this.#readers.size) return
    this.#unfollow?.()
    this.#unfollow = null
    if (this.#timer) clearInterval(this.#timer)
    this.#timer = null
  }

  #send(bytes: Uint8Array): void {
    for (const reader of this.#readers) {
      try {
        reader.enqueue(bytes)
        if ((reader.desiredSize ?? 0) < -MAX_UNREAD) this.#drop(reader)
      } catch {
        this.#drop(reader)
      }
    }
  }

  #tick(): void {
    if (this.stopping()) {
      for (const reader of this.#readers) this.#drop(reader)
      return
    }
    if (++this.#ticks % HEARTBEAT_TICKS === 0) this.#send(HEARTBEAT)
  }
}
