import type { ChangeLog, LoggedChange } from '../domain/change-log'

const encoder = new TextEncoder()
/** About this many bytes of the log are handed to a stream at a time. */
export const PIECE_BYTES = 64 * 1024
/**
 * A piece holds events of one block of this many numbers (1–64, 65–128, ...): from the next block
 * on, streams that started at different places cut the log at the same numbers and share pieces.
 */
const PIECE_ALIGN = 64
/** Bytes of pieces kept for other streams reading the same stretch of the log, the newest first. */
const KEPT_BYTES = 16 << 20

/** Events of the log encoded as Server-Sent Events: those after some number up to `last`. */
export interface Piece {
  readonly bytes: Uint8Array
  readonly last: number
}

/** One Server-Sent Event per change: its number as the id, its type as the event name. */
const frame = (event: LoggedChange) => `id: ${event.seq}\nevent: ${event.type}\ndata: ${event.text}\n\n`
const blockOf = (event: LoggedChange) => Math.ceil(event.seq / PIECE_ALIGN)

/**
 * The change log cut into pieces for the change streams. Events never change, so a piece is
 * kept a while for the other streams at the same place: those waiting for a new batch, or 60
 * asking since=0, share one encoding of it.
 */
export class LogPieces {
  #kept = new Map<number, Piece>()
  #keptBytes = 0

  constructor(private readonly log: ChangeLog) {}

  /**
   * The events after `seq`, up to about PIECE_BYTES and the end of their block; null when there
   * are none; ChangesGone when they are no longer all kept.
   */
  after(seq: number): Piece | null {
    const kept = this.#kept.get(seq)
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
    this.#keep(seq, piece)
    return piece
  }

  /** Drops every piece kept: no stream is open. */
  forget(): void {
    this.#kept.clear()
    this.#keptBytes = 0
  }

  #keep(seq: number, piece: Piece): void {
    this.#kept.set(seq, piece)
    this.#keptBytes += piece.bytes.length
    for (const [oldest, { bytes }] of this.#kept) {
      if (this.#keptBytes <= KEPT_BYTES) break
      this.#kept.delete(oldest)
      this.#keptBytes -= bytes.length
    }
  }
}
