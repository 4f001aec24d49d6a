import { describe, expect, it } from 'bun:test'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from '../harness/app'
import { IN_MEMORY } from '../src/store/store'
import { keyFileOf, openSecretKey } from '../src/store/secret-key'

// The service's secret key (it derives calendar addresses, docs/reference.md §21): kept beside the data
// file, owner-only, never inside it; made once and read back after; never written by a
// read-only server or for a directory in memory.

const dataFile = () => {
  const dir = tempDir('clubs-key-')
  return join(dir, 'db.json')
}

describe('the secret key', () => {
  it('is made once, owner-only, beside the data file, and read back the same', async () => {
    const file = dataFile()
    const first = await openSecretKey(file)
    expect(first.byteLength).toBe(32)
    expect(statSync(keyFileOf(file)).mode & 0o777).toBe(0o600)
    expect(readFileSync(keyFileOf(file), 'utf8').trim()).toBe(Buffer.from(first).toString('hex'))
    expect(Buffer.from(await openSecretKey(file)).equals(Buffer.from(first))).toBe(true)
    expect(readdirSync(join(file, '..')).sort()).toEqual(['db.json.key'])
  })

  it('is one for this run only, and no file, for a read-only server without one or a directory in memory', async () => {
    const file = dataFile()
    const a = await openSecretKey(file, { readOnly: true })
    const b = await openSecretKey(file, { readOnly: true })
    expect(existsSync(keyFileOf(file))).toBe(false)
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false)
    expect((await openSecretKey(IN_MEMORY)).byteLength).toBe(32)
    expect(existsSync(keyFileOf(IN_MEMORY))).toBe(false)
  })

  it('reads a key a read-only server shares with the writing one', async () => {
    const file = dataFile()
    const written = await openSecretKey(file)
    expect(Buffer.from(await openSecretKey(file, { readOnly: true })).equals(Buffer.from(written))).toBe(true)
  })
})
