// A typed client of the Club Directory API: openapi-fetch over the types openapi-typescript
// generates from the service's own OpenAPI document (schema.d.ts; see README.md).
//
//   CLUBS_URL=http://localhost:3000 CLUBS_TOKEN=change-me-please bun examples/client/example.ts
import createClient from 'openapi-fetch'
import type { paths } from './schema'

const baseUrl = process.env.CLUBS_URL || 'http://localhost:3000'
const token = process.env.CLUBS_TOKEN

// JSON answers only: the list also comes as CSV and XLSX (?format=), which this client does not ask for.
const client = createClient<paths, 'application/json'>({ baseUrl })

// The list: a bare array, or a page ({count, next, previous, results}) when ?page= is given.
const list = await client.GET('/api/clubs/')
if (list.error !== undefined || list.data === undefined) {
  console.error(`listing the clubs failed: ${list.response.status}`, list.error)
  process.exit(1)
}
const answered = Array.isArray(list.data) ? list.data : list.data.results
// The answer's type allows for ?fields=, which may leave any field out. This request names none, so
// every club has its code and name: the filter keeps them all, and tells the compiler so.
const clubs = [...answered].filter(
  (club): club is typeof club & { code: string; name: string } => club.code !== undefined && club.name !== undefined,
)
const byName = [...clubs].sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'accent' }))
console.log(`${clubs.length} clubs; the first 5 by name:`)
for (const club of byName.slice(0, 5)) console.log(`  ${club.code}  ${club.name}`)

if (!token) {
  console.log('Set CLUBS_TOKEN to a bearer token to create a club too.')
  process.exit(0)
}

// Only name is required; the service derives the code from it. The body is type-checked
// against the create schema: a misspelt field or a "3" for size would not compile.
const created = await client.POST('/api/clubs/', {
  headers: { Authorization: `Bearer ${token}` },
  body: {
    name: `Typed Client Club ${new Date().toISOString().slice(0, 19).replace('T', ' ')}`,
    subtitle: 'Created by examples/client/example.ts',
    size: 1,
    tags: [{ name: 'Technology' }],
  },
})
if (created.error !== undefined || created.data === undefined) {
  console.error(`creating a club failed: ${created.response.status}`, created.error)
  process.exit(1)
}
console.log(`created ${created.data.code} (approved: ${created.data.approved})`)
