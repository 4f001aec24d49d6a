import { writeSync } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'

/** A write that the disk took only part of, and refused the rest of without saying why. */
export class ShortWrite extends Error {
  readonly code = 'ENOSPC'

  constructor(path: string, written: number, wanted: number) {
    super(`ENOSPC: only ${written} of ${wanted} bytes could be written to ${path}`)
  }
}

/**
 * Writes all of `text` at the handle's position (or at `position`), or throws. On a full disk Bun's write returns
 * fewer bytes than asked instead of throwing ENOSPC (Node throws), so a caller that trusts one
 * write would keep a truncated file: the rest is written again until it lands or fails loudly.
 */
export async function writeAll(
  handle: FileHandle,
  path: string,
  text: string | Uint8Array,
  position?: number,
): Promise<void> {
  const borrowed = typeof text === 'string' ? borrow(Buffer.byteLength(text)) : null
  const bytes = borrowed
    ? borrowed.subarray(0, borrowed.write(text as string))
    : typeof text === 'string'
      ? Buffer.from(text)
      : text
  try {
    let offset = 0
    while (offset < bytes.byteLength) {
      const at = position === undefined ? null : position + offset
      const { bytesWritten } = await handle.write(bytes, offset, bytes.byteLength - offset, at)
      if (bytesWritten <= 0) throw new ShortWrite(path, offset, bytes.byteLength)
      offset += bytesWritten
    }
  } finally {
    if (borrowed) spare = borrowed
  }
}

/**
 * One buffer that a snapshot's text is encoded into, chunk after chunk, write after write: a new
 * megabyte each chunk was freed and given back to the system between writes, then faulted in
 * again a page at a time by the next, on the thread that answers requests.
 */
let spare: Buffer | null = null
const SPARE_BYTES = 4 << 20

/** The spare buffer when free and `size` fits it, for the caller only until it gives it back. */
function borrow(size: number): Buffer | null {
  if (size > SPARE_BYTES || size < 1 << 16) return null
  const buffer = spare ?? Buffer.allocUnsafeSlow(SPARE_BYTES)
  spare = null
  return buffer
}

/** The same, for a file descriptor at `position`, synchronously. */
export function writeAllSync(fd: number, path: string, text: string, position: number): void {
  const bytes = Buffer.from(text)
  let offset = 0
  while (offset < bytes.byteLength) {
    const written = writeSync(fd, bytes, offset, bytes.byteLength - offset, position + offset)
    if (written <= 0) throw new ShortWrite(path, offset, bytes.byteLength)
    offset += written
  }
}

/** Writes all of `bytes` into the file at `path` at byte `at` and syncs its data (an append: the caller cuts it back when this throws). */
export async function writeSyncedAt(path: string, bytes: string | Uint8Array, at: number): Promise<void> {
  const handle = await open(path, 'r+')
  try {
    await writeAll(handle, path, bytes, at)
    await handle.datasync()
  } finally {
    await handle.close()
  }
}
