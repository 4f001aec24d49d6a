import { afterEach, describe, expect, it } from 'bun:test'
import type { Subprocess } from 'bun'
import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN_TOKEN, makeApp, readJson, tempDir } from '../harness/app'
import { putLogo, solidPng } from '../harness/logo-upload'
import { freePort, spawnService, stopService, waitForHealth } from '../harness/service'

// Issue 35: a data file's logos live in its own folder, <data file>.logos/, and a server removes
// no file it did not write. Two data files in one folder (as docs/hackathon.md starts them) each
// keep their logos whatever the other does; the shared logos/ of before is taken in at the first
// start, left as it was. Real server processes where two are at stake.

const processes: Subprocess[] = []
afterEach(async () => {
  for (const proc of processes.splice(0)) await stopService(proc)
})

/** `bun src/index.ts` on `file` (with `env` besides): its address, and its output once stopped. */
async function serve(file: string, env: Record<string, string> = {}) {
  const port = freePort()
  const proc = spawnService(
    port,
    { CLUBS_DATA_FILE: file, CLUBS_ADMIN_TOKEN: ADMIN_TOKEN, CLUBS_LOG_LEVEL: 'info', ...env },
    { stdout: 'pipe', stderr: 'pipe' },
  )
  processes.push(proc)
  const base = `http://127.0.0.1:${port}`
  await waitForHealth(base, proc)
  const stop = async () => {
    await stopService(proc)
    return new Response(proc.stdout as ReadableStream).text()
  }
  return { base, stop }
}

/** PUTs `image` as club `code`'s logo on the server at `base`: the logo's path. */
async function upload(base: string, code: string, image: Buffer): Promise<string> {
  const res = await fetch(`${base}/api/clubs/${code}/logo/`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'image/png' },
    body: new Uint8Array(image),
  })
  expect(res.status).toBe(200)
  return new URL(((await res.json()) as { image_url: string }).image_url).pathname
}

/** Each logo's bytes, every size, as the server at `base` serves them (a 404 as null). */
async function served(base: string, paths: readonly string[]) {
  const got: Record<string, number[] | number> = {}
  for (const path of paths)
    for (const query of ['', '?size=64', '?size=256']) {
      const res = await fetch(`${base}${path}${query}`)
      got[path + query] = res.status === 200 ? [...new Uint8Array(await res.arrayBuffer())] : res.status
    }
  return got
}

const files = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : [])

/** The files of the logo at `path` (`/api/logos/<name>.webp`), sorted. */
function filesOf(path: string): string[] {
  const name = path.slice('/api/logos/'.length, -'.webp'.length)
  return [`${name}-256.webp`, `${name}-64.webp`, `${name}.webp`].sort()
}

describe("each data file's logos in a folder of its own", () => {
  it('two servers on two data files in one folder: the second start removes none of the first one’s logos', async () => {
    const dir = tempDir()
    const [first, second] = [join(dir, 'mine.json'), join(dir, 'empty.json')]
    const a = await serve(first)
    const theirs = [
      await upload(a.base, 'penn-chess-society', await solidPng(80, 60, '#a03')),
      await upload(a.base, 'robotics-collective', await solidPng(60, 80, '#0a3')),
    ]
    const before = await served(a.base, theirs)
    const b = await serve(second)
    // The second one's own, and one of the same image as the first one's (the same name).
    const mine = [
      await upload(b.base, 'ballroom-dance-team', await solidPng(70, 70, '#30a')),
      await upload(b.base, 'societe-francaise', await solidPng(80, 60, '#a03')),
    ]
    expect(mine[1]).toBe(theirs[0]!)
    const beforeMine = await served(b.base, mine.slice(0, 1))
    // One the second takes away is swept from its own folder only: the first one's stays.
    const taken = await fetch(`${b.base}/api/clubs/societe-francaise/logo/`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    })
    expect(taken.status).toBe(204)
    expect(Object.values(before).every(Array.isArray)).toBe(true)
    expect(await served(a.base, theirs)).toEqual(before)
    await a.stop()
    await b.stop()
    // Both again, the first after the second.
    const b2 = await serve(second)
    const a2 = await serve(first)
    expect(await served(a2.base, theirs)).toEqual(before)
    expect(await served(b2.base, mine.slice(0, 1))).toEqual(beforeMine)
    expect(files(join(dir, 'logos'))).toEqual([])
    // Each folder holds its own data file's (the sample seed's logos besides), the taken-away one gone from the second's only.
    expect(files(join(dir, 'mine.json.logos'))).toEqual(expect.arrayContaining(theirs.flatMap(filesOf)))
    expect(files(join(dir, 'empty.json.logos'))).toEqual(expect.arrayContaining(filesOf(mine[0]!)))
    expect(files(join(dir, 'empty.json.logos'))).not.toContain(filesOf(mine[1]!)[0])
  }, 60_000)

  it('takes in the logos of the old shared logos/ at the first start, leaving that folder as it was', async () => {
    const dir = tempDir()
    const file = join(dir, 'db.json')
    // A data file from before: its logos, and another data file's, in logos/ beside it.
    const before = await makeApp({ dataFile: file })
    const path = (await putLogo(before, 'penn-chess-society', await solidPng(90, 60, '#aa3300'))).pathname
    const other = await makeApp({ dataFile: join(dir, 'other.json') })
    const othersPath = (await putLogo(other, 'penn-chess-society', await solidPng(50, 50, '#0033aa'))).pathname
    await other.store.close()
    const expected: Record<string, number[]> = {}
    for (const query of ['', '?size=64', '?size=256'])
      expected[path + query] = [...new Uint8Array(await (await before.req(path + query)).arrayBuffer())]
    await before.store.close()
    renameSync(join(dir, 'db.json.logos'), join(dir, 'logos'))
    for (const name of files(join(dir, 'other.json.logos')))
      renameSync(join(dir, 'other.json.logos', name), join(dir, 'logos', name))
    rmSync(join(dir, 'other.json.logos'), { recursive: true })
    const old = files(join(dir, 'logos'))
    expect(old).toHaveLength(6)
    // Read-only, it serves them from there and writes nothing.
    const readOnly = await serve(file, { CLUBS_READ_ONLY: 'true' })
    expect(await served(readOnly.base, [path])).toEqual(expected)
    await readOnly.stop()
    expect(existsSync(join(dir, 'db.json.logos'))).toBe(false)
    const server = await serve(file)
    expect(await served(server.base, [path])).toEqual(expected)
    expect((await fetch(`${server.base}${othersPath}`)).status).toBe(404)
    const output = await server.stop()
    expect(output).toContain("logos taken into this data file's own folder")
    // Its own folder has its logo; the old one is as it was, the other data file's logo in it too.
    expect(files(join(dir, 'db.json.logos'))).toEqual(filesOf(path))
    expect(files(join(dir, 'logos'))).toEqual(old)
    // The other data file takes in its own at its first start too.
    const again = await makeApp({ dataFile: join(dir, 'other.json') })
    expect((await again.req(othersPath)).status).toBe(200)
    expect(files(join(dir, 'logos'))).toEqual(old)
  }, 60_000)

  it('writes a logo again when its file is gone: the same image uploaded again is served', async () => {
    const dir = tempDir()
    const file = join(dir, 'db.json')
    const app = await makeApp({ dataFile: file })
    const image = await solidPng(64, 48, '#336699')
    const path = (await putLogo(app, 'penn-chess-society', image)).pathname
    const bytes = new Uint8Array(await (await app.req(path)).arrayBuffer())
    // Removed behind the server's back (as another server on a shared folder once did).
    for (const entry of files(join(dir, 'db.json.logos'))) rmSync(join(dir, 'db.json.logos', entry))
    expect((await putLogo(app, 'robotics-collective', image)).pathname).toBe(path)
    expect(files(join(dir, 'db.json.logos'))).toEqual(filesOf(path))
    const restarted = await makeApp({ dataFile: file })
    const res = await restarted.req(path)
    expect(res.status).toBe(200)
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes)
    expect((await readJson(await restarted.admin.get('/api/clubs/robotics-collective/'))).image_url).toEndWith(path)
  })
})
