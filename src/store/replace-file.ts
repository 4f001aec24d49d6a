import { open, rename, rm } from 'node:fs/promises'
import { writeAll } from './write-all'

/**
 * Replaces `file` with `chunks` the durable way: written to `temp` (every byte checked: Bun
 * returns short writes instead of throwing), synced, then renamed over `file`, so the file is
 * always whole, old or new. A write that fails (a full disk) removes its temp file, so the space
 * it took is free again, and leaves `file` as it was. Syncing the folder, which makes the rename
 * itself durable, is the caller's (one sync can cover several files).
 */
export async function replaceFile(
  file: string,
  temp: string,
  chunks: Iterable<string | Uint8Array>,
  { mode = 0o644 } = {},
): Promise<void> {
  const handle = await open(temp, 'w', mode)
  try {
    try {
      for (const chunk of chunks) await writeAll(handle, temp, chunk)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, file)
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined)
    throw error
  }
}
