// The OpenAPI document against the service's real answers: a walk through every endpoint (success and
// error answers, the list's filters, paging, fields and spreadsheets, the browsable view), each answer
// checked as a validating proxy would (harness/openapi-traffic.ts). The app is served over HTTP, as
// in production, so that the headers the server adds (X-Request-Id) are checked too.
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Server } from 'bun'
import { ADMIN_TOKEN, makeApp, type TestConfig } from '../harness/app'
import { OpenApiTraffic, type Seen } from '../harness/openapi-traffic'
import sharp from 'sharp'
import { createLogger } from '../src/log'
import { serve } from '../src/serve'

const CLUB = '/api/clubs/penn-chess-society/'
const BIG = 'x'.repeat(1024 * 1024 + 1)

type Init = {
  token?: string | null
  json?: unknown
  body?: string | Uint8Array
  type?: string
  headers?: Record<string, string>
}

const servers: Server<undefined>[] = []

async function serveApp(config: TestConfig = {}) {
  const { app } = await makeApp({ config })
  const server = serve(app, {
    port: 0,
    host: '127.0.0.1',
    log: createLogger('silent'),
    trustProxy: false,
    metrics: null,
  })
  servers.push(server)
  return `http://127.0.0.1:${server.port}`
}

describe('the OpenAPI document describes the traffic', () => {
  let traffic: OpenApiTraffic
  const problems: string[] = []
  let base = ''

  /** Sends one request, checks its answer against the document, and returns it with its body. */
  async function send(method: string, path: string, init: Init = {}, at = base) {
    const headers = new Headers(init.headers)
    if (init.token) headers.set('authorization', `Bearer ${init.token}`)
    let body: string | Uint8Array | null = init.body ?? null
    if (init.json !== undefined) body = JSON.stringify(init.json)
    if (body !== null) headers.set('content-type', init.type ?? 'application/json')
    const response = await fetch(`${at}${path}`, { method, headers, body: body as BodyInit | null })
    const bytes = new Uint8Array(await response.arrayBuffer())
    const seen: Seen = {
      method,
      url: new URL(`${at}${path}`),
      requestType: headers.get('content-type'),
      requestBody: typeof body === 'string' ? body : null,
      response,
      body: bytes,
    }
    problems.push(...traffic.problems(seen))
    return {
      status: response.status,
      headers: response.headers,
      json: () => JSON.parse(new TextDecoder().decode(bytes)),
    }
  }
  const get = (path: string, init: Init = {}) => send('GET', path, init)
  const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }

  beforeAll(async () => {
    base = await serveApp()
    traffic = new OpenApiTraffic(await (await fetch(`${base}/swagger/json`)).json())
  })

  afterAll(() => {
    for (const server of servers) server.stop(true)
  })

  it('declares every answer of a walk through every endpoint: status, content type, headers, body', async () => {
    const expectStatus = async (answer: Promise<{ status: number }>, status: number) =>
      expect((await answer).status).toBe(status)

    // Users, so that callers of every kind take part.
    const alice = (
      await (await send('POST', '/api/users/', { token: ADMIN_TOKEN, json: { username: 'alice' } })).json()
    ).token as string
    const bob = (await (await send('POST', '/api/users/', { token: ADMIN_TOKEN, json: { username: 'bob' } })).json())
      .token as string

    // The root, the probes, the metrics that are off.
    await expectStatus(get('/api/'), 200)
    await expectStatus(get('/api/', { headers: html }), 200)
    await expectStatus(get('/health'), 200)
    await expectStatus(get('/livez'), 200)
    await expectStatus(get('/readyz'), 200)
    await expectStatus(get('/metrics'), 404)
    // HEAD and OPTIONS, documented; a wrong method on a probe is a 405 naming GET, as everywhere.
    await expectStatus(send('HEAD', '/health'), 200)
    await expectStatus(send('HEAD', '/api/clubs/'), 200)
    await expectStatus(send('OPTIONS', '/api/clubs/'), 200)
    await expectStatus(send('OPTIONS', '/api/clubs/penn-chess-society/'), 200)
    for (const probe of ['/health', '/livez', '/readyz', '/metrics']) {
      const wrong = await send('POST', probe)
      expect([wrong.status, wrong.headers.get('allow')]).toEqual([405, 'GET'])
    }

    // The list: plain, paged, selected fields, filters, spreadsheets, the browsable view, 304, errors.
    const list = await get('/api/clubs/')
    expect(list.status).toBe(200)
    // A 304 sends the validators and none of the body's metadata (RFC 9110 §15.4.5).
    const unchanged = await get('/api/clubs/', { headers: { 'if-none-match': list.headers.get('etag')! } })
    expect([unchanged.status, unchanged.headers.get('content-type')]).toEqual([304, null])
    expect(unchanged.headers.get('etag')).toBe(list.headers.get('etag'))
    await expectStatus(get('/api/clubs/?page=2&page_size=5'), 200)
    await expectStatus(get('/api/clubs/?fields=code,name'), 200)
    await expectStatus(get('/api/clubs/?fields=code,description&page=1&page_size=3'), 200)
    await expectStatus(
      get('/api/clubs/?accepting_members=true&is_school_unit=false&size=1,2&tags=Games&ordering=-name&search=club'),
      200,
    )
    await expectStatus(get('/api/clubs/?code=penn-chess-society,robotics-collective&updated_since=2000-01-01'), 200)
    await expectStatus(get('/api/clubs/?approved=false&active=true', { token: ADMIN_TOKEN }), 200)
    await expectStatus(get('/api/clubs/?format=csv&fields=code,name,description'), 200)
    await expectStatus(get('/api/clubs/?format=xlsx&page=1'), 200)
    await expectStatus(get('/api/clubs/?format=api'), 200)
    await expectStatus(get('/api/clubs/?format=json&page=1', { token: alice }), 200)
    for (const bad of ['size=5', 'accepting_members=1', 'active=TRUE', 'ordering=colour', 'page=0', 'fields=nope'])
      await expectStatus(get(`/api/clubs/?${bad}`), 400)
    await expectStatus(get('/api/clubs/?page=999'), 404)
    await expectStatus(get('/api/clubs/?format=xml'), 404)
    await expectStatus(get('/api/clubs/?size=5&format=api'), 400)
    await expectStatus(get('/api/clubs/', { token: 'not-a-token' }), 401)

    // One club.
    const club = await get(CLUB)
    expect(club.status).toBe(200)
    await expectStatus(get(CLUB, { headers: { 'if-none-match': club.headers.get('etag')! } }), 304)
    await expectStatus(get(`${CLUB}?fields=code,name,description`), 200)
    await expectStatus(get(CLUB, { headers: html }), 200)
    await expectStatus(get(`${CLUB}?fields=colour`), 400)
    await expectStatus(get('/api/clubs/no-such-club/'), 404)
    await expectStatus(get('/api/clubs/no-such-club/?format=api'), 404)
    await expectStatus(get(`${CLUB}history/`), 401)
    await expectStatus(get(`${CLUB}history/`, { token: alice }), 403)
    await expectStatus(get(`${CLUB}history/`, { token: ADMIN_TOKEN }), 200)

    // Creating clubs: the read-only fields of a GET sent back are accepted (and ignored).
    const created = await send('POST', '/api/clubs/', {
      token: alice,
      json: { name: 'Go Club', size: 1, tags: [{ name: 'Games' }], favorite_count: 99, is_member: false },
    })
    expect(created.status).toBe(201)
    const go = '/api/clubs/go-club/'
    await expectStatus(send('POST', '/api/clubs/?fields=code', { token: alice, json: { name: 'Shogi Club' } }), 201)
    await expectStatus(send('POST', '/api/clubs/', { token: alice, json: { name: 'Go Club' } }), 400)
    await expectStatus(send('POST', '/api/clubs/', { token: alice, json: { colour: 'red' } }), 400)
    await expectStatus(send('POST', '/api/clubs/', { token: alice, body: '{"name": ' }), 400)
    await expectStatus(send('POST', '/api/clubs/', { token: alice, body: 'name=x', type: 'text/plain' }), 415)
    await expectStatus(send('POST', '/api/clubs/', { token: alice, json: { name: BIG } }), 413)
    await expectStatus(send('POST', '/api/clubs/', { json: { name: 'Anonymous Club' } }), 401)
    await expectStatus(send('POST', '/api/clubs/?format=xml', { token: alice, json: { name: 'X' } }), 404)

    // Changing it: PATCH, a GET-edit-PUT with every field sent back, approval, a caller who may not.
    await expectStatus(send('PATCH', go, { token: alice, json: { accepting_members: true } }), 200)
    const detail = await (await get(go, { token: alice })).json()
    await expectStatus(send('PUT', go, { token: alice, json: { ...detail, subtitle: 'Stones on a grid' } }), 200)
    await expectStatus(send('PUT', go, { token: alice, json: { name: 'Go Club' } }), 400)
    await expectStatus(send('PATCH', go, { token: bob, json: { size: 2 } }), 404)
    await expectStatus(send('PATCH', `${go}?fields=approved`, { token: ADMIN_TOKEN, json: { approved: true } }), 200)
    await expectStatus(send('PATCH', go, { token: bob, json: { size: 2 } }), 403)
    await expectStatus(send('PATCH', go, { token: alice, json: { approved: false } }), 403)

    // Sent for review again (docs/reference.md §22): a 409 while approved; a rejected change, by its owner.
    const resubmit = `${go}resubmit/`
    await expectStatus(send('POST', resubmit, { token: alice }), 409)
    await expectStatus(send('POST', resubmit), 401)
    await expectStatus(send('PATCH', go, { token: alice, json: { subtitle: 'Stones, and tea' } }), 200)
    await expectStatus(
      send('PATCH', go, { token: ADMIN_TOKEN, json: { approved: false, approved_comment: 'No.' } }),
      200,
    )
    await expectStatus(send('POST', resubmit, { token: bob }), 403)
    await expectStatus(send('POST', `${resubmit}?fields=approved`, { token: alice }), 200)
    await expectStatus(send('PATCH', go, { token: ADMIN_TOKEN, json: { approved: true } }), 200)

    // Members: added without a role (a member), a role changed, listed, removed; the last owner stays.
    const members = `${go}members/`
    await expectStatus(send('POST', members, { token: alice, json: { username: 'bob' } }), 201)
    await expectStatus(send('POST', members, { token: alice, json: { username: 'bob', role: 'officer' } }), 200)
    await expectStatus(send('POST', members, { token: alice, json: { username: 'nobody' } }), 400)
    await expectStatus(get(members, { token: bob }), 200)
    await expectStatus(get(`${CLUB}members/`, { token: bob }), 403)
    // A member's title and listing, the officers people can contact, the subscribers.
    const listing = { title: 'Treasurer', public: true }
    await expectStatus(send('PATCH', `${members}bob/`, { token: bob, json: listing }), 200)
    await expectStatus(send('PATCH', `${members}bob/`, { token: bob, json: { role: 'owner' } }), 403)
    await expectStatus(send('PATCH', `${members}bob/`, { token: alice, json: { title: 'x'.repeat(101) } }), 400)
    await expectStatus(send('PATCH', `${members}nobody/`, { token: alice, json: listing }), 404)
    await expectStatus(get(`${go}officers/`), 200)
    await expectStatus(get('/api/clubs/no-such-club/officers/'), 404)
    await expectStatus(send('POST', '/api/subscriptions/', { token: bob, json: { club: 'penn-chess-society' } }), 201)
    await expectStatus(get(`${CLUB}subscribers/`, { token: ADMIN_TOKEN }), 200)
    await expectStatus(get(`${CLUB}subscribers/?format=csv`, { token: ADMIN_TOKEN }), 200)
    await expectStatus(get(`${CLUB}subscribers/`, { token: bob }), 403)
    await expectStatus(get(`${CLUB}subscribers/`), 401)
    // The students interested (entries come from the club page's form, a page of the site, not the API).
    const form = await fetch(`${base}/clubs/penn-chess-society/interest`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
      body: new URLSearchParams({ name: 'Ada', email: 'ada@example.edu', consent: 'true' }),
    })
    expect(form.status).toBe(303)
    const interested = await get(`${CLUB}interested/`, { token: ADMIN_TOKEN })
    expect(interested.status).toBe(200)
    await expectStatus(get(`${CLUB}interested/?format=csv`, { token: ADMIN_TOKEN }), 200)
    await expectStatus(get(`${CLUB}interested/`, { token: bob }), 403)
    await expectStatus(get(`${CLUB}interested/`), 401)
    await expectStatus(get('/api/clubs/no-such-club/interested/', { token: ADMIN_TOKEN }), 404)
    const entry = `${CLUB}interested/${interested.json()[0].id}/`
    await expectStatus(send('DELETE', entry, { token: bob }), 403)
    await expectStatus(send('DELETE', entry), 401)
    await expectStatus(send('DELETE', entry, { token: ADMIN_TOKEN }), 204)
    await expectStatus(send('DELETE', entry, { token: ADMIN_TOKEN }), 404)
    await expectStatus(send('POST', entry, { token: ADMIN_TOKEN }), 405)
    await expectStatus(send('DELETE', '/api/subscriptions/penn-chess-society/', { token: bob }), 204)
    await expectStatus(send('DELETE', `${members}bob/`, { token: alice }), 204)
    await expectStatus(send('DELETE', `${members}alice/`, { token: alice }), 400)
    await expectStatus(send('DELETE', `${members}bob/`, { token: alice }), 404)

    // Join requests: asked with no body at all, listed, accepted; asked again, withdrawn.
    const requests = `${go}requests/`
    await expectStatus(send('POST', requests, { token: bob }), 201)
    await expectStatus(send('POST', requests, { token: bob, json: {} }), 400)
    await expectStatus(get(requests, { token: alice }), 200)
    await expectStatus(get(requests, { token: bob }), 403)
    await expectStatus(get('/api/users/me/requests/', { token: bob }), 200)
    await expectStatus(send('POST', `${requests}bob/accept/`, { token: alice }), 201)
    await expectStatus(send('POST', `${requests}bob/accept/`, { token: alice }), 404)
    await expectStatus(send('DELETE', `${members}bob/`, { token: bob }), 204)
    await expectStatus(send('POST', requests, { token: bob, json: { message: 'Again, please.' } }), 201)
    await expectStatus(send('DELETE', `${requests}bob/`, { token: bob }), 204)
    await expectStatus(send('DELETE', `${requests}bob/`, { token: bob }), 404)

    // Invite links (docs/reference.md §23): made, listed, refused out of bounds, ended.
    const invites = `${go}invites/`
    const invite = await send('POST', invites, { token: alice, json: { expires_in_hours: 24, max_uses: 2 } })
    expect(invite.status).toBe(201)
    await expectStatus(send('POST', invites, { token: alice, json: { expires_in_hours: 169 } }), 400)
    await expectStatus(send('POST', invites, { token: bob, json: { expires_in_hours: 1 } }), 403)
    await expectStatus(send('POST', invites, { json: { expires_in_hours: 1 } }), 401)
    await expectStatus(get(invites, { token: alice }), 200)
    await expectStatus(get(invites, { token: bob }), 403)
    await expectStatus(send('DELETE', `${invites}${invite.json().id}/`, { token: alice }), 204)
    await expectStatus(send('DELETE', `${invites}${invite.json().id}/`, { token: alice }), 404)

    // Favorites and subscriptions.
    for (const kind of ['favorites', 'subscriptions']) {
      await expectStatus(send('POST', `/api/${kind}/`, { token: bob, json: { club: 'penn-chess-society' } }), 201)
      await expectStatus(send('POST', `/api/${kind}/`, { token: bob, json: { club: 'penn-chess-society' } }), 400)
      await expectStatus(get(`/api/${kind}/`, { token: bob }), 200)
      await expectStatus(get(`/api/${kind}/`), 401)
      await expectStatus(send('DELETE', `/api/${kind}/penn-chess-society/`, { token: bob }), 204)
      await expectStatus(send('DELETE', `/api/${kind}/penn-chess-society/`, { token: bob }), 404)
    }

    // Logos: set one (any Content-Type), read it and its thumbnail (and a 304), refuse a bad one, take it away.
    const logo = `${CLUB}logo/`
    const image = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#c33' } })
      .png()
      .toBuffer()
    const withLogo = await send('PUT', logo, { token: ADMIN_TOKEN, body: image, type: 'image/png' })
    expect(withLogo.status).toBe(200)
    const logoPath = new URL(withLogo.json().image_url).pathname
    const logoAnswer = await get(logoPath)
    expect(logoAnswer.status).toBe(200)
    await expectStatus(get(logoPath, { headers: { 'if-none-match': logoAnswer.headers.get('etag')! } }), 304)
    await expectStatus(get(`${logoPath}?size=64`), 200)
    await expectStatus(get(`${logoPath}?size=7`), 400)
    await expectStatus(get(`/api/logos/${'0'.repeat(64)}.webp`), 404)
    await expectStatus(send('PUT', logo, { token: ADMIN_TOKEN, body: 'not an image', type: 'text/plain' }), 400)
    await expectStatus(send('PUT', logo, { body: image, type: 'application/octet-stream' }), 401)
    await expectStatus(send('PUT', logo, { token: bob, body: image, type: 'application/octet-stream' }), 403)
    await expectStatus(send('DELETE', logo, { token: bob }), 403)
    await expectStatus(send('DELETE', logo, { token: ADMIN_TOKEN }), 204)
    await expectStatus(send('DELETE', '/api/clubs/no-such-club/logo/', { token: ADMIN_TOKEN }), 404)

    // Tags.
    await expectStatus(get('/api/tags/'), 200)
    await expectStatus(get('/api/tags/', { token: 'not-a-token' }), 401)
    await expectStatus(get('/api/tags/7/'), 200)
    await expectStatus(get('/api/tags/999/'), 404)
    const tag = await send('POST', '/api/tags/', { token: ADMIN_TOKEN, json: { name: 'Board Games' } })
    expect(tag.status).toBe(201)
    const tagPath = new URL(tag.headers.get('location')!).pathname
    await expectStatus(send('POST', '/api/tags/', { token: bob, json: { name: 'Mine' } }), 403)
    await expectStatus(send('POST', '/api/tags/', { token: ADMIN_TOKEN, json: { name: 'board games' } }), 400)
    await expectStatus(send('PATCH', tagPath, { token: ADMIN_TOKEN, json: { name: 'Tabletop' } }), 200)
    await expectStatus(send('PATCH', tagPath, { token: ADMIN_TOKEN, json: { id: 1, name: 'Tabletop' } }), 400)
    await expectStatus(send('DELETE', tagPath, { token: ADMIN_TOKEN }), 204)
    await expectStatus(send('DELETE', tagPath, { token: ADMIN_TOKEN }), 404)
    // In the browsable view a 204 is shown by a page, which is a 200.
    await expectStatus(send('DELETE', '/api/tags/20/?format=api', { token: ADMIN_TOKEN }), 200)
    await expectStatus(send('POST', '/api/tags/', { token: ADMIN_TOKEN, json: { name: 'Chess' }, headers: html }), 201)

    // Users and tokens.
    await expectStatus(get('/api/users/', { token: ADMIN_TOKEN }), 200)
    await expectStatus(get('/api/users/', { token: bob }), 403)
    await expectStatus(get('/api/users/me/', { token: bob }), 200)
    await expectStatus(get('/api/users/me/'), 401)
    await expectStatus(send('POST', '/api/users/', { token: ADMIN_TOKEN, json: { username: 'Not Valid' } }), 400)
    await expectStatus(send('POST', '/api/users/alice/token/', { token: bob }), 403)
    await expectStatus(send('POST', '/api/users/nobody/token/', { token: ADMIN_TOKEN }), 404)
    await expectStatus(send('POST', '/api/users/admin/token/', { token: ADMIN_TOKEN }), 400)
    const carol = (
      await (await send('POST', '/api/users/', { token: ADMIN_TOKEN, json: { username: 'carol' } })).json()
    ).token as string
    const reissued = await (await send('POST', '/api/users/carol/token/', { token: carol })).json()
    await expectStatus(send('DELETE', '/api/users/carol/token/', { token: reissued.token }), 204)
    await expectStatus(send('DELETE', '/api/users/carol/sessions/', { token: ADMIN_TOKEN }), 204)
    await expectStatus(send('PATCH', '/api/users/bob/', { token: ADMIN_TOKEN, json: { is_active: false } }), 200)
    await expectStatus(get('/api/users/me/', { token: bob }), 403)
    await expectStatus(send('PATCH', '/api/users/bob/', { token: ADMIN_TOKEN, json: { is_active: true } }), 200)
    await expectStatus(send('PATCH', '/api/users/admin/', { token: ADMIN_TOKEN, json: { is_admin: false } }), 400)
    await expectStatus(send('PATCH', '/api/users/nobody/', { token: ADMIN_TOKEN, json: { is_admin: true } }), 404)
    await expectStatus(send('PATCH', '/api/users/bob/', { token: bob, json: { is_admin: true } }), 403)

    // Webhooks (docs/reference.md §18), admins only: a host that never resolves, so nothing is ever sent.
    const hook = await send('POST', '/api/webhooks/', {
      token: ADMIN_TOKEN,
      json: { url: 'https://hooks.invalid/clubs', events: ['club.removed'] },
    })
    expect(hook.status).toBe(201)
    const hookUrl = `/api/webhooks/${hook.json().id}/`
    await expectStatus(send('POST', '/api/webhooks/', { token: ADMIN_TOKEN, json: { url: 'http://10.0.0.1/' } }), 400)
    await expectStatus(send('POST', '/api/webhooks/', { token: bob, json: { url: 'https://hooks.invalid/' } }), 403)
    await expectStatus(send('POST', '/api/webhooks/', { json: { url: 'https://hooks.invalid/' } }), 401)
    await expectStatus(get('/api/webhooks/', { token: ADMIN_TOKEN }), 200)
    await expectStatus(get('/api/webhooks/', { token: bob }), 403)
    await expectStatus(get(hookUrl, { token: ADMIN_TOKEN }), 200)
    await expectStatus(get('/api/webhooks/999/', { token: ADMIN_TOKEN }), 404)
    await expectStatus(get(`${hookUrl}deliveries/`, { token: ADMIN_TOKEN }), 200)
    await expectStatus(get('/api/webhooks/999/deliveries/', { token: ADMIN_TOKEN }), 404)
    await expectStatus(send('DELETE', hookUrl, { token: ADMIN_TOKEN }), 204)
    await expectStatus(send('DELETE', hookUrl, { token: ADMIN_TOKEN }), 404)

    // Calendars (docs/reference.md §21): a club's, the directory's, and a user's at its secret address.
    const meeting = { day: 'monday', start: '18:00', end: '20:00', location: 'Room 1' }
    await expectStatus(send('PATCH', CLUB, { token: ADMIN_TOKEN, json: { meetings: [meeting] } }), 200)
    const ics = await get(`${CLUB}calendar.ics`)
    expect(ics.status).toBe(200)
    await expectStatus(get(`${CLUB}calendar.ics`, { headers: { 'if-none-match': ics.headers.get('etag')! } }), 304)
    await expectStatus(get(`${CLUB}calendar.ics`, { token: 'not-a-token' }), 401)
    await expectStatus(get('/api/clubs/no-such-club/calendar.ics'), 404)
    await expectStatus(get('/api/calendar.ics?tags=Games&code=penn-chess-society'), 200)
    await expectStatus(get('/api/calendar.ics?format=api'), 404)
    await expectStatus(get('/api/users/me/calendar-url/'), 401)
    const address = await get('/api/users/me/calendar-url/', { token: bob })
    expect(address.status).toBe(200)
    const secret = new URL(address.json().url).pathname
    await expectStatus(get(secret), 200)
    await expectStatus(get('/api/users/me/calendar-url/', { token: bob }), 200)
    await expectStatus(send('POST', '/api/users/me/calendar-url/', { token: bob }), 201)
    await expectStatus(get(secret), 404)

    // A club's QR code for posters (docs/reference.md §23): the SVG, its 304, a wrong token, an unknown club.
    const qr = await get(`${CLUB}qr.svg`)
    expect([qr.status, qr.headers.get('content-type')]).toEqual([200, 'image/svg+xml'])
    await expectStatus(get(`${CLUB}qr.svg`, { headers: { 'if-none-match': qr.headers.get('etag')! } }), 304)
    await expectStatus(get(`${CLUB}qr.svg`, { token: 'not-a-token' }), 401)
    await expectStatus(get('/api/clubs/no-such-club/qr.svg'), 404)
    await expectStatus(get(`${CLUB}qr.svg?format=json`), 404)

    // Clubs that fit (docs/reference.md §24): by time on the list, and a timetable; its refusals.
    await expectStatus(get('/api/clubs/?meets_on=tue,sat&free=tue+18:00-22:00,sat+09:00-12:00'), 200)
    await expectStatus(get('/api/clubs/?free=tue+22:00-18:00'), 400)
    await expectStatus(get('/api/clubs/?meets_on=someday'), 400)
    const timetable = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//Test//Timetable//EN',
      'BEGIN:VEVENT',
      'UID:class@example.edu',
      'DTSTART:20261103T180000Z',
      'DTEND:20261103T193000Z',
      'RRULE:FREQ=WEEKLY;BYDAY=TU,TH',
      'END:VEVENT',
      'END:VCALENDAR',
      '',
    ].join('\r\n')
    const fitting = await send('POST', '/api/clubs/fitting/?tags=Games', { body: timetable, type: 'text/calendar' })
    expect(fitting.status).toBe(200)
    expect(fitting.json().length).toBeGreaterThan(0)
    await expectStatus(send('POST', '/api/clubs/fitting/', { body: 'not a calendar', type: 'text/calendar' }), 400)
    await expectStatus(send('POST', '/api/clubs/fitting/', { json: {} }), 415)
    await expectStatus(
      send('POST', '/api/clubs/fitting/', { body: timetable, type: 'text/calendar', token: 'not-a-token' }),
      401,
    )

    // The change log (docs/reference.md §18): a page, its 304, bad numbers, a since gone; the stream ended by a reset.
    const changes = await get('/api/changes/?since=0&limit=5')
    expect(changes.status).toBe(200)
    await expectStatus(
      get('/api/changes/?since=0&limit=5', { headers: { 'if-none-match': changes.headers.get('etag')! } }),
      304,
    )
    await expectStatus(get('/api/changes/?limit=0'), 400)
    await expectStatus(get('/api/changes/?since=99999999'), 410)
    await expectStatus(get('/api/changes/?format=api'), 200)
    await expectStatus(get('/api/changes/stream?since=99999999'), 200)
    await expectStatus(get('/api/changes/stream?since=x'), 400)
    await expectStatus(get('/api/changes/stream', { token: 'not-a-token' }), 401)

    // Imports: a dry run, CSV, a bad row, a file that is neither.
    const rows = [{ code: 'go-club', accepting_members: false, favorite_count: 3 }]
    await expectStatus(send('POST', '/api/imports/?dry_run=true', { token: ADMIN_TOKEN, json: rows }), 200)
    const csv = 'code,name,size\r\nchess-960,Chess 960,2\r\n'
    await expectStatus(send('POST', '/api/imports/', { token: ADMIN_TOKEN, body: csv, type: 'text/csv' }), 201)
    await expectStatus(send('POST', '/api/imports/', { token: ADMIN_TOKEN, json: [{ code: 'go-club', size: 9 }] }), 400)
    await expectStatus(send('POST', '/api/imports/?dry_run=yes', { token: ADMIN_TOKEN, json: rows }), 400)
    await expectStatus(send('POST', '/api/imports/', { token: ADMIN_TOKEN, body: 'x', type: 'text/plain' }), 415)
    await expectStatus(send('POST', '/api/imports/', { token: alice, json: rows }), 403)

    // Methods a path does not serve; the club's deletion.
    await expectStatus(send('DELETE', '/api/users/me/', { token: bob }), 405)
    await expectStatus(send('PUT', '/api/clubs/', { token: bob, json: {} }), 405)
    await expectStatus(send('DELETE', go, { token: bob }), 403)
    await expectStatus(send('DELETE', go, { token: alice }), 204)
    await expectStatus(get(go, { token: alice }), 404)

    // Re-registration rounds (docs/reference.md §23): the office opens one, a club confirms, the office closes it.
    const rounds = '/api/registration-rounds/'
    await expectStatus(get(`${rounds}current/`, { token: ADMIN_TOKEN }), 404)
    await expectStatus(get(`${rounds}current/clubs/`, { token: ADMIN_TOKEN }), 404)
    await expectStatus(send('POST', `${rounds}current/close/`, { token: ADMIN_TOKEN }), 404)
    await expectStatus(send('POST', `${CLUB}registration/`, { token: ADMIN_TOKEN }), 409)
    await expectStatus(send('POST', rounds, { token: ADMIN_TOKEN, json: { deadline: '2020-02-30' } }), 400)
    await expectStatus(send('POST', rounds, { token: bob, json: { deadline: '2099-01-01' } }), 403)
    await expectStatus(send('POST', rounds, { json: { deadline: '2099-01-01' } }), 401)
    const opened = { deadline: '2099-01-01', message: 'Check your officers, then confirm.' }
    await expectStatus(send('POST', rounds, { token: ADMIN_TOKEN, json: opened }), 201)
    await expectStatus(send('POST', rounds, { token: ADMIN_TOKEN, json: opened }), 409)
    await expectStatus(get(`${rounds}current/`, { token: ADMIN_TOKEN }), 200)
    await expectStatus(get(`${rounds}current/`, { token: bob }), 403)
    await expectStatus(get(`${rounds}current/`), 401)
    await expectStatus(send('POST', `${CLUB}registration/`), 401)
    await expectStatus(send('POST', `${CLUB}registration/`, { token: bob }), 403)
    await expectStatus(send('POST', '/api/clubs/no-such-club/registration/', { token: ADMIN_TOKEN }), 404)
    await expectStatus(send('POST', `${CLUB}registration/?fields=code,last_confirmed_on`, { token: ADMIN_TOKEN }), 200)
    await expectStatus(send('POST', `${CLUB}registration/`, { token: ADMIN_TOKEN }), 200)
    await expectStatus(get(`${rounds}current/clubs/`, { token: ADMIN_TOKEN }), 200)
    await expectStatus(get(`${rounds}current/clubs/?format=csv`, { token: ADMIN_TOKEN }), 200)
    await expectStatus(get(`${rounds}current/clubs/`, { token: bob }), 403)
    await expectStatus(send('POST', `${rounds}current/close/`, { token: bob }), 403)
    await expectStatus(send('POST', `${rounds}current/close/`, { token: ADMIN_TOKEN }), 200)

    // HEAD and OPTIONS on every path that documents them, at its parameters' examples.
    for (const [template, item] of Object.entries(traffic.doc.paths) as [string, any][]) {
      const path = template.replace(/\{(\w+)\}/g, (_, name) => {
        const parameter = item.get?.parameters?.find((p: { name: string }) => p.name === name) ?? {}
        return encodeURIComponent(String(parameter.example ?? 'x'))
      })
      if (item.head) await send('HEAD', path, { token: ADMIN_TOKEN })
      if (item.options) await expectStatus(send('OPTIONS', path), 200)
    }

    // A read-only directory refuses writes; a rate limit answers 429.
    const readOnly = await serveApp({ readOnly: true })
    await expectStatus(send('POST', '/api/clubs/', { token: ADMIN_TOKEN, json: { name: 'X' } }, readOnly), 405)
    await expectStatus(send('DELETE', '/api/tags/1/', { token: ADMIN_TOKEN }, readOnly), 405)
    const limited = await serveApp({ rateLimit: 1 })
    await expectStatus(send('GET', '/api/tags/', {}, limited), 200)
    await expectStatus(send('GET', '/api/clubs/', {}, limited), 429)
    await expectStatus(send('GET', '/api/tags/', { headers: html }, limited), 429)

    expect(problems).toEqual([])
    // Every documented operation took part.
    const exercised = new Set([...traffic.seen].map((line) => line.split(' ').slice(0, 2).join(' ')))
    expect(traffic.operations().filter((operation) => !exercised.has(operation))).toEqual([])
  }, 30_000)
})

describe('the traffic check fails where a validating proxy would', () => {
  let traffic: OpenApiTraffic
  beforeAll(async () => {
    const { req } = await makeApp()
    traffic = new OpenApiTraffic(await (await req('/swagger/json')).json())
  })

  const ALLOW = { allow: 'GET, POST', 'x-request-id': 'r1' }
  const JSON_TYPE = { 'content-type': 'application/json' }
  const exchange = (
    method: string,
    path: string,
    status: number,
    headers: Record<string, string>,
    body: unknown,
    request: unknown = null,
  ): Seen => {
    const text = body === null ? '' : typeof body === 'string' ? body : JSON.stringify(body)
    return {
      method,
      url: new URL(`http://localhost${path}`),
      requestType: request === null ? null : 'application/json',
      requestBody: request === null ? null : JSON.stringify(request),
      response: new Response(text || null, { status, headers }),
      body: new TextEncoder().encode(text),
    }
  }
  const tag = { id: 1, name: 'Academic', clubs: 3 }

  const rows: [string, Seen, string][] = [
    ['a tag list as the document says', exchange('GET', '/api/tags/', 200, { ...ALLOW, ...JSON_TYPE }, [tag]), ''],
    [
      'an undeclared status',
      exchange('GET', '/api/tags/', 418, { ...ALLOW, ...JSON_TYPE }, { detail: 'teapot' }),
      'status 418 is not declared',
    ],
    [
      'a body off its schema',
      exchange('GET', '/api/tags/', 200, { ...ALLOW, ...JSON_TYPE }, [{ ...tag, clubs: '3' }]),
      'body data/0/clubs must be integer',
    ],
    [
      'a club whose code is not a string',
      exchange('GET', '/api/clubs/penn-chess-society/', 200, { ...ALLOW, ...JSON_TYPE }, { code: 7 }),
      'body data',
    ],
    [
      'an undeclared content type',
      exchange('GET', '/api/tags/', 200, { ...ALLOW, 'content-type': 'text/plain' }, 'Academic'),
      'content type "text/plain" is not declared',
    ],
    [
      'an undeclared header',
      exchange('GET', '/api/tags/', 200, { ...ALLOW, ...JSON_TYPE, location: 'http://localhost/x' }, [tag]),
      'header Location is sent but not declared',
    ],
    [
      'a required header missing',
      exchange('GET', '/api/users/me/', 401, { ...ALLOW, ...JSON_TYPE }, { detail: 'Invalid token.' }),
      'header WWW-Authenticate is required but not sent',
    ],
    [
      'a header off its schema',
      exchange('GET', '/api/clubs/', 200, { ...ALLOW, ...JSON_TYPE, 'x-total-count': 'many' }, []),
      'header X-Total-Count',
    ],
    [
      'a query parameter accepted that the document refuses',
      exchange('GET', '/api/clubs/?accepting_members=1', 200, { ...ALLOW, ...JSON_TYPE, 'x-total-count': '0' }, []),
      'accepted query parameter accepting_members="1"',
    ],
    [
      'an undeclared query parameter accepted',
      exchange('GET', '/api/tags/?colour=red', 200, { ...ALLOW, ...JSON_TYPE }, [tag]),
      'accepted the undeclared query parameter colour',
    ],
    [
      'a body accepted that the document refuses',
      exchange(
        'POST',
        '/api/clubs/penn-chess-society/members/',
        201,
        { ...ALLOW, ...JSON_TYPE },
        { username: 'bob', role: 'member' },
        { username: 'bob', role: 'boss' },
      ),
      'accepted a request body the document refuses',
    ],
    [
      'an undocumented method with the wrong Allow',
      exchange('DELETE', '/api/tags/', 405, { allow: 'GET', ...JSON_TYPE }, { detail: 'Method "DELETE" not allowed.' }),
      'Allow is "GET", the document says GET,POST',
    ],
    [
      'an undocumented path',
      exchange('GET', '/api/nothing/', 404, JSON_TYPE, { detail: 'Not found.' }),
      'not documented',
    ],
  ]

  it.each(rows)('%s', (_, seen, expected) => {
    const found = traffic.problems(seen).join('\n')
    if (expected === '') expect(found).toBe('')
    else expect(found).toContain(expected)
  })
})
