import { describe, expect, it } from 'bun:test'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from '../harness/app'
import { freePort, ROOT, spawnService, waitForHealth } from '../harness/service'

// The start-up line tells an operator what happened to their data file (issue 24, 7).

const dir = tempDir('clubs-start-line-')

async function startLineOf(env: Record<string, string>) {
  const port = freePort()
  const proc = spawnService(port, { CLUBS_LOG_LEVEL: 'info', ...env }, { stdout: 'pipe', stderr: 'pipe' })
  await waitForHealth(`http://127.0.0.1:${port}`, proc)
  proc.kill('SIGTERM')
  await proc.exited
  const lines = (await new Response(proc.stdout as ReadableStream).text()).split('\n').filter((l) => l.startsWith('{'))
  return lines.map((line) => JSON.parse(line)).find((line) => line.msg === 'club directory started')
}

describe('the start-up line', () => {
  it('says when it upgraded a data file of an older release, and where the file as it was is kept', async () => {
    const dataFile = join(dir, 'db.json')
    copyFileSync(join(ROOT, 'test', 'fixtures', 'data-v1.json'), dataFile)
    const line = await startLineOf({ CLUBS_DATA_FILE: dataFile, CLUBS_ADMIN_TOKEN: 'test-admin-token' })
    expect(line.upgraded).toBe(`from data format version 1; the file as it was is kept as ${dataFile}.v1.bak`)
  })

  it('says nothing of an upgrade for a data file in the current format, and warns of a NODE_ENV typo', async () => {
    const port = freePort()
    const proc = spawnService(
      port,
      { CLUBS_DATA_FILE: ':memory:', CLUBS_LOG_LEVEL: 'info', NODE_ENV: 'prod' },
      { stdout: 'pipe', stderr: 'pipe' },
    )
    await waitForHealth(`http://127.0.0.1:${port}`, proc)
    proc.kill('SIGTERM')
    await proc.exited
    const out = await new Response(proc.stdout as ReadableStream).text()
    expect(out).toContain('NODE_ENV=prod is not one of production, development, test')
    expect(out).not.toContain('upgraded')
  })

  it('in production without a token, names a way to writes that the image has (no npm scripts there)', async () => {
    const line = await startLineOf({ CLUBS_DATA_FILE: ':memory:', NODE_ENV: 'production', CLUBS_ADMIN_TOKEN: '' })
    expect(line.writes).toContain('CLUBS_ADMIN_TOKEN_FILE')
    expect(line.writes).not.toContain('npm run')
  })
})
