import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { fsync } from './fsync'
import { IN_MEMORY } from './store'
import { replaceFile } from './replace-file'

const KEY_BYTES = 32

/** Where the service's secret key is kept: beside the data file, never inside it (nor in its backups). */
export const keyFileOf = (dataFile: string) => `${dataFile}.key`

/**
 * The service's secret key (it derives calendar addresses): read from `<data file>.key`, or made
 * and written there durably (owner-only) the first time. A directory in memory, or a read-only
 * one without the file, gets a key for this run only.
 */
export async function openSecretKey(dataFile: string, { readOnly = false } = {}): Promise<Uint8Array> {
  if (dataFile === IN_MEMORY) return randomBytes(KEY_BYTES)
  const file = keyFileOf(dataFile)
  try {
    const key = Buffer.from((await readFile(file, 'utf8')).trim(), 'hex')
    if (key.byteLength === KEY_BYTES) return key
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  const key = randomBytes(KEY_BYTES)
  if (!readOnly) await writeSecretKey(dataFile, key)
  return key
}

/** Writes `key` as `dataFile`'s secret key, durably and owner-only (a copy of a directory brings its key). */
export async function writeSecretKey(dataFile: string, key: Uint8Array): Promise<void> {
  const file = keyFileOf(dataFile)
  await replaceFile(file, `${file}.tmp`, [`${Buffer.from(key).toString('hex')}\n`], { mode: 0o600 })
  await fsync(dirname(file))
}
