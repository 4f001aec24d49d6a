import { copyFile, link, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { fsync } from './fsync'
import { ShortWrite } from './write-all'

/**
 * Puts each of `files` of folder `from` in folder `to`: a hard link, or across file systems a copy
 * checked whole (every byte: Bun's short writes do not throw) and synced; either way through a
 * temp file renamed into place, so a file there is always whole. For files that never change
 * (logos, named by their content). Syncing `to` itself, which makes the renames durable, is the
 * caller's.
 */
export async function linkFiles(from: string, to: string, files: readonly string[]): Promise<void> {
  for (const name of files) {
    const temp = join(to, `${name}.tmp`)
    try {
      await rm(temp, { force: true })
      await link(join(from, name), temp).catch(async () => {
        const { size } = await stat(join(from, name))
        await copyFile(join(from, name), temp)
        const copied = (await stat(temp)).size
        if (copied !== size) throw new ShortWrite(temp, copied, size)
        await fsync(temp)
      })
      await rename(temp, join(to, name))
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined)
      throw error
    }
  }
}
