import { ChangesGone, type ChangeLog, type LoggedChange } from '../domain/change-log'
import { ApiError } from '../domain/errors'

const encoder = new TextEncoder()
/** How often the open streams are looked after: a stop closes them within this. */
const TICK_MS = 1_000
/** A comment this often keeps Bun's idle timeout and proxies from closing a quiet stream (CONTRACT §18: 5 s at most). */
const HEARTBEAT_TICKS = 4
const HEARTBEAT = encoder.encode(': keep-alive\n\n')
/** About this many bytes of the log are handed to a stream at a time, when its connection has taken the last piece. */
const PIECE_BYTES = 64 * 1024
/** Events read from the log for one piece at most. */
const PIECE_EVENTS = 500
/**
 * Bytes a reader may leave untaken — queued for it here, and published for it while it took
 * nothing — before its connection is dropped (it comes back with Last-Event-ID).
 */
export const MAX_UNREAD = 1 << 20
/** Holds no state of its own: one for every stream. The runtime asks for a piece when its queue is below this. */
const QUEUING = new ByteLengthQueuingStrategy({ highWaterMark: PIECE_BYTES })

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

/** One open stream: where it is in the log, and what it has left untaken. */
class Follower {
  /** Bytes published since the connection last took a piece, while its queue was full. */
  owed = 0

  constructor(
    readonly queue: ReadableStreamDefaultController<Uint8Array>,
    /** The newest event handed to it. */
    public cursor: number,
  ) {}

  /** Whether the connection has taken enough of what it was handed to be handed more. */
  get hasRoom(): boolean {
    return (this.queue.desiredSize ?? 0) > 0
  }

  /** What it was handed or is owed and has not taken. */
  get unread(): number {
    return PIECE_BYTES - (this.queue.desiredSize ?? 0) + this.owed
  }
}

/**
 * The open change streams (CONTRACT §18). Each reads the log from its own place, a piece at a
 * time as its connection takes them: what it missed first, then each published batch, one
 * encoding of a small batch shared by all who were waiting for it. A connection that takes nothing
 * while more than MAX_UNREAD bytes wait for it is dropped. An idle stream costs its socket and its
 * entry here; one timer for all of them sends heartbeats and closes them when the service stops.
 */
export class ChangeStreams {
  #followers = new Set<Follower>()
  #timer: ReturnType<typeof setInterval> | null = null
  #ticks = 0
  #unfollow: (() => void) | null = null

  constructor(
    private readonly log: ChangeLog,
    private readonly stopping: () => boolean,
    private readonly max = DEFAULT_MAX_STREAMS,
  ) {}

  get open(): number {
    return this.#followers.size
  }

  /**
   * A stream of the events after `since`, then of each new one; when `since` is no longer kept,
   * one `reset` event and the end. Closed by the client going away (the runtime cancels it), by
   * a stop, or by the client taking too little of it.
   */
  stream(since: number): ReadableStream<Uint8Array> {
    if (this.#followers.size >= this.max) throw new TooManyStreams(this.max)
    try {
      this.log.since(since, 0)
    } catch (error) {
      if (!(error instanceof ChangesGone)) throw error
      return new ReadableStream({ start: (queue) => reset(queue, error) })
    }
    let follower: Follower
    return new ReadableStream<Uint8Array>(
      {
        start: (queue) => {
          follower = new Follower(queue, since)
          queue.enqueue(encoder.encode('retry: 2000\n\n'))
          this.#add(follower)
        },
        // The runtime pulls when the connection has taken what it had: the reader paces its pieces.
        pull: () => {
          follower.owed = 0
          this.#handOver(follower)
        },
        cancel: () => this.#drop(follower),
      },
      QUEUING,
    )
  }

  /** The next piece of the log after the follower's place, if any; a reset and the end when that place is no longer kept. */
  #handOver(follower: Follower): void {
    let events: readonly LoggedChange[]
    try {
      events = this.log.since(follower.cursor, PIECE_EVENTS)
    } catch (error) {
      if (!(error instanceof ChangesGone)) throw error
      reset(follower.queue, error)
      return this.#drop(follower)
    }
    let piece = ''
    for (const event of events) {
      piece += frame(event)
      follower.cursor = event.seq
      if (piece.length >= PIECE_BYTES) break
    }
    if (piece) follower.queue.enqueue(encoder.encode(piece))
  }

  #add(follower: Follower): void {
    this.#followers.add(follower)
    this.#unfollow ??= this.log.follow((events) => this.#publish(events))
    this.#timer ??= setInterval(() => this.#tick(), TICK_MS)
    this.#timer.unref?.()
  }

  /** Ends a stream: closed as it is on a stop; aborted (its connection reset) when its reader fell too far behind. */
  #drop(follower: Follower, abort = false): void {
    if (!this.#followers.delete(follower)) return
    try {
      if (abort) follower.queue.error()
      else follower.queue.close()
    } catch {
      // Already closed by the client going away.
    }
    if (this.#followers.size) return
    this.#unfollow?.()
    this.#unfollow = null
    if (this.#timer) clearInterval(this.#timer)
    this.#timer = null
  }

  /** A published batch: to each follower with room, as one shared encoding if it was waiting for just this; counted against the others. */
  #publish(events: readonly LoggedChange[]): void {
    const before = events[0]!.seq - 1
    const last = events.at(-1)!.seq
    const size = events.reduce((sum, event) => sum + event.text.length, 0)
    let shared: Uint8Array | null = null
    for (const follower of this.#followers) {
      if (!follower.hasRoom) {
        follower.owed += size
        if (follower.unread > MAX_UNREAD) this.#drop(follower, true)
      } else if (follower.cursor === before && size < PIECE_BYTES) {
        shared ??= encoder.encode(events.map(frame).join(''))
        // Moved on first: an enqueue may call pull at once, which reads on from the cursor.
        follower.cursor = last
        follower.queue.enqueue(shared)
      } else this.#handOver(follower)
    }
  }

  #tick(): void {
    if (this.stopping()) {
      for (const follower of this.#followers) this.#drop(follower)
      return
    }
    if (++this.#ticks % HEARTBEAT_TICKS) return
    // One with bytes still waiting needs no heartbeat: they keep its connection busy.
    for (const follower of this.#followers) if (follower.hasRoom) follower.queue.enqueue(HEARTBEAT)
  }
}

/** One `reset` event (CONTRACT §18: list again), then the end. */
function reset(queue: ReadableStreamDefaultController<Uint8Array>, gone: ChangesGone): void {
  queue.enqueue(encoder.encode(`event: reset\ndata: ${JSON.stringify(gone.body)}\n\n`))
  queue.close()
}
