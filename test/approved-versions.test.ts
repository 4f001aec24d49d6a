import { describe, expect, it } from 'bun:test'
import { copyFileSync, existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN_TOKEN, makeApp, NOW, readJson, tempDir } from '../harness/app'
import { blockWrites } from '../harness/write-fault'
import { directoryOnDisk } from '../harness/on-disk'
import { users } from '../harness/users'

// docs/reference.md §11: a club approved once keeps its approved version public while a change to its
// reviewed fields awaits review; the history records who did what.

type Json = Record<string, any>
const NOW_ISO = NOW.toISOString()

/** An approved club run by `owner`, with an `officer`, and a `user` who may only read. */
async function world(options: Parameters<typeof makeApp>[0] = {}) {
  const app = await makeApp(options)
  const tokens = await users(app, 'owner', 'officer', 'user')
  const as =
    (who: keyof typeof tokens | 'admin' | 'anonymous') =>
    (path: string, init: { method?: string; json?: unknown } = {}) =>
      app.req(path, { ...init, token: who === 'admin' ? ADMIN_TOKEN : who === 'anonymous' ? null : tokens[who] })
  const created = await as('owner')('/api/clubs/', {
    method: 'POST',
    json: {
      name: 'Lantern Society',
      subtitle: 'Paper lanterns by the river',
      description: 'We fold lanterns.',
      image_url: 'https://img.example/lantern.png',
      tags: [{ name: 'Arts' }],
    },
  })
  expect(created.status).toBe(201)
  const code = (await readJson(created)).code as string
  const url = `/api/clubs/${code}/`
  expect(
    (await as('owner')(`${url}members/`, { method: 'POST', json: { username: 'officer', role: 'officer' } })).status,
  ).toBe(201)
  expect(
    (await as('admin')(url, { method: 'PATCH', json: { approved: true, approved_comment: 'Welcome!' } })).status,
  ).toBe(200)
  const json = async (who: Parameters<typeof as>[0], path: string, status = 200) => {
    const res = await as(who)(path)
    expect(res.status).toBe(status)
    return readJson(res)
  }
  const patch = async (who: Parameters<typeof as>[0], body: Json, status = 200) => {
    const res = await as(who)(url, { method: 'PATCH', json: body })
    expect(res.status).toBe(status)
    return readJson(res)
  }
  const publicItem = async (query = '') =>
    ((await json('anonymous', `/api/clubs/${query}`)) as Json[]).find((club) => club.code === code)
  return { app, as, code, url, json, patch, publicItem }
}

describe('a change awaiting review never takes the club off the directory', () => {
  it('shows the public the approved version in the list and on retrieve, with approved true', async () => {
    const w = await world()
    const pending = await w.patch('owner', { subtitle: 'Now with fireworks' })
    expect([pending.approved, pending.approved_on, pending.subtitle]).toEqual([false, null, 'Now with fireworks'])
    for (const who of ['anonymous', 'user'] as const) {
      const shown = await w.json(who, w.url)
      expect([shown.approved, shown.subtitle, shown.approved_by, shown.approved_comment]).toEqual([
        true,
        'Paper lanterns by the river',
        'admin',
        'Welcome!',
      ])
      expect(shown.approved_version).toBeNull()
    }
    expect((await w.publicItem())?.subtitle).toBe('Paper lanterns by the river')
  })

  it('shows owners, officers and admins the current record, with the approved version to compare', async () => {
    const w = await world()
    await w.patch('officer', { name: 'Lantern & Kite Society', description: 'Lanterns and kites.' })
    for (const who of ['owner', 'officer', 'admin'] as const) {
      const club = await w.json(who, w.url)
      expect([club.approved, club.name]).toEqual([false, 'Lantern & Kite Society'])
      expect(club.approved_version).toEqual({
        name: 'Lantern Society',
        subtitle: 'Paper lanterns by the river',
        description: 'We fold lanterns.',
        image_url: 'https://img.example/lantern.png',
        approved_by: 'admin',
        approved_on: NOW_ISO,
        approved_comment: 'Welcome!',
      })
    }
    const queue = (await w.json('admin', '/api/clubs/?approved=false')) as Json[]
    expect(queue.map((club) => club.code)).toContain(w.code)
  })

  it('finds the club by its approved values in public search, filters and ordering', async () => {
    const w = await world()
    await w.patch('owner', { name: 'Zeppelin Lanterns', subtitle: 'Airships now' })
    expect(await w.publicItem('?search=paper%20lanterns')).toBeDefined()
    expect(await w.publicItem('?search=zeppelin')).toBeUndefined()
    expect(await w.publicItem('?search=airships')).toBeUndefined()
    expect(await w.publicItem('?tags=Arts')).toBeDefined()
    const byName = ((await w.json('anonymous', '/api/clubs/?ordering=name')) as Json[]).map((club) => club.name)
    expect(byName).toContain('Lantern Society')
    expect(byName).not.toContain('Zeppelin Lanterns')
    expect(byName).toEqual([...byName].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' })))
    // The owner, who may see the pending record, finds it by its new name.
    const own = (await w.json('owner', '/api/clubs/?search=zeppelin')) as Json[]
    expect(own.map((club) => club.code)).toEqual([w.code])
  })

  it('keeps fields outside review live at once, for everyone', async () => {
    const w = await world()
    await w.patch('owner', { subtitle: 'Edited', accepting_members: true, size: 3 })
    const shown = await w.json('anonymous', w.url)
    expect([shown.subtitle, shown.accepting_members, shown.size]).toEqual(['Paper lanterns by the river', true, 3])
  })

  it('keeps the club in favorites, subscriptions and tag counts while it is under review', async () => {
    const w = await world()
    expect((await w.as('user')('/api/favorites/', { method: 'POST', json: { club: w.code } })).status).toBe(201)
    expect((await w.as('user')('/api/subscriptions/', { method: 'POST', json: { club: w.code } })).status).toBe(201)
    const arts = async () => ((await w.json('anonymous', '/api/tags/')) as Json[]).find((t) => t.name === 'Arts')?.clubs
    const before = await arts()
    await w.patch('owner', { name: 'Renamed Lanterns' })
    for (const path of ['/api/favorites/', '/api/subscriptions/']) {
      const saved = (await w.json('user', path)) as Json[]
      expect(saved.map(({ club }) => [club.code, club.name, club.approved])).toEqual([
        [w.code, 'Lantern Society', true],
      ])
    }
    expect(await arts()).toBe(before)
    // A user can still favorite it, and is told its public values.
    expect((await w.as('user')('/api/favorites/', { method: 'DELETE' })).status).toBe(405)
    expect((await w.as('user')(`/api/favorites/${w.code}/`, { method: 'DELETE' })).status).toBe(204)
    const again = await w.as('user')('/api/favorites/', { method: 'POST', json: { club: w.code } })
    expect(again.status).toBe(201)
    expect((await readJson(again)).club.name).toBe('Lantern Society')
    expect((await w.json('anonymous', w.url)).favorite_count).toBe(1)
  })

  it('keeps the approved version public when the admin rejects the change', async () => {
    const w = await world()
    await w.patch('owner', { subtitle: 'Not this' })
    const rejected = await w.patch('admin', { approved: false, approved_comment: 'Keep the old one.' })
    expect([rejected.approved, rejected.approved_on, rejected.approved_comment]).toEqual([
      false,
      NOW_ISO,
      'Keep the old one.',
    ])
    const shown = await w.json('anonymous', w.url)
    expect([shown.approved, shown.subtitle, shown.approved_comment]).toEqual([
      true,
      'Paper lanterns by the river',
      'Welcome!',
    ])
  })

  it('makes the current values public when the admin approves the change', async () => {
    const w = await world()
    await w.patch('owner', { subtitle: 'Fireworks too' })
    await w.patch('admin', { approved: true, approved_comment: 'Fine.' })
    const shown = await w.json('anonymous', w.url)
    expect([shown.approved, shown.subtitle, shown.approved_comment]).toEqual([true, 'Fireworks too', 'Fine.'])
    expect((await w.json('owner', w.url)).approved_version).toBeNull()
  })

  it('approves an admin’s own change to an approved club as it is made', async () => {
    const w = await world()
    const changed = await w.patch('admin', { subtitle: 'Edited by the office' })
    expect([changed.approved, changed.approved_version]).toEqual([true, null])
    expect((await w.json('anonymous', w.url)).subtitle).toBe('Edited by the office')
    await w.patch('owner', { subtitle: 'Then by the owner' })
    expect((await w.json('anonymous', w.url)).subtitle).toBe('Edited by the office')
  })

  it('keeps a club never approved hidden, and an inactive one too', async () => {
    const w = await world()
    const draft = await w.as('user')('/api/clubs/', { method: 'POST', json: { name: 'Draft Club' } })
    const code = (await readJson(draft)).code
    await w.as('user')(`/api/clubs/${code}/`, { method: 'PATCH', json: { subtitle: 'Still a draft' } })
    expect((await w.as('anonymous')(`/api/clubs/${code}/`)).status).toBe(404)
    await w.patch('owner', { subtitle: 'Edited', active: false })
    expect((await w.as('anonymous')(w.url)).status).toBe(404)
    expect(await w.publicItem()).toBeUndefined()
  })

  it('reserves the name held by the approved version, and the new one, to the club', async () => {
    const w = await world()
    await w.patch('owner', { name: 'New Lantern Name' })
    for (const name of ['Lantern Society', 'lantern society', 'New Lantern Name']) {
      const res = await w.as('user')('/api/clubs/', { method: 'POST', json: { name } })
      expect(res.status).toBe(400)
      expect(await readJson(res)).toEqual({ name: ['A club with this name already exists.'] })
    }
    // The club itself may go back to its approved name.
    expect((await w.patch('owner', { name: 'Lantern Society' })).name).toBe('Lantern Society')
  })
})

describe('an admin’s revocation sticks (approved: false with nothing awaiting review)', () => {
  it('takes the club off everything the public sees, records revoked, and keeps it visible to its officers', async () => {
    const w = await world()
    const { fan } = await users(w.app, 'fan')
    const artsCount = async () =>
      ((await w.json('anonymous', '/api/tags/')) as Json[]).find((tag) => tag.name === 'Arts')!.clubs as number
    const artsBefore = await artsCount()
    expect((await w.app.req('/api/favorites/', { method: 'POST', token: fan, json: { club: w.code } })).status).toBe(
      201,
    )
    const revoked = await w.patch('admin', { approved: false, approved_comment: 'Not a registered club.' })
    expect([revoked.approved, revoked.approved_version, revoked.approved_by]).toEqual([false, null, 'admin'])

    expect((await w.as('anonymous')(w.url)).status).toBe(404)
    expect((await w.as('user')(w.url)).status).toBe(404)
    expect(await w.publicItem()).toBeUndefined()
    expect(await w.publicItem('?search=lantern')).toBeUndefined()
    expect(await artsCount()).toBe(artsBefore - 1)
    const favorites = await readJson(await w.app.req('/api/favorites/', { token: fan }))
    expect(favorites.map((f: Json) => f.club.code)).not.toContain(w.code)
    expect((await w.json('officer', w.url)).approved).toBe(false)

    const [latest] = (await w.json('owner', `${w.url}history/`)) as Json[]
    expect([latest!.event, latest!.by, latest!.comment]).toEqual(['revoked', 'admin', 'Not a registered club.'])
  })

  it('is not undone by any edit of an owner or officer, active toggled included', async () => {
    const w = await world()
    await w.patch('admin', { approved: false })
    await w.patch('owner', { active: false })
    await w.patch('owner', { active: true })
    await w.patch('officer', { subtitle: 'Please bring us back' })
    await w.patch('owner', { description: 'A new description', accepting_members: true })
    for (const body of [{ approved: true }, { approved_comment: 'I approve myself' }])
      expect((await w.as('owner')(w.url, { method: 'PATCH', json: body })).status).toBe(403)
    expect((await w.as('anonymous')(w.url)).status).toBe(404)
    expect(await w.publicItem()).toBeUndefined()
    expect((await w.json('owner', w.url)).approved).toBe(false)
    // Nothing awaits review: the office's queue does not list it as a new club either.
    const queue = (await w.json('admin', '/api/clubs/?approved=false')) as Json[]
    expect(queue.find((club) => club.code === w.code)?.approved).toBe(false)
  })

  it('keeps the club’s name reserved to it', async () => {
    const w = await world()
    await w.patch('admin', { approved: false })
    const res = await w.as('user')('/api/clubs/', { method: 'POST', json: { name: 'Lantern Society' } })
    expect([res.status, await readJson(res)]).toEqual([400, { name: ['A club with this name already exists.'] }])
  })

  it('revokes a club whose pending change was rejected: the approved version leaves the public too', async () => {
    const w = await world()
    await w.patch('owner', { subtitle: 'Not this' })
    await w.patch('admin', { approved: false, approved_comment: 'Keep the old one.' })
    expect((await w.as('anonymous')(w.url)).status).toBe(200)
    await w.patch('admin', { approved: false, approved_comment: 'Taken down.' })
    expect((await w.as('anonymous')(w.url)).status).toBe(404)
    const events = ((await w.json('admin', `${w.url}history/`)) as Json[]).map((e) => e.event)
    expect(events.slice(0, 2)).toEqual(['revoked', 'rejected'])
  })

  it('is undone by an admin’s approval alone, which makes the current values public', async () => {
    const w = await world()
    await w.patch('admin', { approved: false })
    await w.patch('owner', { subtitle: 'Changed while down' })
    const approved = await w.patch('admin', { approved: true, approved_comment: 'Back.' })
    expect(approved.approved).toBe(true)
    const shown = await w.json('anonymous', w.url)
    expect([shown.approved, shown.subtitle]).toEqual([true, 'Changed while down'])
    expect(((await w.json('admin', `${w.url}history/`)) as Json[])[0]!.event).toBe('approved')
  })
})

describe('GET /api/clubs/{code}/history/', () => {
  it('lists creation, approval, submission and rejection, newest first, and keeps archiving in the data file', async () => {
    const dataFile = join(tempDir(), 'db.json')
    const w = await world({ dataFile })
    await w.patch('officer', { subtitle: 'One', description: 'Two', size: 2 })
    await w.patch('admin', { approved: false, approved_comment: 'No.' })
    expect(await w.json('owner', `${w.url}history/`)).toEqual([
      { event: 'rejected', at: NOW_ISO, by: 'admin', comment: 'No.', fields: [] },
      { event: 'submitted', at: NOW_ISO, by: 'officer', comment: '', fields: ['subtitle', 'description'] },
      { event: 'approved', at: NOW_ISO, by: 'admin', comment: 'Welcome!', fields: [] },
      { event: 'created', at: NOW_ISO, by: 'owner', comment: '', fields: [] },
    ])
    expect((await w.as('owner')(w.url, { method: 'DELETE' })).status).toBe(204)
    // An archived club is gone from every endpoint (docs/reference.md §3.5), its history too; the file keeps it.
    expect((await w.as('admin')(`${w.url}history/`)).status).toBe(404)
    const stored = directoryOnDisk(dataFile).history.filter((e: Json) => e.club === w.code)
    expect(stored.at(-1)).toEqual({
      club: w.code,
      event: 'archived',
      at: NOW_ISO,
      by: 'owner',
      comment: '',
      fields: [],
    })
    expect(stored.length).toBe(5)
  })

  it('records nothing for a change outside the reviewed fields, nor for a refused write', async () => {
    const w = await world()
    await w.patch('owner', { size: 4 })
    await w.patch('owner', { subtitle: 'x', size: 9 }, 400)
    await w.patch('user', { subtitle: 'x' }, 403)
    const history = (await w.json('owner', `${w.url}history/`)) as Json[]
    expect(history.map((e) => e.event)).toEqual(['approved', 'created'])
  })

  it('leaves no event behind for a write the disk refused', async () => {
    const dataFile = join(tempDir(), 'db.json')
    const w = await world({ dataFile })
    const blocked = blockWrites(dataFile)
    await w.patch('owner', { subtitle: 'Never saved' }, 503)
    blocked.unblock()
    expect((await w.json('owner', w.url)).subtitle).toBe('Paper lanterns by the river')
    expect(((await w.json('owner', `${w.url}history/`)) as Json[]).map((e) => e.event)).toEqual(['approved', 'created'])
    await w.patch('owner', { size: 2 })
    const stored = directoryOnDisk(dataFile).history.filter((e: Json) => e.club === w.code)
    expect(stored.map((e: Json) => e.event)).toEqual(['created', 'approved'])
  })

  it('answers owners, officers and admins; 401 anonymous, 403 a user who sees the club, 404 one who may not', async () => {
    const w = await world()
    for (const who of ['owner', 'officer', 'admin'] as const)
      expect((await w.as(who)(`${w.url}history/`)).status).toBe(200)
    expect((await w.as('anonymous')(`${w.url}history/`)).status).toBe(401)
    expect((await w.as('user')(`${w.url}history/`)).status).toBe(403)
    const draft = await readJson(await w.as('owner')('/api/clubs/', { method: 'POST', json: { name: 'Hidden Draft' } }))
    expect((await w.as('user')(`/api/clubs/${draft.code}/history/`)).status).toBe(404)
    expect((await w.as('user')('/api/clubs/no-such-club/history/')).status).toBe(404)
    expect((await w.as('owner')(`${w.url}history/`, { method: 'POST' })).status).toBe(405)
  })

  it('keeps the history in the data file across a restart', async () => {
    const dataFile = join(tempDir(), 'db.json')
    const w = await world({ dataFile })
    await w.patch('owner', { subtitle: 'Persisted' })
    await w.app.store.close()
    const again = await makeApp({ dataFile })
    const res = await again.admin.get(`${w.url}history/`)
    expect((await readJson(res)).map((e: Json) => e.event)).toEqual(['submitted', 'approved', 'created'])
    expect((await readJson(await again.req(w.url))).subtitle).toBe('Paper lanterns by the river')
  })
})

describe('a data file written by the previous release (format version 1)', () => {
  const FIXTURES = join(import.meta.dir, 'fixtures')
  const tokens = JSON.parse(readFileSync(join(FIXTURES, 'data-v1.tokens.json'), 'utf8'))

  async function upgraded() {
    const dir = tempDir()
    const dataFile = join(dir, 'db.json')
    copyFileSync(join(FIXTURES, 'data-v1.json'), dataFile)
    const app = await makeApp({ dataFile, config: { adminToken: tokens.admin } })
    const as =
      (token: string) =>
      (path: string, init: { method?: string; json?: unknown } = {}) =>
        app.req(path, { ...init, token })
    return { app, dataFile, as }
  }

  it('loads with every club, user and token, membership, favorite, subscription and archived code', async () => {
    const { as } = await upgraded()
    for (const [name, admin] of [
      ['alice', false],
      ['bob', false],
      ['carol', true],
    ] as const) {
      const me = await as(tokens[name])('/api/users/me/')
      expect(await readJson(me)).toEqual({ username: name, is_admin: admin })
    }
    const clubs = (await readJson(await as(tokens.admin)('/api/clubs/'))) as Json[]
    expect(clubs.length).toBe(80 + 2)
    const members = await readJson(await as(tokens.alice)('/api/clubs/go-club/members/'))
    expect(members).toEqual([
      { username: 'alice', role: 'owner', title: '', public: false },
      { username: 'bob', role: 'officer', title: '', public: false },
    ])
    const favorites = (await readJson(await as(tokens.alice)('/api/favorites/'))) as Json[]
    expect(favorites.map(({ club }) => [club.code, club.is_favorite])).toEqual([['penn-chess-society', true]])
    const subscriptions = (await readJson(await as(tokens.alice)('/api/subscriptions/'))) as Json[]
    expect(subscriptions.map(({ club }) => club.code)).toEqual(['go-club'])
    expect((await readJson(await as(tokens.bob)('/api/clubs/go-club/'))).favorite_count).toBe(1)
    // The archived club stays gone, and its code reserved.
    expect((await as(tokens.admin)('/api/clubs/gone-gliders/')).status).toBe(404)
    const reuse = await as(tokens.bob)('/api/clubs/', { method: 'POST', json: { name: 'Other', code: 'gone-gliders' } })
    expect(reuse.status).toBe(400)
    // The pending club is still its officer's.
    expect((await as(tokens.bob)('/api/clubs/pending-puzzlers/')).status).toBe(200)
  })

  it('keeps its approved clubs public until an admin decides, with a history that starts at the upgrade', async () => {
    const { as } = await upgraded()
    const url = '/api/clubs/penn-chess-society/'
    expect(await readJson(await as(tokens.admin)(`${url}history/`))).toEqual([])
    const shown = await readJson(await as(tokens.bob)(url))
    expect([shown.approved, shown.name]).toEqual([true, 'Penn Chess Society'])
    const revoked = await as(tokens.admin)(url, {
      method: 'PATCH',
      json: { approved: false, approved_comment: 'Hmm.' },
    })
    expect((await readJson(revoked)).approved_version).toBeNull()
    expect((await as(tokens.bob)(url)).status).toBe(404)
    const history = (await readJson(await as(tokens.admin)(`${url}history/`))) as Json[]
    expect(history.map((e) => [e.event, e.by, e.comment])).toEqual([['revoked', 'admin', 'Hmm.']])
  })

  it('keeps the file as it was (.v1.bak) and writes the next snapshot whole in format version 2', async () => {
    const { as, dataFile } = await upgraded()
    const original = readFileSync(join(FIXTURES, 'data-v1.json'), 'utf8')
    expect(readFileSync(`${dataFile}.v1.bak`, 'utf8')).toBe(original)
    expect(readFileSync(dataFile, 'utf8')).toBe(original)
    expect((await as(tokens.alice)('/api/clubs/go-club/', { method: 'PATCH', json: { size: 2 } })).status).toBe(200)
    const written = directoryOnDisk(dataFile)
    expect(written.version).toBe(2)
    expect(written.clubs.every((club: Json) => 'approved_version' in club)).toBe(true)
    expect(readFileSync(`${dataFile}.v1.bak`, 'utf8')).toBe(original)
    expect(existsSync(`${dataFile}.bak`)).toBe(true)
  })
})

describe('the browsable view for a reviewer', () => {
  it('shows the approved and the pending values side by side on the club page', async () => {
    const w = await world()
    await w.patch('owner', { subtitle: 'Fireworks <b>too</b>' })
    const html = await (await w.as('admin')(`${w.url}?format=api`)).text()
    const table = html.slice(
      html.indexOf('<table class="review">'),
      html.indexOf('</table>', html.indexOf('<table class="review">')),
    )
    expect(table).toContain(
      '<tr class="changed"><th>subtitle</th><td>Paper lanterns by the river</td><td>Fireworks &lt;b&gt;too&lt;/b&gt;</td></tr>',
    )
    expect(table).toContain('<tr><th>name</th><td>Lantern Society</td><td>Lantern Society</td></tr>')
    // The public page has nothing to review.
    expect(await (await w.as('anonymous')(`${w.url}?format=api`)).text()).not.toContain('class="review"')
  })

  it('tells new clubs from changes to approved ones in the approval queue', async () => {
    const w = await world()
    await w.patch('owner', { subtitle: 'Changed' })
    const draft = await readJson(
      await w.as('user')('/api/clubs/', { method: 'POST', json: { name: 'Brand New Club' } }),
    )
    const html = await (await w.as('admin')('/api/clubs/?approved=false&format=api')).text()
    const queue = html.slice(
      html.indexOf('<section class="queue"'),
      html.indexOf('</section>', html.indexOf('<section class="queue"')),
    )
    expect(queue).toContain(`>${w.code}</a>: change to an approved club</li>`)
    expect(queue).toContain(`>${draft.code}</a>: new club</li>`)
  })
})
