import { afterAll, describe, expect, it } from 'bun:test'
import type { Server } from 'bun'
import jsQR from 'jsqr'
import sharp from 'sharp'
import { ADMIN_TOKEN, makeApp, readJson } from '../harness/app'
import { createLogger } from '../src/log'
import { serve } from '../src/serve'
import type { TrustProxy } from '../src/edge/forwarded'
import { users } from '../harness/users'

// A club's QR code for the club fair (docs/reference.md §23), read as a phone would: the SVG rendered to
// pixels by sharp (librsvg) and decoded by jsQR, an independent reader, so these tests check what
// the code says, not the encoder against itself.

const CHESS = 'penn-chess-society'
const QR = `/api/clubs/${CHESS}/qr.svg`

/** What a QR code in an SVG says, or null when no reader could find one. */
async function decodeSvg(svg: string): Promise<string | null> {
  const { data, info } = await sharp(Buffer.from(svg), { density: 72 * 8 })
    .flatten({ background: '#ffffff' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true })
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height)?.data ?? null
}

describe("a club's QR code", () => {
  it("is an SVG of the absolute URL of the club's page, and the poster page holds the same code", async () => {
    const { req } = await makeApp()
    const res = await req(QR)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('image/svg+xml')
    expect(res.headers.get('etag')).toMatch(/^W\/"[0-9a-z]+"$/)
    const svg = await res.text()
    expect(svg).toStartWith('<svg xmlns="http://www.w3.org/2000/svg"')
    expect(await decodeSvg(svg)).toBe(`http://localhost/clubs/${CHESS}`)
    // The poster draws the very same code inline (no second request, and an owner's pending club's too).
    const page = await (await req(`/clubs/${CHESS}/poster`, { headers: { accept: 'text/html' } })).text()
    expect(page).toContain(svg.trim())
  })

  it('answers 304 to If-None-Match with its ETag, and gzip to those who take it', async () => {
    const { req } = await makeApp()
    const first = await req(QR)
    const etag = first.headers.get('etag')!
    const again = await req(QR, { headers: { 'if-none-match': etag } })
    expect(again.status).toBe(304)
    expect(again.headers.get('etag')).toBe(etag)
    expect(await again.text()).toBe('')
    // Another tag is not this drawing.
    expect((await req(QR, { headers: { 'if-none-match': 'W/"other"' } })).status).toBe(200)
    const gzipped = await req(QR, { headers: { 'accept-encoding': 'gzip' }, decompress: false } as RequestInit)
    expect(gzipped.headers.get('content-encoding')).toBe('gzip')
    // The same code for everyone, in every data version: a club's other changes leave it alone.
    const { admin } = await makeApp()
    expect((await admin.patch(`/api/clubs/${CHESS}/`, { subtitle: 'Blitz on Tuesdays' })).status).toBe(200)
    const after = await admin.get(QR)
    expect(after.headers.get('etag')).toBe(etag)
  })

  it("is a 404 to whoever may not see the club: a pending club's is its owner's and the office's alone", async () => {
    const { req, admin } = await makeApp()
    const { olive: token } = await users({ admin }, 'olive')
    expect((await req('/api/clubs/', { method: 'POST', token, json: { name: 'Lantern Society' } })).status).toBe(201)
    const pending = '/api/clubs/lantern-society/qr.svg'
    expect((await req(pending)).status).toBe(404)
    const body = await readJson(await req(pending))
    expect(body).toEqual({ detail: 'Not found.' })
    expect((await req('/clubs/lantern-society/poster', { headers: { accept: 'text/html' } })).status).toBe(404)
    const own = await req(pending, { token })
    expect(own.status).toBe(200)
    expect(await decodeSvg(await own.text())).toBe('http://localhost/clubs/lantern-society')
    expect((await req(pending, { token: ADMIN_TOKEN })).status).toBe(200)
    // An inactive club is hidden from the public too; an unknown code and a wrong token are refused.
    expect((await admin.patch(`/api/clubs/${CHESS}/`, { active: false })).status).toBe(200)
    expect((await req(QR)).status).toBe(404)
    expect((await req('/api/clubs/no-such-club/qr.svg')).status).toBe(404)
    expect((await req(QR, { token: 'not-a-token' })).status).toBe(401)
    // A file, not a page: no ?format= and no browsable view.
    expect((await req(`${QR}?format=api`, { token: ADMIN_TOKEN })).status).toBe(404)
    expect((await req(QR, { method: 'POST', token: ADMIN_TOKEN })).status).toBe(405)
  })
})

describe('behind a reverse proxy', () => {
  const servers: Server<undefined>[] = []
  afterAll(() => {
    for (const server of servers) server.stop(true)
  })

  async function served(trustProxy: TrustProxy) {
    const { app } = await makeApp()
    const server = serve(app, { port: 0, host: '127.0.0.1', log: createLogger('silent'), trustProxy, metrics: null })
    servers.push(server)
    return `http://127.0.0.1:${server.port}`
  }
  const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'clubs.example.edu' }

  it('encodes the public URL the trusted proxy forwards, on the code and on the poster, each kept by its own URL', async () => {
    const base = await served(['127.0.0.1'])
    const res = await fetch(`${base}${QR}`, { headers: forwarded })
    expect(res.status).toBe(200)
    const svg = await res.text()
    expect(await decodeSvg(svg)).toBe(`https://clubs.example.edu/clubs/${CHESS}`)
    const poster = await (await fetch(`${base}/clubs/${CHESS}/poster`, { headers: forwarded })).text()
    expect(poster).toContain(svg.trim())
    expect(poster).toContain(`https://clubs.example.edu/clubs/${CHESS}</strong>`)
    // The same service reached directly: its own address, another drawing.
    const direct = await fetch(`${base}${QR}`)
    expect(await decodeSvg(await direct.text())).toBe(`${base}/clubs/${CHESS}`)
    expect(direct.headers.get('etag')).not.toBe(res.headers.get('etag'))
  })

  it('ignores the forwarded headers of a peer it does not trust', async () => {
    const base = await served(false)
    const res = await fetch(`${base}${QR}`, { headers: forwarded })
    expect(await decodeSvg(await res.text())).toBe(`${base}/clubs/${CHESS}`)
  })
})
