import { describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { ADMIN_TOKEN, makeApp, NOW, readJson, tempDir } from '../harness/app'
import { snapshotProblem } from '../src/domain/snapshot-format'
import { blockWrites } from '../harness/write-fault'
import { directoryOnDisk } from '../harness/on-disk'
import { users } from '../harness/users'

// Tags (docs/reference.md §14): admins create, rename and delete them; everyone reads them, with the
// number of clubs the caller may see; a rename shows at once on every club and in every cached
// answer, and a delete takes the tag off every club. The browsable tag list links each tag to
// its clubs.

type Json = Record<string, any>
type Who = 'anonymous' | 'user' | 'member' | 'officer' | 'owner' | 'admin'
type Action = 'list' | 'retrieve' | 'create' | 'rename' | 'delete'

const CALLERS: readonly Who[] = ['anonymous', 'user', 'member', 'officer', 'owner', 'admin']
const GAMES = 7 // a seed tag: "Games", on five public clubs and one pending
const GAMES_URL = `/api/tags/${GAMES}/`
const CHESS_URL = '/api/clubs/penn-chess-society/'
const NOT_FOUND = { detail: 'Not found.' }
const NO_PERMISSION = { detail: 'You do not have permission to perform this action.' }
const LATER = new Date(NOW.getTime() + 3_600_000)

function freshDataFile(): string {
  return join(tempDir('clubs-tags-'), 'db.json')
}

/**
 * The seed, and `owner` running "Tag Testers" (pending approval, tagged Games) with `officer`
 * and `member`; the clock moves an hour after set-up, so changes show in `updated_at`.
 */
async function world(dataFile?: string) {
  let clock = NOW
  const app = await makeApp({ dataFile, now: () => clock })
  const tokens: Record<string, string | null> = {
    anonymous: null,
    admin: ADMIN_TOKEN,
    ...(await users(app, 'owner', 'officer', 'member', 'user')),
  }
  const as =
    (who: string) =>
    (path: string, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}) =>
      app.req(path, { ...init, token: tokens[who] ?? null })
  const created = await as('owner')('/api/clubs/', {
    method: 'POST',
    json: { name: 'Tag Testers', tags: [{ id: GAMES }] },
  })
  expect(created.status).toBe(201)
  for (const [username, role] of [
    ['officer', 'officer'],
    ['member', 'member'],
  ])
    await as('owner')('/api/clubs/tag-testers/members/', { method: 'POST', json: { username, role } })
  clock = LATER
  const json = async (who: string, path: string) => readJson(await as(who)(path))
  return { ...app, tokens, as, json }
}
type World = Awaited<ReturnType<typeof world>>

/** The tag names a club shows to `who`, on its page. */
const tagNamesOn = async (w: World, who: string, url: string) =>
  ((await w.json(who, url)).tags as Json[]).map((tag) => tag.name)

/** The clubs tagged Games each caller may see: the public five, "Tag Testers" to its officers, all to admins. */
const GAMES_SEEN_BY: Record<Who, number> = { anonymous: 5, user: 5, member: 5, officer: 6, owner: 6, admin: 7 }

const ACTIONS: Record<
  Action,
  { method: string; url: string; json?: unknown; succeeded: (res: Response, w: World, who: Who) => Promise<void> }
> = {
  list: {
    method: 'GET',
    url: '/api/tags/',
    succeeded: async (res) => expect(((await readJson(res)) as Json[]).length).toBe(20),
  },
  retrieve: {
    method: 'GET',
    url: GAMES_URL,
    succeeded: async (res, _w, who) =>
      // The pending "Tag Testers" counts for those who may see it (docs/reference.md §14).
      expect(await readJson(res)).toEqual({ id: GAMES, name: 'Games', clubs: GAMES_SEEN_BY[who] }),
  },
  create: {
    method: 'POST',
    url: '/api/tags/',
    json: { name: 'Robotics' },
    succeeded: async (res, w) => {
      expect(await readJson(res)).toEqual({ id: 21, name: 'Robotics', clubs: 0 })
      expect(res.headers.get('location')).toBe('http://localhost/api/tags/21/')
      expect(await w.json('anonymous', '/api/tags/21/')).toEqual({ id: 21, name: 'Robotics', clubs: 0 })
    },
  },
  rename: {
    method: 'PATCH',
    url: GAMES_URL,
    json: { name: 'Board Games' },
    succeeded: async (res, w) => {
      expect(await readJson(res)).toEqual({ id: GAMES, name: 'Board Games', clubs: 7 })
      expect(await tagNamesOn(w, 'anonymous', CHESS_URL)).toContain('Board Games')
    },
  },
  delete: {
    method: 'DELETE',
    url: GAMES_URL,
    succeeded: async (res, w) => {
      expect(await res.text()).toBe('')
      expect((await w.as('anonymous')(GAMES_URL)).status).toBe(404)
      expect(await tagNamesOn(w, 'anonymous', CHESS_URL)).not.toContain('Games')
    },
  },
}

// Columns: anonymous, user, member, officer, owner (of a club carrying the tag), admin.
const MATRIX: Record<Action, number[]> = {
  list: [200, 200, 200, 200, 200, 200],
  retrieve: [200, 200, 200, 200, 200, 200],
  create: [401, 403, 403, 403, 403, 201],
  rename: [401, 403, 403, 403, 403, 200],
  delete: [401, 403, 403, 403, 403, 204],
}

describe('the tag matrix', () => {
  for (const action of Object.keys(MATRIX) as Action[]) {
    CALLERS.forEach((who, column) => {
      const { method, url, json, succeeded } = ACTIONS[action]
      const status = MATRIX[action][column]!
      it(`${action}: ${method} ${url} as ${who} → ${status}`, async () => {
        const w = await world()
        const before = await w.json('admin', '/api/tags/')
        const res = await w.as(who)(url, { method, json })
        expect(res.status).toBe(status)
        if (status < 300) return succeeded(res, w, who)
        const body = await readJson(res)
        if (status === 401) expect(res.headers.get('www-authenticate')).toStartWith('Bearer')
        if (status === 403) expect(body).toEqual(NO_PERMISSION)
        expect(await w.json('admin', '/api/tags/')).toEqual(before)
        expect(await tagNamesOn(w, 'admin', CHESS_URL)).toContain('Games')
      })
    })
  }
})

describe('tag ids', () => {
  for (const id of ['999', '0', '01', 'abc', '-1', '1.5', '7e0', '99999999999999999999']) {
    it(`answers /api/tags/${id}/ with 404 to a read, a rename and a delete`, async () => {
      const { req, admin } = await makeApp()
      for (const res of [
        await req(`/api/tags/${id}/`),
        await admin.patch(`/api/tags/${id}/`, { name: 'Anything' }),
        await admin.delete(`/api/tags/${id}/`),
      ]) {
        expect(res.status).toBe(404)
        expect(await readJson(res)).toEqual(NOT_FOUND)
      }
    })
  }

  it('answers a non-admin renaming or deleting a tag that does not exist with 403, not 404', async () => {
    const w = await world()
    expect((await w.as('user')('/api/tags/999/', { method: 'PATCH', json: { name: 'X' } })).status).toBe(403)
    expect((await w.as('user')('/api/tags/999/', { method: 'DELETE' })).status).toBe(403)
  })

  it('gives a new tag the next id after the highest', async () => {
    const { admin } = await makeApp()
    expect((await readJson(await admin.post('/api/tags/', { name: 'One' }))).id).toBe(21)
    expect((await readJson(await admin.post('/api/tags/', { name: 'Two' }))).id).toBe(22)
  })

  it('answers the wrong methods with 405 and the declared Allow', async () => {
    const { admin } = await makeApp()
    for (const [method, url, allow] of [
      ['PUT', '/api/tags/', 'GET, POST'],
      ['DELETE', '/api/tags/', 'GET, POST'],
      ['POST', GAMES_URL, 'GET, PATCH, DELETE'],
      ['PUT', GAMES_URL, 'GET, PATCH, DELETE'],
    ] as const) {
      const res = await admin[method === 'PUT' ? 'put' : method === 'POST' ? 'post' : 'delete'](url, { name: 'x' })
      expect([method, url, res.status, res.headers.get('allow')]).toEqual([method, url, 405, allow])
    }
  })
})

describe('tag names', () => {
  const refused: [string, unknown, Json][] = [
    ['a blank name', { name: '   ' }, { name: ['This field may not be blank.'] }],
    [
      'a name of 101 characters',
      { name: 'x'.repeat(101) },
      { name: ['Ensure this field has no more than 100 characters.'] },
    ],
    ['no name', {}, { name: ['This field is required.'] }],
    ['a null name', { name: null }, { name: ['This field may not be null.'] }],
    ['a number', { name: 12 }, { name: ['Not a valid string.'] }],
    ['a taken name in other case', { name: ' gAMES ' }, { name: ['A tag with this name already exists.'] }],
    ['an unknown field', { name: 'Fine', colour: 'red' }, { colour: ['Unknown field.'] }],
    ['a list', [{ name: 'Fine' }], { non_field_errors: ['Send an object: {"name": "..."}.'] }],
  ]
  for (const [label, json, errors] of refused) {
    it(`refuses ${label} on create with a 400 naming the field`, async () => {
      const { admin } = await makeApp()
      const res = await admin.post('/api/tags/', json)
      expect(res.status).toBe(400)
      expect(await readJson(res)).toEqual(errors)
      expect(((await readJson(await admin.get('/api/tags/'))) as Json[]).length).toBe(20)
    })
  }

  it('trims a name, keeps up to 100 characters, and takes names that differ from others only in spaces within', async () => {
    const { admin } = await makeApp()
    expect(await readJson(await admin.post('/api/tags/', { name: '  Robotics \n' }))).toMatchObject({
      name: 'Robotics',
    })
    expect((await admin.post('/api/tags/', { name: 'y'.repeat(100) })).status).toBe(201)
    expect((await admin.post('/api/tags/', { name: 'Gam es' })).status).toBe(201)
  })

  it('refuses a rename to a name another tag holds, ignoring case, and takes a change of case of its own', async () => {
    const { admin } = await makeApp()
    const taken = await admin.patch(GAMES_URL, { name: 'SOCIAL' })
    expect(taken.status).toBe(400)
    expect(await readJson(taken)).toEqual({ name: ['A tag with this name already exists.'] })
    expect(await readJson(await admin.patch(GAMES_URL, { name: 'GAMES' }))).toEqual({
      id: GAMES,
      name: 'GAMES',
      clubs: 6,
    })
    expect(await readJson(await admin.patch(GAMES_URL, {}))).toEqual({ id: GAMES, name: 'GAMES', clubs: 6 })
    expect(await readJson(await admin.get(GAMES_URL))).toEqual({ id: GAMES, name: 'GAMES', clubs: 6 })
    expect((await admin.patch(GAMES_URL, { name: '' })).status).toBe(400)
  })

  it('lets a club use a new tag by name or id', async () => {
    const { admin } = await makeApp()
    const tag = await readJson(await admin.post('/api/tags/', { name: 'Robotics' }))
    const club = await admin.post('/api/clubs/', { name: 'Bots', tags: [{ name: 'robotics' }] })
    expect((await readJson(club)).tags).toEqual([{ id: tag.id, name: 'Robotics' }])
  })
})

describe('tags named by a bare string in a club write (docs/reference.md §22)', () => {
  const namesOf = (club: Json) => (club.tags as Json[]).map((tag) => tag.name)

  it('takes "Games" as {"name": "Games"} on POST, PUT and PATCH, mixed with the object forms', async () => {
    const w = await world()
    const created = await w.as('owner')('/api/clubs/', {
      method: 'POST',
      json: { name: 'Bare Tags', tags: ['Games', { name: 'Social' }, ' games ', { id: GAMES }] },
    })
    expect(created.status).toBe(201)
    expect(namesOf(await readJson(created))).toEqual(['Games', 'Social'])
    const url = '/api/clubs/bare-tags/'
    // GET-edit-PUT with the tags written back as names.
    const shown = await w.json('owner', url)
    const put = await w.as('owner')(url, { method: 'PUT', json: { ...shown, tags: ['social', 'Arts'] } })
    expect(put.status).toBe(200)
    expect(namesOf(await readJson(put))).toEqual(['Social', 'Arts'])
    const patch = await w.as('owner')(url, { method: 'PATCH', json: { tags: ['Arts', { id: GAMES }] } })
    expect(patch.status).toBe(200)
    expect(namesOf(await w.json('owner', url))).toEqual(['Arts', 'Games'])
  })

  it('refuses a name no tag has as the object form does: a 400 naming it under tags, and nothing written', async () => {
    const w = await world()
    const tagsBefore = await w.json('admin', '/api/tags/')
    const res = await w.as('owner')('/api/clubs/', {
      method: 'POST',
      json: { name: 'Bare Tags', tags: ['Games', 'Underwater Basket Weaving', { name: 'Knitting' }] },
    })
    expect(res.status).toBe(400)
    expect(await readJson(res)).toEqual({
      tags: ['Tag "Underwater Basket Weaving" does not exist.', 'Tag "Knitting" does not exist.'],
    })
    expect((await w.as('admin')('/api/clubs/bare-tags/')).status).toBe(404)
    expect(await w.json('admin', '/api/tags/')).toEqual(tagsBefore)
    const patch = await w.as('owner')('/api/clubs/tag-testers/', { method: 'PATCH', json: { tags: [''] } })
    expect([patch.status, await readJson(patch)]).toEqual([400, { tags: ['Tag "" does not exist.'] }])
    expect(await tagNamesOn(w, 'owner', '/api/clubs/tag-testers/')).toEqual(['Games'])
  })

  it('still refuses an item that is neither a string nor an object naming an id or a name', async () => {
    const w = await world()
    for (const tag of [3, null, true, ['Games'], {}]) {
      const res = await w.as('owner')('/api/clubs/tag-testers/', { method: 'PATCH', json: { tags: [tag] } })
      expect([res.status, await readJson(res)]).toEqual([
        400,
        { tags: ['Name a tag as {"id": <integer>}, {"name": "<text>"} or "<text>".'] },
      ])
    }
  })

  it('shows the bare string in the write bodies of the OpenAPI document', async () => {
    const w = await world()
    const doc = await readJson(await w.req('/swagger/json'))
    const resolve = (schema: Json): Json =>
      schema.$ref ? resolve(doc.components.schemas[schema.$ref.split('/').at(-1)]) : schema
    for (const [path, method] of [
      ['/api/clubs/', 'post'],
      ['/api/clubs/{code}/', 'put'],
      ['/api/clubs/{code}/', 'patch'],
    ] as const) {
      const body = resolve(doc.paths[path][method].requestBody.content['application/json'].schema)
      const items = resolve(body.properties.tags).items
      const kinds = (items.anyOf ?? items.oneOf).map((option: Json) => resolve(option).type)
      expect(kinds).toEqual(['object', 'object', 'string'])
    }
  })
})

describe('tag counts', () => {
  it('count the clubs the caller may see, in the list and on the tag alike', async () => {
    const w = await world()
    for (const [who, count] of Object.entries(GAMES_SEEN_BY)) {
      const listed = ((await w.json(who, '/api/tags/')) as Json[]).find((tag) => tag.id === GAMES)
      expect([who, listed!.clubs, (await w.json(who, GAMES_URL)).clubs]).toEqual([who, count, count])
    }
  })
})

describe('renaming a tag', () => {
  it('shows the new name at once on every club and in every cached answer', async () => {
    const w = await world()
    // Fill the caches: public list answers (per data version), detail answers and list items (per record).
    const urls = [CHESS_URL, '/api/clubs/', '/api/clubs/?page=1', '/api/favorites/']
    await w.as('user')('/api/favorites/', { method: 'POST', json: { club: 'penn-chess-society' } })
    const before = await Promise.all(urls.map((url) => w.as('anonymous')(url)))
    const etag = before[0]!.headers.get('etag')
    expect(await readJson(before[0]!)).toMatchObject({ tags: expect.arrayContaining([{ id: GAMES, name: 'Games' }]) })

    expect((await w.admin.patch(GAMES_URL, { name: 'Board Games' })).status).toBe(200)

    const detail = await w.as('anonymous')(CHESS_URL, { headers: { 'if-none-match': etag! } })
    expect(detail.status).toBe(200)
    const club = await readJson(detail)
    expect(club.tags).toContainEqual({ id: GAMES, name: 'Board Games' })
    expect(club.updated_at).toBe(LATER.toISOString())
    const everywhere = JSON.stringify([
      await w.json('anonymous', '/api/clubs/'),
      await w.json('anonymous', '/api/clubs/?page=1'),
      await w.json('user', '/api/favorites/'),
      await w.json('user', CHESS_URL),
      await w.json('owner', '/api/clubs/tag-testers/'),
      await w.json('admin', '/api/clubs/'),
    ])
    expect(everywhere).toContain('"name":"Board Games"')
    expect(everywhere).not.toContain('"name":"Games"')
    // Clubs without the tag are left as they were.
    expect((await w.json('anonymous', '/api/clubs/mock-trial/')).updated_at).not.toBe(LATER.toISOString())
  })

  it('is found by search and by the tags filter under the new name, not the old one', async () => {
    const w = await world()
    const codes = async (query: string) =>
      ((await w.json('anonymous', `/api/clubs/?${query}&fields=code`)) as Json[]).map((c) => c.code)
    const tag = await readJson(await w.admin.post('/api/tags/', { name: 'Xylophonics' }))
    for (const club of ['mock-trial', 'penn-chess-society'])
      await w.admin.patch(`/api/clubs/${club}/`, { tags: [{ id: tag.id }] })
    const tagged = await codes('tags=Xylophonics')
    expect(tagged.sort()).toEqual(['mock-trial', 'penn-chess-society'])
    expect((await codes('search=xylophonics')).sort()).toEqual(tagged)
    expect((await w.admin.patch(`/api/tags/${tag.id}/`, { name: 'Quasarcraft' })).status).toBe(200)
    expect((await codes('tags=quasarcraft')).sort()).toEqual(tagged)
    expect((await codes('search=quasarcraft')).sort()).toEqual(tagged)
    expect((await codes(`tags=${tag.id}`)).sort()).toEqual(tagged)
    expect(await codes('search=xylophonics')).toEqual([])
    expect(await codes('tags=xylophonics')).toEqual([])
  })

  it('shows on a club under review, in its public version too', async () => {
    const w = await world()
    expect((await w.admin.patch('/api/clubs/tag-testers/', { approved: true })).status).toBe(200)
    await w.as('owner')('/api/clubs/tag-testers/', { method: 'PATCH', json: { subtitle: 'Pending change' } })
    expect((await w.json('anonymous', '/api/clubs/tag-testers/')).subtitle).toBe('')
    expect((await w.admin.patch(GAMES_URL, { name: 'Board Games' })).status).toBe(200)
    const shown = await w.json('anonymous', '/api/clubs/tag-testers/')
    expect([shown.approved, shown.subtitle, shown.tags]).toEqual([true, '', [{ id: GAMES, name: 'Board Games' }]])
    const current = await w.json('owner', '/api/clubs/tag-testers/')
    expect([current.approved, current.subtitle, current.tags]).toEqual([
      false,
      'Pending change',
      [{ id: GAMES, name: 'Board Games' }],
    ])
  })
})

describe('deleting a tag', () => {
  it('takes it off every club, live and archived, and out of every cached answer', async () => {
    const dataFile = freshDataFile()
    const w = await world(dataFile)
    const carriers = ((await w.json('admin', `/api/clubs/?tags=${GAMES}&fields=code`)) as Json[]).map((c) => c.code)
    expect(carriers.length).toBe(7)
    expect((await w.admin.delete(`/api/clubs/${carriers[0]}/`)).status).toBe(204)
    await w.as('anonymous')(CHESS_URL)
    await w.as('anonymous')('/api/clubs/')

    expect((await w.admin.delete(GAMES_URL)).status).toBe(204)

    expect(((await w.json('admin', '/api/tags/')) as Json[]).map((t) => t.id)).not.toContain(GAMES)
    const chess = await w.json('anonymous', CHESS_URL)
    expect(chess.tags.map((t: Json) => t.id)).not.toContain(GAMES)
    expect(chess.updated_at).toBe(LATER.toISOString())
    expect(JSON.stringify(await w.json('anonymous', '/api/clubs/'))).not.toContain('"name":"Games"')
    expect(await w.json('admin', `/api/clubs/?tags=${GAMES}`)).toEqual([])
    expect(JSON.stringify(await w.json('admin', '/api/clubs/'))).not.toContain('"name":"Games"')
    const file = directoryOnDisk(dataFile)
    expect(snapshotProblem(file)).toBeNull()
    expect(file.clubs.filter((club: Json) => club.tags.includes(GAMES))).toEqual([])
    expect(file.clubs.find((club: Json) => club.code === carriers[0]).archived_at).not.toBeNull()
    // The name is free again.
    expect((await w.admin.post('/api/tags/', { name: 'Games' })).status).toBe(201)
  })
})

describe('tags in the data file', () => {
  it('survive a restart: created, renamed and deleted, with the clubs that carry them', async () => {
    const dataFile = freshDataFile()
    const a = await world(dataFile)
    expect((await a.admin.post('/api/tags/', { name: 'Robotics' })).status).toBe(201)
    expect((await a.admin.patch('/api/clubs/mock-trial/', { tags: [{ name: 'Robotics' }] })).status).toBe(200)
    expect((await a.admin.patch(GAMES_URL, { name: 'Board Games' })).status).toBe(200)
    expect((await a.admin.delete('/api/tags/1/')).status).toBe(204)
    const before = [await a.json('admin', '/api/tags/'), await a.json('admin', '/api/clubs/')]
    await a.store.close()

    const b = await makeApp({ dataFile })
    const after = [await readJson(await b.admin.get('/api/tags/')), await readJson(await b.admin.get('/api/clubs/'))]
    expect(after).toEqual(before)
    expect(await readJson(await b.req('/api/tags/21/'))).toEqual({ id: 21, name: 'Robotics', clubs: 1 })
    expect((await b.req('/api/tags/1/')).status).toBe(404)
  })

  it('are taken back when the write that holds a change fails (503): names, clubs and search as before', async () => {
    const dataFile = freshDataFile()
    const w = await world(dataFile)
    const state = async () => ({
      tags: await w.json('admin', '/api/tags/'),
      chess: await w.json('anonymous', CHESS_URL),
      search: await w.json('admin', '/api/clubs/?search=games&fields=code'),
      renamed: await w.json('admin', '/api/clubs/?search=tabletop&fields=code'),
      filtered: await w.json('admin', '/api/clubs/?tags=Games&fields=code'),
    })
    const before = await state()
    const blocked = blockWrites(dataFile)
    expect((await w.admin.post('/api/tags/', { name: 'Robotics' })).status).toBe(503)
    expect((await w.admin.patch(GAMES_URL, { name: 'Tabletop' })).status).toBe(503)
    expect((await w.admin.delete(GAMES_URL)).status).toBe(503)
    expect(await state()).toEqual(before)
    blocked.unblock()
    expect(await readJson(await w.admin.post('/api/tags/', { name: 'Robotics' }))).toEqual({
      id: 21,
      name: 'Robotics',
      clubs: 0,
    })
    expect((await w.admin.patch(GAMES_URL, { name: 'Tabletop' })).status).toBe(200)
    const onDisk = directoryOnDisk(dataFile).tags
    expect(onDisk).toContainEqual({ id: GAMES, name: 'Tabletop' })
    expect(onDisk).toContainEqual({ id: 21, name: 'Robotics' })
    expect(onDisk).toHaveLength((before.tags as Json[]).length + 1)
  })
})

describe('the browsable tag pages', () => {
  const tagLinks = (html: string) =>
    [...html.matchAll(/<a href="(\/api\/clubs\/\?tags=[^"]*)">([^<]*)<\/a>/g)].map(([, href, text]) => [
      href!.replaceAll('&amp;', '&'),
      text,
    ])

  it('link each tag of the list to its filtered club list, which lists its clubs', async () => {
    const { req } = await makeApp()
    const html = await (await req('/api/tags/?format=api')).text()
    const links = tagLinks(html)
    expect(links.length).toBe(20)
    expect(links).toContainEqual(['/api/clubs/?tags=Games&format=api', 'Games'])
    expect(links).toContainEqual(['/api/clubs/?tags=Community+Service&format=api', 'Community Service'])
    const filtered = await req('/api/clubs/?tags=Community+Service')
    const listed = ((await readJson(filtered)) as Json[]).map((club) => club.tags.map((t: Json) => t.name))
    expect(listed.length).toBeGreaterThan(0)
    for (const names of listed) expect(names).toContain('Community Service')
  })

  it('escape a tag name and link by id when the name would not read back as the tag', async () => {
    const { req, admin } = await makeApp()
    for (const name of ['<b>"Bold" & \'quoted\'</b>', 'Arts, Crafts', '2026', 'https://example.com/x'])
      expect((await admin.post('/api/tags/', { name })).status).toBe(201)
    const res = await req('/api/tags/?format=api')
    const html = await res.text()
    expect(html).not.toContain('<b>"Bold"')
    const links = tagLinks(html)
    expect(links).toContainEqual([
      '/api/clubs/?tags=%3Cb%3E%22Bold%22+%26+%27quoted%27%3C%2Fb%3E&format=api',
      '&lt;b&gt;\\&quot;Bold\\&quot; &amp; &#39;quoted&#39;&lt;/b&gt;',
    ])
    expect(links).toContainEqual(['/api/clubs/?tags=22&format=api', 'Arts, Crafts'])
    expect(links).toContainEqual(['/api/clubs/?tags=23&format=api', '2026'])
    expect(links).toContainEqual(['/api/clubs/?tags=https%3A%2F%2Fexample.com%2Fx&format=api', 'https://example.com/x'])
    expect(html).not.toContain('href="https://example.com/x"')
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'")
    for (const tag of html.match(/<script\b[^>]*>/gi) ?? []) expect(tag).toMatch(/\ssrc="\/[^"]+"/)
    // Each link finds its tag's clubs (none yet), not a 400.
    for (const [href] of links) expect((await req(href!.replace('format=api', 'format=json'))).status).toBe(200)
  })

  it('link the tag on its own page, and start its rename form from its name', async () => {
    const { req } = await makeApp()
    const html = await (await req(`${GAMES_URL}?format=api`)).text()
    expect(tagLinks(html)).toEqual([['/api/clubs/?tags=Games&format=api', 'Games']])
    expect(html).toContain('&quot;name&quot;: &quot;Games&quot;\n}</textarea>')
    expect(html).toContain('<option>PATCH</option><option>DELETE</option><option>GET</option>')
  })
})
