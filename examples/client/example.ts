// A typed client of the Club Directory API: openapi-fetch over the types openapi-typescript
// generates from the service's own OpenAPI document (schema.d.ts; see README.md). Nothing is
// typed by hand: every type below comes from `paths`.
//
//   CLUBS_URL=http://localhost:3000 CLUBS_TOKEN=change-me-please npx bun examples/client/example.ts
import createClient from 'openapi-fetch'
import type { paths } from './schema'

const baseUrl = process.env.CLUBS_URL || 'http://localhost:3000'
const token = process.env.CLUBS_TOKEN

const client = createClient<paths>({ baseUrl, headers: token ? { Authorization: `Bearer ${token}` } : {} })

function fail(what: string, response: Response, error: unknown): never {
  console.error(`${what} failed: ${response.status}`, error)
  process.exit(1)
}

// The list: a bare array, or a page ({count, next, previous, results}) when ?page= is given.
const list = await client.GET('/api/clubs/')
if (list.data === undefined) fail('listing the clubs', list.response, list.error)
const clubs = Array.isArray(list.data) ? list.data : list.data.results
const byName = clubs.toSorted((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'accent' }))
console.log(`${clubs.length} clubs; the first 5 by name:`)
for (const club of byName.slice(0, 5)) console.log(`  ${club.code}  ${club.name}`)

if (!token) {
  console.log('Set CLUBS_TOKEN to a bearer token to create and edit a club too.')
  process.exit(0)
}

// A club of our own to edit: only name is required. A misspelt field, or size: 9 (size is one of
// 1-4, the Size constants with `openapi-typescript --enum`), would not compile.
const created = await client.POST('/api/clubs/', {
  body: {
    name: `Typed Client Club ${new Date().toISOString().slice(0, 19).replace('T', ' ')}`,
    subtitle: 'Created by examples/client/example.ts',
    size: 1,
    tags: [{ name: 'Technology' }],
  },
})
if (created.data === undefined) fail('creating a club', created.response, created.error)
const code = created.data.code
console.log(`created ${code} (approved: ${created.data.approved})`)

// GET, edit, PUT: the club as read is a valid PUT body (its read-only fields are sent back and ignored).
const read = await client.GET('/api/clubs/{code}/', { params: { path: { code } } })
if (read.data === undefined) fail('reading the club', read.response, read.error)
const edited = { ...read.data, subtitle: `${read.data.subtitle} (edited)` }
const put = await client.PUT('/api/clubs/{code}/', { params: { path: { code } }, body: edited })
if (put.data === undefined) fail('replacing the club', put.response, put.error)
console.log(`subtitle: ${put.data.subtitle}`)

// A value the type allows and the service refuses: a 400 names each failing field with its messages.
const refused = await client.PUT('/api/clubs/{code}/', {
  params: { path: { code } },
  body: { ...put.data, website: 'not a web address' },
})
if (refused.response.status !== 400 || refused.error === undefined || 'detail' in refused.error)
  fail('a PUT with a bad website (expected a 400 naming it)', refused.response, refused.error)
console.log(`website refused: ${refused.error.website?.join(' ')}`)
