import { afterAll, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { ADMIN_TOKEN, makeApp, ON_POSTGRES, readJson, tempDir } from '../harness/app'
import { users } from '../harness/users'
import { until } from '../harness/webhook-receiver'

// docs/reference.md §21 Logo: PUT /api/clubs/{code}/logo/ with the image's bytes, DELETE it, and
// GET /api/logos/{name}.webp, through the HTTP surface; files in a temp dir where the disk matters.

type App = Awaited<ReturnType<typeof makeApp>>
type Who = 'owner' | 'officer' | 'user' | 'admin' | 'anonymous'
const OWN = 'db.json.logos'
const LOGO_URL = /^http:\/\/localhost\/api\/logos\/([0-9a-f]{64})\.webp$/

const solid = (width: number, height: number, colour = '#c33') =>
  sharp({ create: { width, height, channels: 4, background: colour } })
const png = (width = 300, height = 200, colour?: string) => solid(width, height, colour).png().toBuffer()
const jpeg = (width = 300, height = 200, colour?: string) => solid(width, height, colour).jpeg().toBuffer()
const webp = (width = 300, height = 200, colour?: string) => solid(width, height, colour).webp().toBuffer()

/** `image` (a PNG) with its IHDR declaring `width`×`height`, its CRC made right again. */
function declaring(image: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(image)
  const view = new DataView(out.buffer)
  view.setUint32(16, width)
  view.setUint32(20, height)
  // The CRC covers the chunk type and data: bytes 12..29; it follows them.
  view.setUint32(29, Bun.hash.crc32(out.subarray(12, 29)))
  return out
}

/** An approved club run by an owner and an officer, a user who runs nothing, and a pending club of another owner. */
async function world(dataFile?: string) {
  const app = await makeApp({ dataFile })
  const tokens: Record<Who, string | null> = {
    ...(await users(app, 'owner', 'officer', 'user')),
    admin: ADMIN_TOKEN,
    anonymous: null,
  }
  const as = (who: Who, path: string, init: RequestInit & { json?: unknown } = {}) =>
    app.req(path, { ...init, token: tokens[who] })
  const created = await as('owner', '/api/clubs/', { method: 'POST', json: { name: 'Lantern Society' } })
  expect(created.status).toBe(201)
  const club = `/api/clubs/${(await readJson(created)).code}/`
  expect(
    (await as('owner', `${club}members/`, { method: 'POST', json: { username: 'officer', role: 'officer' } })).status,
  ).toBe(201)
  expect((await as('admin', club, { method: 'PATCH', json: { approved: true } })).status).toBe(200)
  const hidden = await as('officer', '/api/clubs/', { method: 'POST', json: { name: 'Quiet Corner' } })
  const hiddenClub = `/api/clubs/${(await readJson(hidden)).code}/`
  const put = (who: Who, body: BodyInit, type = 'application/octet-stream', at = club) =>
    as(who, `${at}logo/`, { method: 'PUT', body, headers: { 'content-type': type } })
  const shown = async (who: Who, at = club) => (await readJson(await as(who, at))).image_url as string | null
  return { app, as, club, hiddenClub, put, shown }
}

const nameOf = (url: string | null) => LOGO_URL.exec(url ?? '')?.[1] ?? null
/** The files in the logo folder of `dir`'s db.json: its own, db.json.logos/. */
const logoFiles = (dir: string) => (existsSync(join(dir, OWN)) ? readdirSync(join(dir, OWN)).sort() : [])

describe('PUT /api/clubs/{code}/logo/', () => {
  it('takes a PNG, a JPEG and a WebP, keeps each as WebP with 64 and 256 px squares', async () => {
    const { put, app } = await world()
    for (const [image, width, height] of [
      [await png(300, 200), 300, 200],
      [await jpeg(120, 400), 120, 400],
      [await webp(4096, 30), 4096, 30],
    ] as const) {
      const res = await put('admin', image)
      expect(res.status).toBe(200)
      const url = (await readJson(res)).image_url
      expect(url).toMatch(LOGO_URL)
      const path = new URL(url).pathname
      for (const [query, w, h] of [
        ['', width, height],
        ['?size=64', 64, 64],
        ['?size=256', 256, 256],
      ] as const) {
        const got = await app.req(path + query)
        expect(got.status).toBe(200)
        expect(got.headers.get('content-type')).toBe('image/webp')
        const meta = await sharp(new Uint8Array(await got.arrayBuffer())).metadata()
        expect([meta.format, meta.width, meta.height]).toEqual(['webp', w, h])
      }
    }
  })

  it('names the logo by the SHA-256 of its WebP bytes', async () => {
    const { put, app } = await world()
    const url = (await readJson(await put('admin', await png()))).image_url
    const bytes = new Uint8Array(await (await app.req(new URL(url).pathname)).arrayBuffer())
    expect(nameOf(url)).toBe(new Bun.CryptoHasher('sha256').update(bytes).digest('hex'))
  })

  it('reads the type from the bytes, whatever Content-Type says', async () => {
    const { put } = await world()
    for (const type of ['text/plain', 'image/gif', 'application/json', 'image/jpeg'])
      expect((await put('admin', await png(), type)).status).toBe(200)
    const text = await put('admin', 'GIF89a not really', 'image/png')
    expect(text.status).toBe(400)
  })

  it('serves logos with immutable caching, an ETag and 304', async () => {
    const { put, app } = await world()
    const path = new URL((await readJson(await put('admin', await png()))).image_url).pathname
    for (const query of ['', '?size=64', '?size=256']) {
      const res = await app.req(path + query)
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      const etag = res.headers.get('etag')!
      expect(etag).toBeTruthy()
      const again = await app.req(path + query, { headers: { 'if-none-match': etag } })
      expect(again.status).toBe(304)
      expect((await again.arrayBuffer()).byteLength).toBe(0)
    }
  })

  it('answers 404 for an unknown logo and for any name that is not <hex>.webp, and 400 for another size', async () => {
    const { put, app } = await world()
    const path = new URL((await readJson(await put('admin', await png()))).image_url).pathname
    const name = path.split('/').pop()!
    for (const bad of [
      `${'0'.repeat(64)}.webp`,
      name.replace('.webp', '.png'),
      name.toUpperCase(),
      `${name.slice(0, 63)}.webp`,
      '..%2F..%2Fpackage.json',
      '..%2Fdb.json',
      `..%2F${name}`,
      '%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
      `${name}%00`,
      `${name.replace('.webp', '-64.webp')}`,
    ]) {
      const res = await app.req(`/api/logos/${bad}`)
      expect(res.status, bad).toBe(404)
    }
    expect((await app.req(`${path}?size=128`)).status).toBe(400)
  })

  it('reads ?size= as any query is read: escapes decoded, the first of several, no ?format=', async () => {
    const { put, app } = await world()
    const path = new URL((await readJson(await put('admin', await png()))).image_url).pathname
    const width = async (query: string) => {
      const res = await app.req(path + query)
      expect(res.status, query).toBe(200)
      return (await sharp(new Uint8Array(await res.arrayBuffer())).metadata()).width
    }
    expect(await width('?size=6%34')).toBe(64)
    expect(await width('?size=64&size=256')).toBe(64)
    expect(await width('?sizes=64&size=256')).toBe(256)
    expect(await width('?&size=256&')).toBe(256)
    for (const query of ['?size', '?size=', '?size=64+', '?size=%2064', '?Size=64&size=12'])
      expect((await app.req(path + query)).status, query).toBe(400)
    for (const query of ['?format=json', '?size=64&format=', '?format'])
      expect((await app.req(path + query)).status, query).toBe(404)
  })
})

describe('refused uploads (400 {"image": [...]}, nothing changed, no file left)', () => {
  it('refuses a text file, 2 MiB + 1 byte, 5000×10, a 50,000×50,000 header and a truncated JPEG', async () => {
    const dir = tempDir()
    const { put, shown } = await world(join(dir, 'db.json'))
    const first = await put('admin', await png())
    expect(first.status).toBe(200)
    const before = await shown('admin')
    const files = logoFiles(dir)
    expect(files).toHaveLength(3)
    const real = await jpeg(400, 400)
    const big = new Uint8Array(2 * 1024 * 1024 + 1)
    big.set(await png(10, 10))
    const cases: [string, Uint8Array | string][] = [
      ['text', 'Just some words, not a picture.\n'],
      ['2 MiB + 1 byte', big],
      ['5000×10', await png(5000, 10)],
      ['50,000×50,000 header', declaring(await png(8, 8), 50_000, 50_000)],
      ['truncated JPEG', real.subarray(0, Math.floor(real.byteLength / 2))],
      ['empty', ''],
    ]
    for (const [what, body] of cases) {
      const res = await put('admin', body as BodyInit)
      expect(res.status, what).toBe(400)
      const errors = await readJson(res)
      expect(Object.keys(errors), what).toEqual(['image'])
      expect(errors.image[0], what).toBeString()
      expect(await shown('admin'), what).toBe(before)
      expect(logoFiles(dir), what).toEqual(files)
    }
  })

  it('stops reading a body past 2 MiB sent without Content-Length', async () => {
    const { put } = await world()
    let sent = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > 8 * 1024 * 1024) return controller.close()
        sent += 64 * 1024
        controller.enqueue(new Uint8Array(64 * 1024))
      },
    })
    const res = await put('admin', stream as unknown as BodyInit)
    expect(res.status).toBe(400)
    expect(Object.keys(await readJson(res))).toEqual(['image'])
    expect(sent).toBeLessThan(4 * 1024 * 1024)
  })
})

describe('who may set and take away a logo', () => {
  it('is a 401 to anonymous callers, 403 to a user who does not run the club, 404 for a club they cannot see', async () => {
    const { put, as, club, hiddenClub } = await world()
    const image = await png()
    const rows: [Who, string, string, number][] = [
      ['anonymous', 'PUT', club, 401],
      ['user', 'PUT', club, 403],
      ['user', 'PUT', hiddenClub, 404],
      ['user', 'PUT', '/api/clubs/no-such-club/', 404],
      ['owner', 'PUT', hiddenClub, 404],
      ['officer', 'PUT', club, 200],
      ['owner', 'PUT', club, 200],
      ['admin', 'PUT', hiddenClub, 200],
      ['anonymous', 'DELETE', club, 401],
      ['user', 'DELETE', club, 403],
      ['user', 'DELETE', hiddenClub, 404],
      ['officer', 'DELETE', club, 204],
    ]
    for (const [who, method, at, status] of rows) {
      const res = method === 'PUT' ? await put(who, image, 'image/png', at) : await as(who, `${at}logo/`, { method })
      expect(res.status, `${who} ${method} ${at}`).toBe(status)
      if (status === 401) expect(res.headers.get('www-authenticate')).toStartWith('Bearer')
    }
  })

  it('checks who calls before the image: a user who does not run the club gets 403 for a bad image too', async () => {
    const { put } = await world()
    expect((await put('user', 'not an image')).status).toBe(403)
  })
})

describe('image_url stays a reviewed field', () => {
  it("sends an officer's new logo on an approved club to review; the public keeps the approved logo", async () => {
    const { put, as, club, shown } = await world()
    const approved = (await readJson(await put('admin', await png(50, 50, '#36c')))).image_url
    expect(await shown('anonymous')).toBe(approved)
    const res = await put('officer', await png(50, 50, '#3c6'))
    expect(res.status).toBe(200)
    const body = await readJson(res)
    expect(body.approved).toBe(false)
    const proposed = body.image_url
    expect(proposed).not.toBe(approved)
    expect(await shown('anonymous')).toBe(approved)
    expect(await shown('user')).toBe(approved)
    expect(await shown('officer')).toBe(proposed)
    // Both logos are served while the change awaits review.
    for (const url of [approved, proposed]) expect((await as('anonymous', new URL(url).pathname)).status).toBe(200)
    const history = await readJson(await as('owner', `${club}history/`))
    expect(history[0]).toMatchObject({ event: 'submitted', fields: ['image_url'], by: 'officer' })
    // Approved: the new logo is public, and the old one, which no version names, is gone.
    expect((await as('admin', club, { method: 'PATCH', json: { approved: true } })).status).toBe(200)
    expect(await shown('anonymous')).toBe(proposed)
    // A database keeps an unreferenced logo for minutes: another instance may be about to point to it.
    if (!ON_POSTGRES)
      await until(async () => (await as('anonymous', new URL(approved).pathname)).status === 404, 'the old logo gone')
  })

  it('takes the logo away with DELETE: 204, image_url null, the file swept', async () => {
    const dir = tempDir()
    const { put, as, club, shown } = await world(join(dir, 'db.json'))
    const url = (await readJson(await put('admin', await png()))).image_url
    const res = await as('admin', `${club}logo/`, { method: 'DELETE' })
    expect(res.status).toBe(204)
    expect(await shown('anonymous')).toBeNull()
    expect((await as('anonymous', new URL(url).pathname)).status).toBe(404)
    expect(logoFiles(dir)).toEqual([])
  })
})

describe('storage', () => {
  it("writes the logo and its thumbnails to the data file's own <file>.logos/, and sweeps the one replaced", async () => {
    const dir = tempDir()
    const { put } = await world(join(dir, 'db.json'))
    const first = nameOf((await readJson(await put('admin', await png(64, 64, '#111')))).image_url)!
    expect(logoFiles(dir)).toEqual([`${first}-256.webp`, `${first}-64.webp`, `${first}.webp`].sort())
    const second = nameOf((await readJson(await put('admin', await png(64, 64, '#eee')))).image_url)!
    expect(second).not.toBe(first)
    expect(logoFiles(dir)).toEqual([`${second}-256.webp`, `${second}-64.webp`, `${second}.webp`].sort())
  })

  it('keeps the logo across a restart, and sweeps at start-up what no club names', async () => {
    const dir = tempDir()
    const file = join(dir, 'db.json')
    const { put, club } = await world(file)
    const url = (await readJson(await put('admin', await png()))).image_url
    const name = nameOf(url)!
    // What a crash or an older run could leave: a logo nobody names, a temp file, a lone thumbnail.
    const stray = 'ab'.repeat(32)
    await Bun.write(join(dir, OWN, `${stray}.webp`), await webp(10, 10))
    await Bun.write(join(dir, OWN, `${name}.webp.tmp`), 'half')
    await Bun.write(join(dir, OWN, `${'cd'.repeat(32)}-64.webp`), 'lone')
    const restarted = await makeApp({ dataFile: file })
    expect((await readJson(await restarted.admin.get(club))).image_url).toBe(url)
    const res = await restarted.req(new URL(url).pathname + '?size=64')
    expect(res.status).toBe(200)
    const kept = [`${name}-256.webp`, `${name}-64.webp`, `${name}.webp`].sort()
    await until(() => Bun.deepEquals(logoFiles(dir), kept), 'the sweep at start-up')
  })
})

describe('uploads share the image processor fairly (issue 35)', () => {
  /** Each upload taken, by its label, in the order their answers came. */
  const finishing = (order: string[], label: string, answer: Promise<Response>) =>
    answer.then((res) => (res.status === 200 && order.push(label), res))

  it("one user's 8 uploads of a 4,096 px image do not hold up another caller's small logo", async () => {
    const { put, hiddenClub } = await world()
    const large = await png(4096, 4096, '#246')
    const small = await png(64, 64, '#6c3')
    const order: string[] = []
    const theirs = Array.from({ length: 8 }, (_, i) => finishing(order, `large ${i + 1}`, put('owner', large)))
    // Their first answered, the other 7 are queued: the small logo comes now.
    await theirs[0]
    const mine = finishing(order, 'small', put('admin', small, 'image/png', hiddenClub))
    for (const res of await Promise.all([...theirs, mine])) expect(res.status).toBe(200)
    // It waits for none of theirs but the one being made when it came (one queue: for all 7).
    expect(order.indexOf('small'), order.join(', ')).toBeLessThan(3)
  }, 90_000)

  it("answers 429 with Retry-After past a caller's 8 waiting uploads, while another caller's goes", async () => {
    const { put, hiddenClub } = await world()
    const image = await png(2048, 2048, '#642')
    const order: string[] = []
    const small = await png(32, 32, '#399')
    const theirs = Array.from({ length: 12 }, (_, i) => finishing(order, `theirs ${i + 1}`, put('owner', image)))
    const refusedFirst = await Promise.race(theirs)
    expect(refusedFirst.status).toBe(429)
    const mine = finishing(order, 'mine', put('admin', small, 'image/png', hiddenClub))
    const answers = await Promise.all(theirs)
    expect((await mine).status).toBe(200)
    const statuses = answers.map((res) => res.status)
    // One being made and 8 waiting are taken; the rest, sent while those wait, are refused.
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(9)
    const refused = answers.filter((res) => res.status === 429)
    expect(refused.length).toBeGreaterThanOrEqual(1)
    expect(refused.length + 9).toBeLessThanOrEqual(12)
    for (const res of refused) {
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      const body = await readJson(res)
      expect(Object.keys(body)).toEqual(['detail'])
      expect(body.detail).toStartWith('Request was throttled')
    }
    // Among the uploads taken, another caller's is made beside theirs, not after them.
    expect(order.indexOf('mine'), order.join(', ')).toBeLessThan(2)
  }, 90_000)
})

describe('fuzzing uploads (fast-check)', () => {
  const runs = Math.max(20, Math.round((Number(process.env.FUZZ_RUNS) || 200) / 5))
  const sent = { total: 0, ok: 0, refused: 0 }
  afterAll(() => console.log(`logo fuzz: ${sent.total} uploads, ${sent.ok} taken, ${sent.refused} refused`))

  async function upload(app: App, body: Uint8Array) {
    const res = await app.req('/api/clubs/penn-chess-society/logo/', {
      method: 'PUT',
      token: ADMIN_TOKEN,
      body: body as BodyInit,
      headers: { 'content-type': 'application/octet-stream' },
    })
    sent.total++
    expect([200, 400]).toContain(res.status)
    const body2 = await readJson(res)
    if (res.status === 400) {
      sent.refused++
      expect(Object.keys(body2)).toEqual(['image'])
    } else sent.ok++
    return res.status
  }

  it('answers only 200 or 400 to random bytes, corrupted real images and random declared sizes', async () => {
    const app = await makeApp()
    const seeds = [await png(40, 30), await jpeg(40, 30), await webp(40, 30)]
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2048 }), async (bytes) => void (await upload(app, bytes))),
      { numRuns: runs },
    )
    const corrupted = fc.tuple(
      fc.constantFrom(...seeds),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 0, maxLength: 8 }),
      fc.option(fc.nat(), { nil: undefined }),
    )
    await fc.assert(
      fc.asyncProperty(corrupted, async ([seed, edits, cut]) => {
        const bytes = new Uint8Array(seed)
        // Edits land in the header most of the time: the first 64 bytes.
        for (const [at, value] of edits) bytes[at % Math.min(64, bytes.length)] = value
        await upload(app, cut === undefined ? bytes : bytes.subarray(0, cut % bytes.length))
      }),
      { numRuns: runs },
    )
    const sizes = fc.tuple(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: 0, max: 2 ** 32 - 1 }))
    const small = await png(8, 8)
    await fc.assert(
      fc.asyncProperty(sizes, async ([width, height]) => {
        const status = await upload(app, declaring(small, width, height))
        if (width > 4096 || height > 4096) expect(status).toBe(400)
      }),
      { numRuns: runs },
    )
  }, 120_000)
})
