import SwaggerParser from '@apidevtools/swagger-parser'
import { describe, expect, it } from 'bun:test'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, posix } from 'node:path'
import { makeApp, readJson } from '../harness/app'
import { LIST_PARAMS } from '../harness/contract'
import { headingAnchors } from '../harness/readme-examples'
import { READ_ONLY_FIELDS } from '../src/model/club'

const ROOT = join(import.meta.dir, '..')

async function openapi() {
  const { req } = await makeApp()
  const res = await req('/swagger/json')
  expect(res.status).toBe(200)
  return { doc: await readJson(res), req }
}

describe('the OpenAPI document', () => {
  it('validates as OpenAPI with swagger-parser', async () => {
    const { doc } = await openapi()
    const api = await SwaggerParser.validate(structuredClone(doc))
    expect(api.info.title).toBe('Club Directory API')
  })

  it('passes redocly lint (recommended rules) with no errors', async () => {
    const { doc } = await openapi()
    const dir = mkdtempSync(join(tmpdir(), 'openapi-'))
    const file = join(dir, 'openapi.json')
    writeFileSync(file, JSON.stringify(doc))
    const lint = Bun.spawnSync(
      [
        join(ROOT, 'node_modules/.bin/redocly'),
        'lint',
        file,
        '--config',
        join(ROOT, 'redocly.yaml'),
        '--format',
        'json',
      ],
      { cwd: dir, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    )
    const report = JSON.parse(lint.stdout.toString())
    const errors = report.problems.filter((p: { severity: string }) => p.severity === 'error')
    expect(errors.map((p: { message: string }) => p.message)).toEqual([])
    expect(lint.exitCode).toBe(0)
  }, 60_000)

  const operations = [
    ['/api/clubs/', 'get'],
    ['/api/clubs/', 'post'],
    ['/api/clubs/fitting/', 'post'],
    ['/api/clubs/{code}/', 'get'],
    ['/api/clubs/{code}/', 'put'],
    ['/api/clubs/{code}/', 'patch'],
    ['/api/clubs/{code}/', 'delete'],
    ['/api/clubs/{code}/history/', 'get'],
    ['/api/clubs/{code}/resubmit/', 'post'],
    ['/api/changes/', 'get'],
    ['/api/changes/stream', 'get'],
    ['/api/clubs/{code}/calendar.ics', 'get'],
    ['/api/clubs/{code}/qr.svg', 'get'],
    ['/api/calendar.ics', 'get'],
    ['/api/calendars/{token}/meetings.ics', 'get'],
    ['/api/users/me/calendar-url/', 'get'],
    ['/api/users/me/calendar-url/', 'post'],
    ['/api/imports/', 'post'],
    ['/api/clubs/{code}/logo/', 'put'],
    ['/api/clubs/{code}/logo/', 'delete'],
    ['/api/logos/{file}', 'get'],
    ['/api/clubs/{code}/members/', 'get'],
    ['/api/clubs/{code}/members/', 'post'],
    ['/api/clubs/{code}/members/{username}/', 'patch'],
    ['/api/clubs/{code}/members/{username}/', 'delete'],
    ['/api/clubs/{code}/officers/', 'get'],
    ['/api/clubs/{code}/subscribers/', 'get'],
    ['/api/clubs/{code}/interested/', 'get'],
    ['/api/clubs/{code}/interested/{entry}/', 'delete'],
    ['/api/clubs/{code}/requests/', 'get'],
    ['/api/clubs/{code}/requests/', 'post'],
    ['/api/clubs/{code}/requests/{username}/', 'delete'],
    ['/api/clubs/{code}/requests/{username}/accept/', 'post'],
    ['/api/clubs/{code}/invites/', 'get'],
    ['/api/clubs/{code}/invites/', 'post'],
    ['/api/clubs/{code}/invites/{invite}/', 'delete'],
    ['/api/favorites/', 'get'],
    ['/api/favorites/', 'post'],
    ['/api/favorites/{code}/', 'delete'],
    ['/api/subscriptions/', 'get'],
    ['/api/subscriptions/', 'post'],
    ['/api/subscriptions/{code}/', 'delete'],
    ['/api/tags/', 'get'],
    ['/api/tags/', 'post'],
    ['/api/tags/{id}/', 'get'],
    ['/api/tags/{id}/', 'patch'],
    ['/api/tags/{id}/', 'delete'],
    ['/api/users/', 'get'],
    ['/api/users/', 'post'],
    ['/api/users/me/', 'get'],
    ['/api/users/me/requests/', 'get'],
    ['/api/users/{username}/token/', 'post'],
    ['/api/users/{username}/token/', 'delete'],
    ['/api/users/{username}/sessions/', 'delete'],
    ['/api/users/{username}/', 'patch'],
    ['/api/webhooks/', 'get'],
    ['/api/webhooks/', 'post'],
    ['/api/webhooks/{id}/', 'get'],
    ['/api/webhooks/{id}/', 'delete'],
    ['/api/webhooks/{id}/deliveries/', 'get'],
    // docs/reference.md §23
    ['/api/registration-rounds/', 'post'],
    ['/api/registration-rounds/current/', 'get'],
    ['/api/registration-rounds/current/clubs/', 'get'],
    ['/api/registration-rounds/current/close/', 'post'],
    ['/api/clubs/{code}/registration/', 'post'],
    ['/health', 'get'],
    ['/livez', 'get'],
    ['/readyz', 'get'],
    ['/metrics', 'get'],
    ['/api/', 'get'],
  ] as const

  /** The probes and the metrics, which answer no OPTIONS (a 405): every other path is an endpoint's. */
  const PROBES = ['/health', '/livez', '/readyz', '/metrics']

  it('documents exactly the served operations, HEAD and OPTIONS included, each with a summary and responses', async () => {
    const { doc, req } = await openapi()
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item as object).map((method) => `${method.toUpperCase()} ${path}`),
    )
    const paths = [...new Set(operations.map(([path]) => path))]
    const served = [
      ...operations.map(([path, method]) => `${method.toUpperCase()} ${path}`),
      ...operations.filter(([, method]) => method === 'get').map(([path]) => `HEAD ${path}`),
      ...paths.filter((path) => !PROBES.includes(path)).map((path) => `OPTIONS ${path}`),
    ]
    expect(documented.sort()).toEqual(served.sort())
    for (const [path, item] of Object.entries(doc.paths) as [string, Record<string, any>][])
      for (const [method, op] of Object.entries(item)) {
        expect(`${method} ${path} ${typeof op.summary}`).toBe(`${method} ${path} string`)
        expect(Object.keys(op.responses).length).toBeGreaterThan(0)
      }
    // HEAD and OPTIONS are served where they are documented.
    const url = (path: string) => path.replace('{code}', 'penn-chess-society').replace('{id}', '1')
    const head = await req(url('/api/clubs/{code}/'), { method: 'HEAD' })
    expect([head.status, (await head.text()).length]).toEqual([200, 0])
    const options = await req(url('/api/clubs/{code}/'), { method: 'OPTIONS' })
    expect(options.status).toBe(200)
    expect(((await options.json()) as { allowed_methods: string[] }).allowed_methods).toEqual(
      ['get', 'put', 'patch', 'delete'].filter((m) => doc.paths['/api/clubs/{code}/'][m]).map((m) => m.toUpperCase()),
    )
  })

  it('keeps the internal catch-all routes, the root redirect and the aliases without a slash out', async () => {
    const { doc } = await openapi()
    const text = JSON.stringify(doc.paths)
    expect(text).not.toContain('/static/')
    expect(text).not.toContain('/swagger')
    expect(Object.keys(doc.paths)).not.toContain('/')
    expect(Object.keys(doc.paths).filter((path) => path.startsWith('/api') && !path.endsWith('/'))).toEqual([
      '/api/changes/stream',
      '/api/clubs/{code}/calendar.ics',
      '/api/calendar.ics',
      '/api/calendars/{token}/meetings.ics',
      '/api/clubs/{code}/qr.svg',
      '/api/logos/{file}',
    ])
  })

  it('types the default answers as clients get them: the whole club, every field required but last_decision', async () => {
    const { doc } = await openapi()
    const { ClubDetail, ClubListItem } = doc.components.schemas
    // last_decision is there for a club's owners, officers and admins only (docs/reference.md §22).
    const always = Object.keys(ClubDetail.properties).filter((field) => field !== 'last_decision')
    expect(ClubDetail.required.sort()).toEqual(always.sort())
    expect(ClubDetail.properties.last_decision.anyOf.map((option: { type: string }) => option.type)).toEqual([
      'object',
      'null',
    ])
    expect(ClubListItem.required.sort()).toEqual(Object.keys(ClubListItem.properties).sort())
    const club = doc.paths['/api/clubs/{code}/']
    for (const [method, status] of [
      ['get', '200'],
      ['put', '200'],
      ['patch', '200'],
    ])
      expect(club[method].responses[status].content).toEqual({
        'application/json': { schema: { $ref: '#/components/schemas/ClubDetail' } },
      })
    expect(doc.paths['/api/clubs/'].post.responses['201'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ClubDetail',
    })
    expect(doc.paths['/api/clubs/'].get.responses['200'].content['application/json'].schema).toEqual({
      anyOf: [
        { type: 'array', items: { $ref: '#/components/schemas/ClubListItem' } },
        { $ref: '#/components/schemas/ClubPage' },
      ],
    })
    // ?fields= answers are said in words where clients read them, not by a looser schema.
    const fields = club.get.parameters.find((p: { name: string }) => p.name === 'fields')
    expect(fields.description).toContain('no other field is required')
  })

  it('says the field errors of a 400 as a map of messages, which generators type', async () => {
    const { doc } = await openapi()
    const { ValidationErrors } = doc.components.schemas
    expect(ValidationErrors.patternProperties).toBeUndefined()
    expect(ValidationErrors.additionalProperties).toEqual({ type: 'array', items: { type: 'string' }, minItems: 1 })
  })

  it('says every map with additionalProperties: no patternProperties anywhere, the import’s bad rows included', async () => {
    const { doc } = await openapi()
    const found: string[] = []
    const walk = (value: unknown, at: string): void => {
      if (value === null || typeof value !== 'object') return
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'patternProperties') found.push(at)
        walk(inner, `${at}/${key}`)
      }
    }
    walk(doc, '#')
    expect(found).toEqual([])
    const refused = doc.paths['/api/imports/'].post.responses['400'].content['application/json'].schema
    const rows = refused.anyOf.find(
      (variant: { properties?: object }) => variant.properties && 'rows' in variant.properties,
    )
    expect(rows.properties.rows).toMatchObject({
      type: 'object',
      additionalProperties: { $ref: '#/components/schemas/ValidationErrors' },
    })
  })

  it('documents every list query parameter of docs/reference.md §6', async () => {
    const { doc } = await openapi()
    const names = doc.paths['/api/clubs/'].get.parameters.map((p: { name: string }) => p.name).sort()
    expect(names).toEqual([...LIST_PARAMS].sort())
  })

  it('documents the write bodies, the error statuses and the bearer scheme', async () => {
    const { doc } = await openapi()
    const create = doc.paths['/api/clubs/'].post
    const schema = create.requestBody.content['application/json'].schema
    expect(schema.required).toEqual(['name'])
    // Only its own fields, and the read-only ones a client may send back (docs/reference.md §3.1), marked so.
    expect(schema.propertyNames.enum.sort()).toEqual(Object.keys(schema.properties).sort())
    const readOnly = Object.keys(schema.properties).filter((name) => schema.properties[name].readOnly)
    expect(readOnly.sort()).toEqual([...READ_ONLY_FIELDS].sort())
    expect(Object.keys(create.responses).sort()).toEqual([
      '201',
      '400',
      '401',
      '403',
      '404',
      '405',
      '413',
      '415',
      '429',
      '503',
    ])
    expect(create.responses['400'].content['application/json'].example).toBeObject()
    expect(create.security).toEqual([{ bearer: [] }])
    const put = doc.paths['/api/clubs/{code}/'].put.requestBody.content['application/json'].schema
    expect(put.required).toContain('size')
    expect(put.required).not.toContain('code')
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' })
  })

  it('labels the coded values, and names them for generated constants', async () => {
    const { doc } = await openapi()
    // Each set of codes is one component, referenced wherever it is used: one named enum in generated code.
    const body = doc.paths['/api/clubs/'].post.requestBody.content['application/json'].schema
    expect(body.properties.size).toEqual({ $ref: '#/components/schemas/Size' })
    const size = doc.components.schemas.Size
    expect(size.description).toBe('1 = 1-20; 2 = 21-50; 3 = 51-100; 4 = 101+')
    expect(size.enum).toEqual([1, 2, 3, 4])
    expect(size['x-enum-varnames']).toEqual(['UpTo20', 'From21To50', 'From51To100', 'Over100'])
    for (const [name, component] of [
      ['size', 'Size'],
      ['application_required', 'ApplicationRequired'],
      ['recruiting_cycle', 'RecruitingCycle'],
    ]) {
      expect(doc.components.schemas.ClubDetail.properties[name]).toEqual({ $ref: `#/components/schemas/${component}` })
      const coded = doc.components.schemas[component!]
      expect(coded['x-enum-varnames'].length).toBe(coded.enum.length)
      for (const varname of coded['x-enum-varnames']) expect(varname).toMatch(/^[A-Z][A-Za-z0-9]*$/)
    }
    expect(doc.info.description).toContain('5 Application and interview required')
  })

  it('gives examples that satisfy their own schemas', async () => {
    const { Value } = await import('@sinclair/typebox/value')
    const { ENDPOINTS } = await import('../src/edge/endpoints')
    const bodies = ENDPOINTS.flatMap((endpoint) =>
      Object.values(endpoint.actions).flatMap((action) => action.body ?? []),
    )
    expect(bodies.length).toBe(18)
    for (const { schema, example } of bodies) expect(Value.Check(schema, example)).toBe(true)
  })
})

describe('the Swagger UI page', () => {
  it('loads its scripts and styles from this service, not a CDN', async () => {
    const { req } = await openapi()
    const res = await req('/swagger')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'")
    const html = await res.text()
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
    expect(urls.length).toBeGreaterThan(0)
    for (const url of urls) {
      expect(url).toStartWith('/swagger/assets/')
      const asset = await req(url)
      expect(asset.status).toBe(200)
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100)
    }
  })

  it('serves no file outside its list', async () => {
    const { req } = await openapi()
    for (const name of ['package.json', '..%2Fpackage.json', 'index.html', 'constructor']) {
      expect((await req(`/swagger/assets/${name}`)).status).toBe(404)
    }
  })
})

// The rules live in the repository (issue 40): docs/reference.md, in numbered sections the code cites
// as `docs/reference.md §N`. Nothing a reader follows may point at files a clone does not have.

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')
const REFERENCE = read('docs/reference.md')

/** The reference's numbered sections ("12", "3.2"), from its headings: `##` or `###`, the section sign, the number, a title. */
const SECTIONS = [...REFERENCE.matchAll(/^#{2,3} §(\d+(?:\.\d+)?) \S/gm)].map((match) => match[1]!)

/** The files the repository tracks, text only: `git ls-files`, less images, workbooks and fonts. */
function trackedTextFiles(): string[] {
  const git = Bun.spawnSync(['git', 'ls-files', '-z'], { cwd: ROOT })
  expect(git.exitCode).toBe(0)
  return git.stdout
    .toString()
    .split('\0')
    .filter((file) => file && !/\.(png|jpe?g|webp|gif|ico|xlsx|woff2?|pdf)$/i.test(file))
    .filter((file) => !read(file).includes('\0'))
}

/**
 * Every section a file cites: `docs/reference.md §12` (also broken over a comment's lines), with the
 * sections listed after it (as in `docs/reference.md §4, §11` or `docs/reference.md §6 and §16`),
 * and links `reference.md#s12`.
 */
function citedSections(text: string): string[] {
  const cited: string[] = []
  const citation = /docs\/reference\.md\s*(?:\*\s*)?§(\d+(?:\.\d+)?)((?:(?:,|,? and| or|\/)\s*§\d+(?:\.\d+)?)*)/g
  for (const [, first, rest] of text.matchAll(citation))
    cited.push(first!, ...[...rest!.matchAll(/§(\d+(?:\.\d+)?)/g)].map((match) => match[1]!))
  for (const [, section] of text.matchAll(/reference\.md#s(\d+(?:\.\d+)?)/g)) cited.push(section!)
  return cited
}

/** The files that may not point outside the repository: every text file it tracks. */
const SELF_CONTAINED = trackedTextFiles

describe('the reference (docs/reference.md)', () => {
  it('has its 25 numbered sections, in order, each heading after its own anchor', () => {
    const whole = SECTIONS.filter((section) => !section.includes('.'))
    expect(whole).toEqual(Array.from({ length: 25 }, (_, i) => String(i + 1)))
    expect(new Set(SECTIONS).size).toBe(SECTIONS.length)
    const lines = REFERENCE.split('\n')
    const unanchored = lines.flatMap((line, i) => {
      const section = /^#{2,3} §(\d+(?:\.\d+)?) /.exec(line)?.[1]
      if (!section) return []
      const before = lines.slice(0, i).findLast((previous) => previous.trim() !== '')
      return before === `<a id="s${section}"></a>` ? [] : [`§${section}`]
    })
    expect(unanchored).toEqual([])
  })

  it('links only files and headings that exist', () => {
    const links = [...REFERENCE.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((match) => match[1]!)
      .filter((link) => !/^[a-z]+:/.test(link))
    expect(links.length).toBeGreaterThan(20)
    const broken = links.filter((link) => {
      const [path = '', anchor] = link.split('#')
      const file = path ? posix.join('docs', path) : 'docs/reference.md'
      try {
        return anchor !== undefined && file.endsWith('.md') && !headingAnchors(read(file)).has(anchor)
      } catch {
        return true
      }
    })
    expect(broken).toEqual([])
  })

  it('is cited only by sections it has', () => {
    const citations = trackedTextFiles().flatMap((file) =>
      citedSections(read(file)).map((section) => ({ file, section })),
    )
    expect(citations.length).toBeGreaterThan(0)
    const known = new Set(SECTIONS)
    expect(
      citations.filter(({ section }) => !known.has(section)).map(({ file, section }) => `${file}: §${section}`),
    ).toEqual([])
  })

  it('finds the citations of every form, and only those', () => {
    const rows: [string, string[]][] = [
      ['the rule (docs/reference.md §12)', ['12']],
      ['docs/reference.md §4, §11 and §3.2', ['4', '11', '3.2']],
      ['docs/reference.md §6 and §16; RFC 5545 §3.1', ['6', '16']],
      ['(docs/reference.md\n * §22): a comment broken over lines', ['22']],
      ['[reference §2](reference.md#s2), [the reference](docs/reference.md#s3.2).', ['2', '3.2']],
      ['issue 24 §5, RFC 9110 §15.4.5, docs/reference.md without a section', []],
    ]
    for (const [text, sections] of rows) expect(citedSections(text)).toEqual(sections)
  })

  it('is all the rules there are: no file a reader follows points outside the repository', () => {
    const outside = [['..', 'shared', ''].join('/'), ['CONTRACT', 'md'].join('.'), ['CONTRACT', '§'].join(' ')]
    const pointing = SELF_CONTAINED().flatMap((file) =>
      read(file)
        .split('\n')
        .flatMap((line, i) =>
          outside.some((needle) => line.includes(needle)) ? [`${file}:${i + 1}: ${line.trim()}`] : [],
        ),
    )
    expect(pointing).toEqual([])
  })
})
