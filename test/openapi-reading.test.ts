// What a reader of the API docs (Swagger UI on /swagger/json) meets: an example wherever Swagger UI
// would otherwise make one up, true/false filters offered as booleans, choices as choices, no
// padlock on what anyone may read, every operation and parameter described in its own words, and
// every answer's content types and headers declared — each header once, as a component.
import { beforeAll, describe, expect, it } from 'bun:test'
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { makeApp } from '../harness/app'
import { BOOLEAN_FILTERS, CODED_FILTERS } from '../src/domain/list-query'

type Json = any
const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options']

/** Every object in `value`, with where it is. */
function* objects(value: Json, at = '#'): Generator<[Json, string]> {
  if (value === null || typeof value !== 'object') return
  if (!Array.isArray(value)) yield [value, at]
  for (const [key, child] of Object.entries(value)) yield* objects(child, `${at}/${key}`)
}

describe('the OpenAPI document, as Swagger UI shows it', () => {
  let doc: Json
  let operations: { name: string; op: Json }[]
  const ajv = new Ajv2020({ strict: false })
  addFormats(ajv)

  beforeAll(async () => {
    const { req } = await makeApp()
    doc = await (await req('/swagger/json')).json()
    ajv.addSchema(doc, 'openapi.json')
    operations = Object.entries(doc.paths).flatMap(([path, item]: [string, Json]) =>
      METHODS.filter((m) => item[m]).map((m) => ({ name: `${m.toUpperCase()} ${path}`, op: item[m] })),
    )
  })

  /** The schema with its component references pointing into the document. */
  const validator = (schema: Json) =>
    ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/')))

  it('gives every patterned string an example that matches it (Swagger UI invents one from the pattern otherwise)', () => {
    const patterned = [...objects(doc)].filter(([node]) => node.type === 'string' && typeof node.pattern === 'string')
    expect(patterned.length).toBeGreaterThan(10)
    const missing = patterned.filter(([node]) => !node.examples?.length).map(([, at]) => at)
    expect(missing).toEqual([])
    for (const [node, at] of patterned)
      for (const example of node.examples) expect(`${at} ${example} ${validator(node)(example)}`).toEndWith('true')
  })

  it('offers the true/false filters as booleans, and every choice as a list to pick from', () => {
    const list = doc.paths['/api/clubs/'].get.parameters
    for (const name of BOOLEAN_FILTERS)
      expect(list.find((p: Json) => p.name === name).schema).toEqual({ type: 'boolean' })
    expect(doc.paths['/api/imports/'].post.parameters.find((p: Json) => p.name === 'dry_run').schema.type).toBe(
      'boolean',
    )
    // An anyOf of constants reads "string | (string | string)" and gets a free-text box.
    const parameters = operations.flatMap(({ name, op }) => (op.parameters ?? []).map((p: Json) => ({ name, p })))
    expect(parameters.filter(({ p }) => p.schema.anyOf).map(({ name, p }) => `${name} ${p.name}`)).toEqual([])
    const format = list.find((p: Json) => p.name === 'format').schema
    expect(format.enum).toEqual(['json', 'api', 'csv', 'xlsx'])
  })

  it('admits in each coded filter exactly its codes, alone or comma-separated', () => {
    const list = doc.paths['/api/clubs/'].get.parameters
    for (const [name, codes] of Object.entries(CODED_FILTERS)) {
      const accepts = validator(list.find((p: Json) => p.name === name).schema)
      const values = Object.keys(codes)
      const last = values.at(-1)!
      for (const value of [...values, `1,${last}`]) expect(`${name}=${value} ${accepts(value)}`).toEndWith('true')
      for (const value of ['0', String(values.length + 1), `1,${values.length + 1}`, '1,', ''])
        expect(`${name}=${value} ${accepts(value)}`).toEndWith('false')
    }
  })

  it('fills in an example for every path parameter when one tries an operation', () => {
    for (const { name, op } of operations)
      for (const p of (op.parameters ?? []).filter((p: Json) => p.in === 'path'))
        expect(`${name} ${p.name} ${validator(p.schema)(p.example)}`).toBe(`${name} ${p.name} true`)
  })

  it('lets anyone read without a token where anyone may, and asks for one where it is needed', () => {
    // [] takes no token at all (the probes); [{}, {bearer: []}] takes one when sent.
    const open = operations.filter(
      ({ op }) => !op.security.length || op.security.some((requirement: Json) => !Object.keys(requirement).length),
    )
    const reads = [
      'GET /api/',
      'GET /api/clubs/',
      'GET /api/clubs/{code}/',
      'GET /api/clubs/{code}/officers/',
      'GET /api/changes/',
      'GET /api/changes/stream',
      'GET /api/clubs/{code}/calendar.ics',
      'GET /api/calendar.ics',
      'GET /api/calendars/{token}/meetings.ics',
      'GET /api/clubs/{code}/qr.svg',
      'GET /api/logos/{file}',
      'GET /api/tags/',
      'GET /api/tags/{id}/',
      'GET /health',
      'GET /livez',
      'GET /readyz',
      'GET /metrics',
    ]
    // HEAD is open where GET is; OPTIONS (metadata, a CORS preflight) everywhere, and takes no token.
    const options = operations.filter(({ name }) => name.startsWith('OPTIONS ')).map(({ name }) => name)
    expect(options.length).toBeGreaterThan(20)
    // A POST that only reads: the clubs that fit a timetable (docs/reference.md §24).
    const readingPosts = ['POST /api/clubs/fitting/']
    expect(open.map(({ name }) => name).sort()).toEqual(
      [...reads, ...reads.map((name) => name.replace('GET', 'HEAD')), ...options, ...readingPosts].sort(),
    )
    for (const { name, op } of operations.filter((o) => !open.includes(o)))
      expect(`${name} ${JSON.stringify(op.security)}`).toBe(`${name} [{"bearer":[]}]`)
    // A wrong token is a 401 even where none is needed.
    for (const { name, op } of open.filter(({ name }) => name.includes('/api/') && !name.startsWith('OPTIONS')))
      expect(`${name} ${Object.keys(op.responses)}`).toContain('401')
  })

  it('describes every operation, parameter and response, each parameter in its own words', () => {
    for (const { name, op } of operations) {
      expect(`${name}: ${op.summary}`.length).toBeGreaterThan(name.length + 8)
      expect(`${name}: ${op.description}`.length).toBeGreaterThan(name.length + 20)
      expect(op.description).not.toBe(op.summary)
      const descriptions = (op.parameters ?? []).map((p: Json) => p.description)
      for (const description of descriptions) expect(`${name}: ${description}`.length).toBeGreaterThan(name.length + 8)
      expect(`${name}: ${descriptions.length}`).toBe(`${name}: ${new Set(descriptions).size}`)
      for (const [status, response] of Object.entries(op.responses) as [string, Json][])
        expect(`${name} ${status}: ${response.description}`.length).toBeGreaterThan(name.length + 10)
    }
    const list = doc.paths['/api/clubs/'].get.parameters
    const about = (name: string) => list.find((p: Json) => p.name === name).description
    expect(about('active')).toContain('active clubs')
    expect(about('approved')).toContain('approval')
  })

  it('declares what each answer is: JSON, and besides it the browsable view and the spreadsheets; nothing for 204 and 304', () => {
    for (const { name, op } of operations) {
      for (const [status, response] of Object.entries(op.responses) as [string, Json][]) {
        const types = Object.keys(response.content ?? {})
        const others = Object.keys(response['x-other-media'] ?? {})
        // A HEAD answer has the headers of its GET's and no body.
        if (status === '204' || status === '304' || name.startsWith('HEAD '))
          expect(`${name} ${status} ${types}`).toBe(`${name} ${status} `)
        else expect(`${name} ${status} ${types.length}`).not.toBe(`${name} ${status} 0`)
        // A logo, a calendar or the change stream is of its own type: a browser gets it, not a browsable page of it.
        const file = types.some((type) => /^(image\/|text\/calendar|text\/event-stream)/.test(type))
        // Generated clients type an answer as the union of its content: JSON stays alone there.
        if (types.includes('application/json'))
          expect(`${name} ${status} ${types}`).toBe(`${name} ${status} application/json`)
        if (name.includes(' /api/') && (types.length || status === '204') && !file && !name.startsWith('OPTIONS '))
          expect(`${name} ${status} ${others}`).toContain('text/html')
      }
    }
    const list = doc.paths['/api/clubs/'].get.responses['200']
    expect(Object.keys(list.content)).toEqual(['application/json'])
    expect(Object.keys(list['x-other-media'])).toEqual([
      'text/csv',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'text/html',
    ])
  })

  it('declares each header once, as a component, and references it wherever it is sent', () => {
    const references = new Set<string>()
    for (const { name, op } of operations) {
      for (const [status, response] of Object.entries(op.responses) as [string, Json][]) {
        for (const [header, value] of Object.entries(response.headers ?? {}) as [string, Json][]) {
          expect(`${name} ${status} ${header} ${value.$ref}`).toBe(
            `${name} ${status} ${header} #/components/headers/${header}`,
          )
          references.add(header)
        }
        expect(`${name} ${status} ${Object.keys(response.headers ?? {})}`).toContain('X-Request-Id')
      }
    }
    expect([...references].sort()).toEqual(Object.keys(doc.components.headers).sort())
    const headersOf = (path: string, method: string, status: string) =>
      Object.keys(doc.paths[path][method].responses[status].headers ?? {})
    expect(headersOf('/api/clubs/', 'get', '200')).toEqual(
      expect.arrayContaining(['X-Total-Count', 'Link', 'ETag', 'Allow', 'Content-Disposition']),
    )
    expect(headersOf('/api/clubs/', 'post', '201')).toContain('Location')
    expect(headersOf('/api/tags/', 'post', '201')).toContain('Location')
    expect(headersOf('/api/clubs/{code}/', 'patch', '401')).toContain('WWW-Authenticate')
    expect(headersOf('/api/clubs/{code}/', 'patch', '503')).toContain('Retry-After')
    expect(headersOf('/api/clubs/{code}/', 'get', '429')).toContain('Retry-After')
    expect(headersOf('/api/clubs/{code}/', 'get', '404')).toContain('Allow')
    for (const [header, declared] of Object.entries(doc.components.headers) as [string, Json][])
      for (const example of declared.schema.examples ?? [])
        expect(`${header} ${validator(declared.schema)(example)}`).toBe(`${header} true`)
  })

  it('gives examples that satisfy their schemas, answers included', () => {
    let count = 0
    for (const { name, op } of operations) {
      const media = [
        ...Object.values(op.requestBody?.content ?? {}),
        ...Object.values(op.responses).flatMap((r: Json) => Object.values(r.content ?? {})),
      ] as Json[]
      for (const { schema, example } of media.filter((m) => m.example !== undefined)) {
        if (schema.type === 'string') continue
        count++
        const validate = validator(schema)
        expect(`${name} ${JSON.stringify(example)} ${validate(example)}`).toEndWith('true')
      }
    }
    expect(count).toBeGreaterThan(20)
  })
})
