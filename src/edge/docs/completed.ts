import { WEBHOOKS } from './webhooks'

// What the Swagger plugin's document lacks, added to each answer of /swagger/json: a HEAD beside
// each GET, the named sets of codes as components, and the webhook deliveries (docs/reference.md §24).

type Operation = { operationId?: string; summary?: string; responses?: Record<string, ResponseObject> }
type ResponseObject = { description: string; headers?: unknown; content?: unknown }
export type OpenApiDocument = {
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, unknown> }
}

/**
 * The document with each named set of codes (a schema with a title and x-enum-varnames: size,
 * application_required, recruiting_cycle) as one component, referenced wherever it is used: a
 * generator then makes one enum of each, named by its title, rather than one per place.
 */
function withNamedEnums(doc: OpenApiDocument): OpenApiDocument {
  const named: Record<string, unknown> = {}
  const lift = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(lift)
    if (node === null || typeof node !== 'object') return node
    const schema = node as Record<string, unknown>
    if (typeof schema.title === 'string' && Array.isArray(schema['x-enum-varnames'])) {
      named[schema.title] = schema
      return { $ref: `#/components/schemas/${schema.title}` }
    }
    return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, lift(value)]))
  }
  const paths = lift(doc.paths) as OpenApiDocument['paths']
  const schemas = lift(doc.components.schemas) as Record<string, unknown>
  return { ...doc, paths, components: { ...doc.components, schemas: { ...schemas, ...named } } }
}

/**
 * The document with a HEAD beside each GET: the same answers, headers only. Every GET route
 * answers HEAD (Elysia runs the GET and drops the body), so this is said here, once.
 */
function withHeadOperations(doc: OpenApiDocument): OpenApiDocument {
  const paths = Object.entries(doc.paths).map(([path, item]) => {
    const get = item.get
    if (!get) return [path, item]
    const responses = Object.fromEntries(
      Object.entries(get.responses ?? {}).map(([status, { description, headers }]) => [
        status,
        { description, ...(headers ? { headers } : {}) },
      ]),
    )
    const head = {
      ...get,
      operationId: `head${(get.operationId ?? '').replace(/^get/, '')}`,
      summary: `${get.summary} (headers only)`,
      responses,
    }
    return [path, { ...item, head }]
  })
  return { ...doc, paths: Object.fromEntries(paths) }
}

/** The plugin's document, completed: 3.1's top-level `webhooks` holds the POSTs this service sends. */
export const completed = (doc: OpenApiDocument) => ({ ...withNamedEnums(withHeadOperations(doc)), webhooks: WEBHOOKS })
