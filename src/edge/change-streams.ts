import { ChangesGone, type ChangeLog, type LoggedChange } from '../domain/change-log'
import { ApiError } from '../domain/errors'

const encoder = new TextEncoder()
/** How often the open streams are looked after: a stop closes them within this. */
const TICK_MS = 1_000
/** A comment this often keeps Bun's idle timeout and proxies from closing a quiet stream (CONTRACT §18: 5 s at most). */
const HEARTBEAT_TICKS = 4
const HEARTBEAT = encoder.encode(': keep-alive\n\n')
/** How long an EventSource waits before it reconnects, sent first on every stream. */
const RETRY = encoder.encode('retry: 2000\n\n')
/** About this many bytes of the log are handed to a stream at a time, when its connection has taken the last piece. */
const PIECE_BYTES = 64 * 1024
/**
 * A piece holds events of one block of this many numbers (1–64, 65–128, ...): from their second
 * piece on, streams that started at different places cut the log at the same numbers and share
 * pieces.
 */
const PIECE_ALIGN = 64
const blockOf = (event: LoggedChange) => Math.ceil(event.seq / PIECE_ALIGN)
/** Pieces kept for other streams reading the same stretch of the log (16 MB at most). */
const PIECES_KEPT = 256
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

/** Events of the log encoded as frames: those after some number up to `last`. */
interface Piece {
  readonly bytes: Uint8Array
  readonly last: number
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
 * The open change streams (CONTRACT §18). Each reads the log from its own place, a piece at a
 * time as its connection takes them: what it missed first, then each published batch. A
 * connection that takes nothing while more than MAX_UNREAD bytes wait for it is dropped. An idle
 * stream costs its socket and its entry here; one timer for all of them sends heartbeats and
 * closes them when the service stops.
 */
export class ChangeStreams {
  #followers = new Set<Follower>()
  #pieces = new Map<number, Piece>()
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
    return new ReadableStream(new Follower(this.#streams, since), QUEUING)
  }

  /** The next piece of the log after the follower's place, if any; a reset and the end when that place is no longer kept. */
  #handOver(follower: Follower): void {
    let piece: Piece | null
    try {
      piece = this.#pieceAfter(follower.cursor)
    } catch (error) {
      if (!(error instanceof ChangesGone)) throw error
      reset(follower.queue, error)
      return this.#drop(follower)
    }
    if (!piece) return
    // Moved on first: an enqueue may call pull at once, which reads on from the cursor.
    follower.cursor = piece.last
    follower.queue.enqueue(piece.bytes)
  }

  /**
   * The events after `seq`, up to about PIECE_BYTES and the end of their block, encoded; null
   * when there are none; ChangesGone when they are no longer all kept. Events never change, so a
   * piece is kept a while for the other streams at the same place: those waiting for a new batch,
   * or 60 asking since=0, share one encoding of it.
   */
  #pieceAfter(seq: number): Piece | null {
    const kept = this.#pieces.get(seq)
    if (kept) {
      // Throws as a read would once that stretch is no longer kept.
      this.log.since(seq, 0)
      return kept
    }
    const events = this.log.since(seq, PIECE_ALIGN)
    if (!events.length) return null
    const block = blockOf(events[0]!)
    let text = ''
    let last = seq
    for (const event of events) {
      if (blockOf(event) !== block || text.length >= PIECE_BYTES) break
      text += frame(event)
      last = event.seq
    }
    const piece = { bytes: encoder.encode(text), last }
    this.#pieces.set(seq, piece)
    if (this.#pieces.size > PIECES_KEPT) this.#pieces.delete(this.#pieces.keys().next().value!)
    return piece
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
    this.#pieces.clear()
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
    for (const follower of this.#followers) if (follower.hasRoom) follower.queue.enqueue(HEARTBEAT)
  }
}

/** One `reset` event (CONTRACT §18: list again), then the end. */
function reset(queue: ReadableStreamDefaultController<Uint8Array>, gone: ChangesGone): void {
  queue.enqueue(encoder.encode(`event: reset\ndata: ${JSON.stringify(gone.body)}\n\n`))
  queue.close()
}
