import { describe, expect, it } from 'bun:test'
import { makeApp, readJson } from '../harness/app'
import { ENDPOINTS } from '../src/edge/endpoints'

// Each endpoint is declared once (src/edge/endpoints/); what OPTIONS says and what the OpenAPI
// document says are both made from that declaration, so they must agree for every endpoint.

const CONCRETE: Record<string, string> = { code: 'penn-chess-society', username: 'admin', id: '7' }
/** '/api/clubs/:code/' as a URL one can send, and as the OpenAPI path '/api/clubs/{code}/'. */
const concrete = (path: string) => path.replace(/:(\w+)/g, (_, name: string) => CONCRETE[name]!)
const documented = (path: string) => path.replace(/:(\w+)/g, '{$1}')

/** What JSON makes of a schema: TypeBox's symbols and undefined members dropped, as both answers send it. */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value))

/** A schema of the document with its component references (the named codes) replaced by what they name. */
const inlined = (value: unknown, doc: any): unknown =>
  JSON.parse(JSON.stringify(value), (_, node) =>
    node?.$ref ? inlined(doc.components.schemas[node.$ref.split('/').at(-1)], doc) : node,
  )

describe('OPTIONS and the OpenAPI document come from one declaration', async () => {
  const { req } = await makeApp()
  const doc = await readJson(await req('/swagger/json'))

  for (const endpoint of ENDPOINTS) {
    it(`agree on ${endpoint.path}: methods, and the schema of each body`, async () => {
      const res = await req(concrete(endpoint.path), { method: 'OPTIONS' })
      expect(res.status).toBe(200)
      const metadata = await readJson(res)
      const operations = doc.paths[documented(endpoint.path)]
      expect(operations).toBeObject()
      // HEAD and OPTIONS are documented too, and answered on every path without being listed in Allow.
      const methods = Object.keys(operations)
        .filter((m) => m !== 'head' && m !== 'options')
        .map((m) => m.toUpperCase())
      expect(Object.keys(operations)).toContain('options')
      expect(metadata.allowed_methods).toEqual(methods)
      expect(res.headers.get('allow')).toBe(methods.join(', '))
      const bodies = Object.fromEntries(
        Object.entries(operations)
          // A body of bytes (a logo) has no JSON schema: OPTIONS names its media types under `parses`.
          .filter(([, op]) => (op as any).requestBody?.content['application/json'])
          .map(([method, op]) => [method.toUpperCase(), (op as any).requestBody.content['application/json'].schema]),
      )
      expect(plain(metadata.actions ?? {})).toEqual(inlined(bodies, doc))
    })
  }

  it('advertises on OPTIONS /api/clubs/ a POST that requires only the name, as the docs do', async () => {
    const metadata = await readJson(await req('/api/clubs/', { method: 'OPTIONS' }))
    expect(metadata.actions.POST.required).toEqual(['name'])
    expect(doc.paths['/api/clubs/'].post.requestBody.content['application/json'].schema.required).toEqual(['name'])
  })

  it('answers every undeclared method of a declared path with 405 and the declared Allow', async () => {
    for (const endpoint of ENDPOINTS) {
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        if (endpoint.allow.split(', ').includes(method)) continue
        const res = await req(concrete(endpoint.path), { method })
        expect(`${method} ${endpoint.path} ${res.status} ${res.headers.get('allow')}`).toBe(
          `${method} ${endpoint.path} 405 ${endpoint.allow}`,
        )
      }
    }
  })
})
