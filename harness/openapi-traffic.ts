// Checks real answers against the service's own OpenAPI document, as a validating proxy would:
// each answer's status must be declared for its operation, its content type among the declared
// ones, its headers declared (and the required ones present, each valid), and a JSON body valid
// against the declared schema (JSON Schema 2020-12, with ajv). A request the service accepted
// (2xx) must also be one the document allows: its query parameters and its JSON body. Two things
// the document says besides its schemas are read too: the media types an answer also comes in
// (`x-other-media`: the browsable view, spreadsheets), and that an answer to ?fields= holds only
// the fields named (its schema's `required` does not hold for it; everything else does).
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020'
import addFormats from 'ajv-formats'

/** The headers whose presence the document must account for; the others (CORS, Vary...) are not checked. */
export const TRACKED_HEADERS = [
  'Allow',
  'Content-Disposition',
  'ETag',
  'Link',
  'Location',
  'Retry-After',
  'WWW-Authenticate',
  'X-Request-Id',
  'X-Total-Count',
] as const

const DOC_ID = 'openapi.json'
/** The methods an endpoint serves and Allow lists; HEAD and OPTIONS come with them. */
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const
const DOCUMENTED = [...METHODS, 'head', 'options'] as const

type Json = any

/** A request as sent, and its answer with the bytes of its body. */
export interface Seen {
  readonly method: string
  readonly url: URL
  readonly requestType: string | null
  readonly requestBody: string | null
  readonly response: Response
  readonly body: Uint8Array
}

/** '~' and '/' escaped for a JSON pointer, then for a URI fragment. */
const pointer = (...segments: string[]) =>
  segments.map((s) => encodeURIComponent(s.replaceAll('~', '~0').replaceAll('/', '~1'))).join('/')

/**
 * The document as it holds for an answer to ?fields=, which has only the fields named: no `required`,
 * and a list item may hold the detail representation's fields too, as the list's `fields` says.
 */
function selectionView(doc: Json): Json {
  const view = JSON.parse(JSON.stringify(doc), (key, value) =>
    key === 'required' && Array.isArray(value) ? undefined : value,
  )
  view.components.schemas.ClubListItem = view.components.schemas.ClubDetail
  return view
}

export class OpenApiTraffic {
  readonly #ajv: Ajv2020
  /** The same document with no `required` anywhere: for answers to ?fields=. */
  readonly #selections: Ajv2020
  readonly #validators = new Map<string, ValidateFunction>()
  readonly #lifted = new Map<string, ValidateFunction>()
  readonly #routes: { template: string; pattern: RegExp }[]
  /** "GET /api/clubs/ 200": what has been seen, to report what a suite left unexercised. */
  readonly seen = new Set<string>()

  constructor(readonly doc: Json) {
    this.#ajv = new Ajv2020({ strict: false, allErrors: true })
    addFormats(this.#ajv)
    this.#ajv.addFormat('binary', true)
    this.#ajv.addSchema(doc, DOC_ID)
    this.#selections = new Ajv2020({ strict: false, allErrors: true })
    addFormats(this.#selections)
    this.#selections.addFormat('binary', true)
    this.#selections.addSchema(selectionView(doc), DOC_ID)
    this.#routes = Object.keys(doc.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`),
    }))
  }

  /** Every documented operation, as "GET /api/clubs/". */
  operations(): string[] {
    return Object.entries(this.doc.paths).flatMap(([path, item]) =>
      DOCUMENTED.filter((m) => (item as Json)[m]).map((m) => `${m.toUpperCase()} ${path}`),
    )
  }

  /** What is wrong with one exchange, as sentences; [] when the document describes it. */
  problems(seen: Seen): string[] {
    const { method, url, response } = seen
    const route = this.#routes.find(({ pattern }) => pattern.test(url.pathname))
    const name = `${method} ${url.pathname}${url.search} → ${response.status}`
    if (!route) return [`${name}: the path is not documented`]
    const m = method.toLowerCase()
    const operation = this.doc.paths[route.template][m]
    if (!operation) return this.#undocumentedMethodProblems(seen, route.template).map((p) => `${name}: ${p}`)
    const status = String(response.status)
    this.seen.add(`${method} ${route.template} ${status}`)
    const declared = operation.responses[status] ?? this.#browsableNoContent(operation, seen)
    if (!declared) return [`${name}: status ${status} is not declared (${Object.keys(operation.responses).join(', ')})`]
    const out = [
      ...this.#headerProblems(declared, response),
      ...this.#contentProblems(seen, declared, [route.template, m, 'responses', status]),
    ]
    if (response.status < 300) out.push(...this.#requestProblems(seen, route.template, operation))
    return out.map((problem) => `${name}: ${problem}`)
  }

  /** The browsable view's 200 page for an answer the document declares as a 204 (which has no body to show). */
  #browsableNoContent(operation: Json, { response }: Seen): Json {
    const done = operation.responses['204']
    const html = (response.headers.get('content-type') ?? '').startsWith('text/html')
    if (response.status !== 200 || !done?.['x-other-media']?.['text/html'] || !html) return undefined
    return { ...done, content: undefined }
  }

  /** A method the document does not name on a path it does: 405, with an Allow that names the documented ones. */
  #undocumentedMethodProblems({ method, response, body }: Seen, template: string): string[] {
    const documented = METHODS.filter((m) => this.doc.paths[template][m]).map((m) => m.toUpperCase())
    if (response.status !== 405) return [`${method} is not documented on ${template}, yet it was not a 405`]
    const allow = response.headers.get('allow')
    if (allow !== documented.join(', ')) return [`Allow is ${JSON.stringify(allow)}, the document says ${documented}`]
    const validate = this.#validator(pointer('components', 'schemas', 'Error'))
    return validate(JSON.parse(new TextDecoder().decode(body))) ? [] : [`body ${this.#ajv.errorsText(validate.errors)}`]
  }

  #headerProblems(declared: Json, response: Response): string[] {
    const out: string[] = []
    const headers = Object.fromEntries(
      Object.entries(declared.headers ?? {}).map(([name, header]) => [name.toLowerCase(), this.#deref(header)]),
    )
    for (const name of TRACKED_HEADERS) {
      const value = response.headers.get(name)
      const header = headers[name.toLowerCase()]
      if (value !== null && !header) out.push(`header ${name} is sent but not declared`)
      if (value === null && header?.required) out.push(`header ${name} is required but not sent`)
      if (value !== null && header) {
        const typed = header.schema.type === 'integer' && /^\d+$/.test(value) ? Number(value) : value
        const validate = this.#local(header.schema)
        if (!validate(typed))
          out.push(`header ${name}: ${JSON.stringify(value)} ${this.#ajv.errorsText(validate.errors)}`)
      }
    }
    return out
  }

  #contentProblems(seen: Seen, declared: Json, at: string[]): string[] {
    const { response, body } = seen
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim()
    const content = { ...declared.content, ...declared['x-other-media'] }
    if (!Object.keys(content).length || (!declared.content && body.byteLength === 0))
      return body.byteLength === 0 ? [] : [`a body of ${body.byteLength} bytes where none is declared`]
    if (seen.method === 'HEAD') return body.byteLength === 0 ? [] : ['a HEAD answer with a body']
    if (!content[type]) return [`content type "${type}" is not declared (${Object.keys(content).join(', ')})`]
    const text = new TextDecoder().decode(body)
    if (type === 'text/html') return /^<!doctype html>/i.test(text) ? [] : ['text/html that is not an HTML page']
    if (type !== 'application/json') return body.byteLength > 0 ? [] : [`an empty ${type} body`]
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      return [`a body that is not JSON: ${text.slice(0, 80)}`]
    }
    const validate = this.#validator(
      pointer('paths', ...at, 'content', type, 'schema'),
      seen.url.searchParams.has('fields'),
    )
    return validate(value) ? [] : [`body ${this.#ajv.errorsText(validate.errors)}: ${text.slice(0, 200)}`]
  }

  /** A request the service accepted must be one the document allows. */
  #requestProblems(seen: Seen, template: string, operation: Json): string[] {
    const out: string[] = []
    const parameters: Json[] = operation.parameters ?? []
    const segments = seen.url.pathname.split('/')
    template.split('/').forEach((part, i) => {
      const param = /^\{(\w+)\}$/.exec(part)?.[1]
      if (param) out.push(...this.#parameterProblems(parameters, 'path', param, decodeURIComponent(segments[i]!)))
    })
    for (const [key, value] of seen.url.searchParams)
      out.push(...this.#parameterProblems(parameters, 'query', key, value))
    if (seen.requestBody !== null && seen.requestType?.startsWith('application/json')) {
      const schema = operation.requestBody?.content?.['application/json']?.schema
      if (!schema) return [...out, 'accepted a JSON body where none is declared']
      const validate = this.#local(schema)
      if (!validate(JSON.parse(seen.requestBody)))
        out.push(`accepted a request body the document refuses: ${this.#ajv.errorsText(validate.errors)}`)
    }
    return out
  }

  #parameterProblems(parameters: Json[], where: string, name: string, raw: string): string[] {
    const parameter = parameters.find((p) => p.in === where && p.name === name)
    if (!parameter) return [`accepted the undeclared ${where} parameter ${name}`]
    const { type } = parameter.schema
    const value =
      type === 'boolean' && (raw === 'true' || raw === 'false')
        ? raw === 'true'
        : type === 'integer' && /^-?\d+$/.test(raw)
          ? Number(raw)
          : raw
    const validate = this.#local(parameter.schema)
    return validate(value)
      ? []
      : [
          `accepted ${where} parameter ${name}=${JSON.stringify(raw)}, which the document refuses: ${this.#ajv.errorsText(validate.errors)}`,
        ]
  }

  /** A validator for the schema at `at` (a pointer into the document), its references resolved there. */
  #validator(at: string, selection = false): ValidateFunction {
    const key = `${selection ? 'fields ' : ''}${at}`
    let validate = this.#validators.get(key)
    if (!validate) {
      validate = (selection ? this.#selections : this.#ajv).compile({ $ref: `${DOC_ID}#/${at}` })
      this.#validators.set(key, validate)
    }
    return validate
  }

  /** A validator for a schema lifted out of the document, its "#/components/..." references pointed back into it. */
  #local(schema: Json): ValidateFunction {
    const text = JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`)
    let validate = this.#lifted.get(text)
    if (!validate) {
      validate = this.#ajv.compile(JSON.parse(text))
      this.#lifted.set(text, validate)
    }
    return validate
  }

  #deref(node: Json): Json {
    if (!node?.$ref) return node
    return (node.$ref as string)
      .slice(2)
      .split('/')
      .reduce((at: Json, key) => at[key.replaceAll('~1', '/').replaceAll('~0', '~')], this.doc)
  }
}
