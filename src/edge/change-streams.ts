import { ChangesGone, type ChangeLog, type LoggedChange } from '../domain/change-log'
import { ApiError } from '../domain/errors'
import { LogPieces, PIECE_BYTES, type Piece } from './log-pieces'

const encoder = new TextEncoder()
/** How often the open streams are looked after: a stop closes them within this. */
const TICK_MS = 1_000
/** A comment this often keeps Bun's idle timeout and proxies from closing a quiet stream (docs/reference.md §18: 5 s at most). */
const HEARTBEAT_TICKS = 4
const HEARTBEAT = encoder.encode(': keep-alive\n\n')
/** How long an EventSource waits before it reconnects, sent first on every stream. */
const RETRY = encoder.encode('retry: 2000\n\n')
/**
 * Bytes a reader may leave untaken — queued for it here, and published for it while it took
 * nothing — before its connection is dropped (it comes back with Last-Event-ID).
 */
export const MAX_UNREAD = 1 << 20
/** Holds no state of its own: one for every stream. The runtime asks for a piece when its queue is below this. */
const QUEUING = new ByteLengthQueuingStrategy({ highWaterMark: PIECE_BYTES })

/** How many streams may be open at once unless CLUBS_MAX_STREAMS says (docs/reference.md §18). */
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

/** What a follower asks of the streams it is one of: one for all of them. */
interface Streams {
  add(follower: Follower): void
  handOver(follower: Follower): void
  drop(follower: Follower): void
}

/**
 * One open stream: where it is in the log, and what it has left untaken. It is the stream's
 * source itself, so an idle stream costs this object and the stream, no closures.
 */
class Follower implements UnderlyingDefaultSource<Uint8Array> {
  /** Bytes published since the connection last took a piece, while its queue was full. */
  owed = 0
  queue!: ReadableStreamDefaultController<Uint8Array>

  constructor(
    private readonly streams: Streams,
    /** The newest event handed to it. */
    public cursor: number,
  ) {}

  start(queue: ReadableStreamDefaultController<Uint8Array>): void {
    this.queue = queue
    queue.enqueue(RETRY)
    this.streams.add(this)
  }

  /** The runtime pulls when the connection has taken what it had: the reader paces its pieces. */
  pull(): void {
    this.owed = 0
    this.streams.handOver(this)
  }

  cancel(): void {
    this.streams.drop(this)
  }

  /** Whether the connection has taken enough of what it was handed to be handed more. */
  get hasRoom(): boolean {
    return (this.queue.desiredSize ?? 0) > 0
  }

  /** Bytes handed to it that the connection has not taken. */
  get queued(): number {
    return PIECE_BYTES - (this.queue.desiredSize ?? 0)
  }
}

/**
 * The open change streams (docs/reference.md §18). Each reads the log from its own place, a piece at a
 * time as its connection takes them: what it missed first, then each published batch. A
 * connection that takes nothing while more than MAX_UNREAD bytes wait for it is dropped. An idle
 * stream costs its socket and its entry here; one timer for all of them sends heartbeats and
 * closes them when the service stops.
 */
export class ChangeStreams {
  #followers = new Set<Follower>()
  readonly #pieces: LogPieces
  #timer: ReturnType<typeof setInterval> | null = null
  #ticks = 0
  #unfollow: (() => void) | null = null
  readonly #streams: Streams = {
    add: (follower) => this.#add(follower),
    handOver: (follower) => this.#handOver(follower),
    drop: (follower) => this.#drop(follower),
  }

  constructor(
    private readonly log: ChangeLog,
    private readonly stopping: () => boolean,
    private readonly max = DEFAULT_MAX_STREAMS,
  ) {
    this.#pieces = new LogPieces(log)
  }

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
      return new ReadableStream({ start: (queue) => (queue.enqueue(resetEvent(error)), queue.close()) })
    }
    return new ReadableStream(new Follower(this.#streams, since), QUEUING)
  }

  /** The next piece of the log after the follower's place, if any; a reset and the end when that place is no longer kept. */
  #handOver(follower: Follower): void {
    let piece: Piece | null
    try {
      piece = this.#pieces.after(follower.cursor)
    } catch (error) {
      if (!(error instanceof ChangesGone)) throw error
      this.#give(follower, resetEvent(error))
      return this.#drop(follower)
    }
    if (!piece) return
    // Moved on first: an enqueue may call pull at once, which reads on from the cursor.
    follower.cursor = piece.last
    this.#give(follower, piece.bytes)
  }

  /** Queues `bytes` for the follower; one whose stream the runtime closed without cancelling it is dropped. */
  #give(follower: Follower, bytes: Uint8Array): void {
    try {
      follower.queue.enqueue(bytes)
    } catch {
      this.#drop(follower)
    }
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
    this.#pieces.forget()
    this.#unfollow?.()
    this.#unfollow = null
    if (this.#timer) clearInterval(this.#timer)
    this.#timer = null
  }

  /** A published batch: handed on to each follower with room; counted against the others. */
  #publish(events: readonly LoggedChange[]): void {
    const size = events.reduce((sum, event) => sum + event.text.length, 0)
    for (const follower of this.#followers) {
      if (follower.hasRoom) this.#handOver(follower)
      else if ((follower.owed += size) + follower.queued > MAX_UNREAD) this.#drop(follower, true)
    }
  }

  #tick(): void {
    if (this.stopping()) {
      for (const follower of this.#followers) this.#drop(follower)
      return
    }
    if (++this.#ticks % HEARTBEAT_TICKS) return
    // One with bytes still waiting needs no heartbeat: they keep its connection busy.
    for (const follower of this.#followers) if (follower.hasRoom) this.#give(follower, HEARTBEAT)
  }
}

/** One `reset` event (docs/reference.md §18: list again). */
const resetEvent = (gone: ChangesGone) => encoder.encode(`event: reset\ndata: ${JSON.stringify(gone.body)}\n\n`)
