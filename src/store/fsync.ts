import { open } from 'node:fs/promises'

/** Flushes a file (or a folder, so a rename in it is durable) to the disk. */
export async function fsync(path: string): Promise<void> {
  const handle = await open(path, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
