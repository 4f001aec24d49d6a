// The layers of src/ and the imports between them. Every .ts file under src/ is read and every
// import in it is checked against the table below: `import`, `import type`, `export … from`,
// `import()` (also in types) and `require()`. Relative imports are resolved to files; packages
// are matched by name. Then the files and their imports form a graph that must have no cycle,
// type-only imports included. The folders around src/ (harness/, test/, scripts/, bench/) are
// held to FOLDERS the same way. The checkers and the cycle finder are also run on small
// in-memory trees (the tables at the end), so they provably fail when they should.
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, posix } from 'node:path'
import ts from 'typescript'
import { ROOT } from '../harness/service'

// ---------------------------------------------------------------------------------------------
// The rules
// ---------------------------------------------------------------------------------------------

/**
 * The layers of src/, and what the files of each may import.
 *   files     folders (ending in "/") or single files, from the repository root; the first row that
 *             matches a file decides its layer.
 *   imports   layers by name; "src" for any file under src/; "type:<file>" for a type-only import of
 *             that one file.
 *   packages  "name" (with its subpaths, "name/x"); "prefix*"; "*" for any package;
 *             "name{a,b}" lets the import name only those bindings (no default, no `* as`).
 */
const LAYERS: readonly LayerRule[] = [
  { layer: 'model', files: ['src/model/'], imports: ['model'], packages: ['elysia{t}', '@sinclair/typebox*'] },
  { layer: 'domain', files: ['src/domain/'], imports: ['model', 'domain'], packages: ['@sinclair/typebox*', 'node:*'] },
  { layer: 'edge', files: ['src/edge/'], imports: ['model', 'domain', 'edge'], packages: ['*'] },
  { layer: 'store', files: ['src/store/'], imports: ['store'], packages: ['*'] },
  // The campus site: another edge beside the API, over the same domain (and the edge's answers).
  { layer: 'site', files: ['src/site/'], imports: ['model', 'domain', 'edge', 'site'], packages: ['*'] },
  {
    layer: 'app',
    files: ['src/app.ts'],
    imports: ['model', 'domain', 'edge', 'site', 'type:src/data-file.ts', 'type:src/config.ts'],
    packages: ['*'],
  },
  {
    layer: 'wiring',
    files: [
      'src/index.ts',
      'src/serve.ts',
      'src/config.ts',
      'src/log.ts',
      'src/healthcheck.ts',
      'src/data-file.ts',
      'src/storage-log.ts',
      'src/sandbox.ts',
      // What the operator's commands (scripts/) run on: a data file opened as the service opens it, --help.
      'src/operator.ts',
      'src/command-help.ts',
    ],
    // package.json: the release the docs name.
    imports: ['src', 'package.json'],
    packages: ['*'],
  },
]

/** Packages only the layers named may import, whatever a row's `packages` says. */
const RESTRICTED_PACKAGES: readonly { package: string; onlyIn: readonly string[] }[] = [
  { package: 'lowdb', onlyIn: ['store'] },
]

/**
 * The two stores and the database client, which only the store layer and the one file that picks
 * a store from the config (src/data-file.ts, the wiring) may name: the domain, the app and the
 * rest of the wiring use the one interface both stores implement (DirectoryStore) and never ask
 * which they have. `module` is a file under src/ or a package; `names` the bindings it may not give.
 */
const STORE_NAMES: readonly { module: string; names: readonly string[] }[] = [
  { module: 'src/store/store.ts', names: ['Store'] },
  { module: 'src/store/postgres-store.ts', names: ['PostgresStore'] },
  { module: 'bun', names: ['SQL', 'ReservedSQL'] },
]
const STORE_PICKERS: readonly string[] = ['src/data-file.ts']

/**
 * The operator's commands: they run on the data the service keeps, so they take nothing from the
 * test harness (what they share is in src/: operator.ts, command-help.ts).
 */
const OPERATOR_COMMANDS: readonly string[] = [
  'scripts/reset.ts',
  'scripts/users-add.ts',
  'scripts/users-token.ts',
  'scripts/data-copy.ts',
]

/**
 * The folders around src/, by what their .ts files may import by relative path (harness/ holds
 * what tests and the longer checks share; neither tests nor scripts import each other). The
 * first row whose folder (or file) a file is in decides.
 */
const FOLDERS: readonly { folder: string; imports: readonly string[] }[] = [
  ...OPERATOR_COMMANDS.map((folder) => ({ folder, imports: ['src/'] })),
  { folder: 'harness/', imports: ['harness/', 'src/'] },
  { folder: 'test/', imports: ['harness/', 'src/'] },
  { folder: 'scripts/', imports: ['harness/', 'src/'] },
  // The PostgreSQL rows start the database as the tests do (issue 28), rather than a copy of it;
  // the memory of a refused import is measured on the file of bad rows a test imports (issue 35), and
  // the tests read a server's RSS as the benchmarks do.
  { folder: 'bench/', imports: ['bench/', 'src/', 'harness/postgres.ts', 'harness/bad-import.ts', 'harness/rss.ts'] },
]

interface LayerRule {
  readonly layer: string
  readonly files: readonly string[]
  readonly imports: readonly string[]
  readonly packages: readonly string[]
}

// ---------------------------------------------------------------------------------------------
// Reading imports
// ---------------------------------------------------------------------------------------------

interface Import {
  /** null for an `import()` whose argument is not a string literal. */
  readonly specifier: string | null
  readonly line: number
  readonly typeOnly: boolean
  /** The bindings named (`default` for a default import); null when the whole module is taken. */
  readonly names: readonly string[] | null
}

/** Every import, `export … from`, `import()` and `require()` in a TypeScript source, comments and strings aside. */
function importsOf(path: string, text: string): Import[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const out: Import[] = []
  const lineOf = (node: ts.Node) => file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1
  const literal = (node: ts.Node | undefined) =>
    node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : null
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause
      const bindings = clause?.namedBindings
      const named = bindings && ts.isNamedImports(bindings) ? bindings.elements : null
      // `import 'x'` and `import * as x from 'x'` take the whole module.
      const whole = !clause || (!!bindings && ts.isNamespaceImport(bindings))
      const names = [...(clause?.name ? ['default'] : []), ...(named ?? []).map((e) => (e.propertyName ?? e.name).text)]
      // `import type …`, or `import { type A, type B } from 'x'`: types only.
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly || (!clause.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly)))
      out.push({ specifier: literal(node.moduleSpecifier), line: lineOf(node), typeOnly, names: whole ? null : names })
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const clause = node.exportClause
      const named = clause && ts.isNamedExports(clause) ? clause.elements : null
      out.push({
        specifier: literal(node.moduleSpecifier),
        line: lineOf(node),
        typeOnly: node.isTypeOnly || (!!named && named.length > 0 && named.every((e) => e.isTypeOnly)),
        names: named ? named.map((e) => (e.propertyName ?? e.name).text) : null,
      })
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      out.push({
        specifier: literal(node.moduleReference.expression),
        line: lineOf(node),
        typeOnly: node.isTypeOnly,
        names: null,
      })
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument
      const spec = ts.isLiteralTypeNode(arg) ? literal(arg.literal) : null
      out.push({ specifier: spec, line: lineOf(node), typeOnly: true, names: null })
    } else if (ts.isCallExpression(node)) {
      const dynamic = node.expression.kind === ts.SyntaxKind.ImportKeyword
      const required = ts.isIdentifier(node.expression) && node.expression.text === 'require'
      if (dynamic || required)
        out.push({ specifier: literal(node.arguments[0]), line: lineOf(node), typeOnly: false, names: null })
    }
    ts.forEachChild(node, visit)
  }
  visit(file)
  return out
}

const isRelative = (specifier: string) => /^\.{1,2}(\/|$)/.test(specifier) || specifier.startsWith('/')

/** The file a relative import means, as Bun resolves it; null when there is none. */
function resolveImport(from: string, specifier: string, isFile: (path: string) => boolean): string | null {
  const base = specifier.startsWith('/') ? posix.normalize(specifier) : posix.join(posix.dirname(from), specifier)
  const tsTwin = base.replace(/\.(m?)js$/, '.$1ts') // `./x.js` written for `./x.ts`
  const candidates = [base, tsTwin, ...['.ts', '.tsx', '.d.ts', '.js', '.mjs', '.json'].map((ext) => base + ext)]
  candidates.push(...['index.ts', 'index.tsx', 'index.js'].map((index) => posix.join(base, index)))
  return candidates.find(isFile) ?? null
}

// ---------------------------------------------------------------------------------------------
// Checking
// ---------------------------------------------------------------------------------------------

/** A tree to check: each file (from the repository root) with its imports resolved. */
type Tree = Map<string, (Import & { readonly target: string | null })[]>

function buildTree(sources: Record<string, string>, isFile: (path: string) => boolean): Tree {
  const tree: Tree = new Map()
  for (const [path, text] of Object.entries(sources).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    tree.set(
      path,
      importsOf(path, text).map((imp) => ({
        ...imp,
        target: imp.specifier !== null && isRelative(imp.specifier) ? resolveImport(path, imp.specifier, isFile) : null,
      })),
    )
  return tree
}

const inRule = (path: string, rule: LayerRule) =>
  rule.files.some((f) => (f.endsWith('/') ? path.startsWith(f) : path === f))
const layerOf = (path: string, rules: readonly LayerRule[]) => rules.find((rule) => inRule(path, rule)) ?? null

/** Whether `pattern` (as the table writes it) lets `imp` in; a string says why not. */
function packageAllowed(imp: Import & { specifier: string }, pattern: string): true | string {
  const m = /^(.*?)(?:\{([^}]*)\})?$/.exec(pattern)!
  const name = m[1]!
  const matches =
    name === '*' ||
    (name.endsWith('*')
      ? imp.specifier.startsWith(name.slice(0, -1))
      : imp.specifier === name || imp.specifier.startsWith(name + '/'))
  if (!matches) return 'no match'
  if (m[2] === undefined) return true
  const allowed = m[2].split(',').map((s) => s.trim())
  const taken = imp.names === null ? ['the whole module'] : imp.names.filter((n) => !allowed.includes(n))
  return taken.length ? `takes ${taken.join(', ')}; only {${allowed.join(', ')}} is allowed` : true
}

const packageName = (specifier: string) =>
  specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!

const describeImport = (file: string, imp: Import & { target: string | null }) =>
  `${file}:${imp.line} → ${imp.specifier === null ? 'import(<not a string literal>)' : `'${imp.specifier}'`}` +
  (imp.target && imp.target !== imp.specifier ? ` (${imp.target})` : '') +
  (imp.typeOnly ? ' [type-only]' : '')

/** Every file outside the layers and every import the table does not allow, as "file:line → import: why". */
function layerViolations(
  tree: Tree,
  rules: readonly LayerRule[] = LAYERS,
  restricted: typeof RESTRICTED_PACKAGES = RESTRICTED_PACKAGES,
): string[] {
  const out: string[] = []
  for (const [file, imports] of tree) {
    const rule = layerOf(file, rules)
    if (!rule) {
      out.push(`${file}: in no layer; add it to LAYERS in test/layers.test.ts`)
      continue
    }
    for (const imp of imports) {
      const what = describeImport(file, imp)
      if (imp.specifier === null) {
        out.push(`${what}: cannot be checked; import a string literal`)
        continue
      }
      if (isRelative(imp.specifier)) {
        const target = imp.target
        if (target === null) {
          out.push(`${what}: does not resolve to a file`)
          continue
        }
        if (!target.startsWith('src/') && !rule.imports.includes(target)) {
          out.push(`${what}: outside src/; ${rule.layer} may import ${rule.imports.join(', ')}`)
          continue
        }
        const targetLayer = layerOf(target, rules)?.layer ?? null
        const ok = rule.imports.some(
          (allowed) =>
            allowed === 'src' ||
            allowed === targetLayer ||
            (allowed.startsWith('type:') && allowed.slice(5) === target && imp.typeOnly),
        )
        if (!ok)
          out.push(
            `${what}: ${rule.layer} may not import ${targetLayer ?? 'a file in no layer'}` +
              `; it may import ${rule.imports.join(', ')}`,
          )
        continue
      }
      const verdicts = rule.packages.map((pattern) => packageAllowed(imp as Import & { specifier: string }, pattern))
      if (!verdicts.includes(true)) {
        const reason = verdicts.find((v) => v !== 'no match')
        out.push(
          `${what}: ${reason ?? `${rule.layer} may import the packages ${rule.packages.join(', ')} and no other`}`,
        )
        continue
      }
      for (const r of restricted)
        if (packageName(imp.specifier) === r.package && !r.onlyIn.includes(rule.layer))
          out.push(`${what}: only ${r.onlyIn.join(', ')} may import ${r.package}`)
    }
  }
  return out
}

/** Imports outside the store layer and STORE_PICKERS that name a store or the database client (type-only ones too). */
function storeNamings(
  tree: Tree,
  names: typeof STORE_NAMES = STORE_NAMES,
  pickers: readonly string[] = STORE_PICKERS,
): string[] {
  const out: string[] = []
  for (const [file, imports] of tree) {
    if (layerOf(file, LAYERS)?.layer === 'store' || pickers.includes(file)) continue
    for (const imp of imports) {
      const module = imp.target ?? (imp.specifier === null ? null : packageName(imp.specifier))
      const rule = names.find((r) => r.module === module)
      if (!rule) continue
      const named = imp.names === null ? rule.names : imp.names.filter((n) => rule.names.includes(n))
      if (named.length)
        out.push(
          `${describeImport(file, imp)}: names ${named.join(', ')}; only the store layer and ${pickers.join(', ')} may (use DirectoryStore)`,
        )
    }
  }
  return out
}

/** The files whose table row names a file or folder that is not in the tree (a stale table). */
function staleRows(tree: Tree, rules: readonly LayerRule[]): string[] {
  const files = [...tree.keys()]
  return rules.flatMap((rule) =>
    rule.files
      .filter((f) => !files.some((path) => (f.endsWith('/') ? path.startsWith(f) : path === f)))
      .map((f) => `${rule.layer}: ${f} is not in src/`),
  )
}

/** Relative imports of the folders around src/ that leave what FOLDERS allows them. */
function folderViolations(tree: Tree, folders: typeof FOLDERS = FOLDERS): string[] {
  const out: string[] = []
  for (const [file, imports] of tree) {
    const rule = folders.find((f) => file.startsWith(f.folder))
    if (!rule) continue
    for (const imp of imports) {
      if (imp.specifier === null || !isRelative(imp.specifier)) continue
      const what = describeImport(file, imp)
      if (imp.target === null) out.push(`${what}: does not resolve to a file`)
      else if (!rule.imports.some((folder) => imp.target!.startsWith(folder)))
        out.push(`${what}: ${rule.folder} may import only ${rule.imports.join(', ')}`)
    }
  }
  return out
}

/**
 * The cycles of a graph: for each strongly connected component with more than one file (or a
 * file importing itself), the shortest cycle through its first file, as a path that ends where
 * it starts. Tarjan's algorithm; components and paths come in a stable order.
 */
function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const components: string[][] = []
  const next = (node: string) => (graph.get(node) ?? []).filter((to) => graph.has(to))
  const connect = (node: string) => {
    index.set(node, index.size)
    low.set(node, index.get(node)!)
    stack.push(node)
    onStack.add(node)
    for (const to of next(node)) {
      if (!index.has(to)) {
        connect(to)
        low.set(node, Math.min(low.get(node)!, low.get(to)!))
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!))
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      components.push(component.sort())
    }
  }
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node)

  const cycles: string[][] = []
  for (const component of components.sort((a, b) => (a[0]! < b[0]! ? -1 : 1))) {
    const start = component[0]!
    if (component.length === 1 && !next(start).includes(start)) continue
    // Breadth-first within the component, back to `start`.
    const members = new Set(component)
    const parent = new Map<string, string>()
    const queue = [start]
    let last: string | null = null
    while (queue.length && last === null) {
      const node = queue.shift()!
      for (const to of [...next(node)].sort()) {
        if (!members.has(to)) continue
        if (to === start) {
          last = node
          break
        }
        if (!parent.has(to)) {
          parent.set(to, node)
          queue.push(to)
        }
      }
    }
    const path = [start]
    for (let node = last!; node !== start; node = parent.get(node)!) path.splice(1, 0, node)
    cycles.push([...path, start])
  }
  return cycles
}

const graphOf = (tree: Tree) =>
  new Map([...tree].map(([file, imports]) => [file, imports.flatMap((imp) => (imp.target ? [imp.target] : []))]))

/** A cycle as "a.ts:3 → b.ts:1 → a.ts", each file with the line of its import of the next one. */
function describeCycle(tree: Tree, cycle: readonly string[]): string {
  return cycle
    .map((file, i) => {
      if (i === cycle.length - 1) return file
      const imp = tree.get(file)?.find((x) => x.target === cycle[i + 1])
      return `${file}:${imp?.line ?? '?'}${imp?.typeOnly ? ' [type-only]' : ''}`
    })
    .join(' → ')
}

// ---------------------------------------------------------------------------------------------
// The tree as it is
// ---------------------------------------------------------------------------------------------

function sourcesUnder(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = posix.join(dir, entry.name)
    if (entry.isDirectory()) Object.assign(out, sourcesUnder(path))
    else if (/\.tsx?$/.test(entry.name)) out[path] = readFileSync(join(ROOT, path), 'utf8')
  }
  return out
}

const isFileOnDisk = (path: string) => {
  try {
    return statSync(join(ROOT, path)).isFile()
  } catch {
    return false
  }
}

describe('the layers of src/', () => {
  const tree = buildTree(sourcesUnder('src'), isFileOnDisk)

  test('the scan finds the source and its imports', () => {
    expect(tree.size).toBeGreaterThan(20)
    expect([...tree.values()].flat().length).toBeGreaterThan(100)
    expect(staleRows(tree, LAYERS)).toEqual([])
  })

  test('every file is in a layer and imports only what its layer may', () => {
    const violations = layerViolations(tree)
    if (violations.length) console.error(`layer violations:\n  ${violations.join('\n  ')}`)
    expect(violations).toEqual([])
  })

  test('only the store layer and src/data-file.ts name a store: everything else uses DirectoryStore', () => {
    const violations = storeNamings(tree)
    if (violations.length) console.error(`store namings:\n  ${violations.join('\n  ')}`)
    expect(violations).toEqual([])
  })

  test('no import cycles (type-only imports count)', () => {
    const cycles = findCycles(graphOf(tree)).map((cycle) => describeCycle(tree, cycle))
    if (cycles.length) console.error(`import cycles:\n  ${cycles.join('\n  ')}`)
    expect(cycles).toEqual([])
  })
})

describe('the folders around src/', () => {
  const tree = buildTree(
    Object.assign({}, ...FOLDERS.flatMap((f) => (f.folder.endsWith('/') ? [sourcesUnder(f.folder)] : []))),
    isFileOnDisk,
  )

  test('tests, scripts, the harness and the benchmarks import only what FOLDERS allows', () => {
    expect(tree.size).toBeGreaterThan(30)
    expect(OPERATOR_COMMANDS.filter((command) => !tree.has(command))).toEqual([])
    const violations = folderViolations(tree)
    if (violations.length) console.error(`folder violations:\n  ${violations.join('\n  ')}`)
    expect(violations).toEqual([])
  })
})

// ---------------------------------------------------------------------------------------------
// The checker on small trees, so it provably can fail
// ---------------------------------------------------------------------------------------------

describe('reading imports', () => {
  const rows: { source: string; expected: Partial<Import>[] }[] = [
    { source: `import { a } from './a'`, expected: [{ specifier: './a', typeOnly: false, names: ['a'] }] },
    { source: `import type { A } from './a'`, expected: [{ specifier: './a', typeOnly: true, names: ['A'] }] },
    { source: `import { type A, type B } from './a'`, expected: [{ typeOnly: true, names: ['A', 'B'] }] },
    { source: `import { type A, b } from './a'`, expected: [{ typeOnly: false, names: ['A', 'b'] }] },
    { source: `import x, { y as z } from 'pkg'`, expected: [{ specifier: 'pkg', names: ['default', 'y'] }] },
    { source: `import * as ns from 'pkg'`, expected: [{ specifier: 'pkg', typeOnly: false, names: null }] },
    { source: `import './side-effect'`, expected: [{ specifier: './side-effect', typeOnly: false, names: null }] },
    { source: `export { a as b } from './a'`, expected: [{ specifier: './a', typeOnly: false, names: ['a'] }] },
    { source: `export * from './a'`, expected: [{ specifier: './a', names: null }] },
    { source: `export type { A } from './a'`, expected: [{ specifier: './a', typeOnly: true }] },
    { source: `export const a = 1\nexport { a as b }`, expected: [] },
    { source: `const m = await import('./lazy')`, expected: [{ specifier: './lazy', typeOnly: false, names: null }] },
    { source: 'const m = await import(`./template`)', expected: [{ specifier: './template' }] },
    { source: `const m = await import(name)`, expected: [{ specifier: null }] },
    { source: `type T = import('./types').T`, expected: [{ specifier: './types', typeOnly: true }] },
    { source: `const fs = require('node:fs')`, expected: [{ specifier: 'node:fs', typeOnly: false }] },
    { source: `import fs = require('node:fs')`, expected: [{ specifier: 'node:fs' }] },
    {
      source: `// import { x } from './in-a-comment'\n/* import './in-a-block' */\nimport {\n  a,\n  b,\n} from './multi'`,
      expected: [{ specifier: './multi', line: 3, names: ['a', 'b'] }],
    },
    { source: `const s = "import x from './in-a-string'"`, expected: [] },
    {
      source: `import { t } from 'elysia'\n\nimport type { X } from '../model/x'`,
      expected: [
        { specifier: 'elysia', line: 1 },
        { specifier: '../model/x', line: 3, typeOnly: true },
      ],
    },
  ]
  test.each(rows.map((row) => ({ ...row, title: JSON.stringify(row.source) })))('$title', ({ source, expected }) => {
    const found = importsOf('src/x.ts', source)
    expect(found.length).toBe(expected.length)
    expected.forEach((want, i) => expect(found[i]).toMatchObject(want))
  })
})

describe('resolving relative imports', () => {
  const files = new Set(['src/a.ts', 'src/dir/index.ts', 'src/data.json', 'src/edge/b.ts'])
  const rows: { from: string; specifier: string; expected: string | null }[] = [
    { from: 'src/edge/b.ts', specifier: '../a', expected: 'src/a.ts' },
    { from: 'src/edge/b.ts', specifier: '../a.js', expected: 'src/a.ts' },
    { from: 'src/edge/b.ts', specifier: '../dir', expected: 'src/dir/index.ts' },
    { from: 'src/a.ts', specifier: './data.json', expected: 'src/data.json' },
    { from: 'src/a.ts', specifier: './edge/b', expected: 'src/edge/b.ts' },
    { from: 'src/a.ts', specifier: './missing', expected: null },
    { from: 'src/a.ts', specifier: '../package.json', expected: null },
  ]
  test.each(rows)('$from imports $specifier', ({ from, specifier, expected }) => {
    expect(resolveImport(from, specifier, (p) => files.has(p))).toBe(expected)
  })
})

describe('the layer rules on small trees', () => {
  // Each row is a tree of files (beside the ones every tree has); `expected` are the violations,
  // each matched as a substring, in order.
  const base = {
    'src/model/club.ts': `import { t } from 'elysia'\nimport { Type } from '@sinclair/typebox'`,
    'src/domain/errors.ts': `export class E {}`,
    'src/edge/respond.ts': `import { E } from '../domain/errors'`,
    'src/store/store.ts': `import { Low } from 'lowdb'\nimport { JSONFile } from 'lowdb/node'`,
    'src/config.ts': `export interface Config {}\nexport const loadConfig = () => ({})`,
    'src/data-file.ts': `import { Low } from './store/store'\nexport type DataFile = {}`,
    'src/app.ts': `import type { Config } from './config'\nimport { type DataFile } from './data-file'`,
    'src/index.ts': `import './app'\nimport './store/store'\nimport { loadConfig } from './config'`,
  }
  const rows: { name: string; tree: Record<string, string>; expected: string[] }[] = [
    { name: 'the base tree is clean', tree: {}, expected: [] },
    {
      name: 'model imports domain',
      tree: { 'src/model/user.ts': `import { E } from '../domain/errors'` },
      expected: [`src/model/user.ts:1 → '../domain/errors' (src/domain/errors.ts): model may not import domain`],
    },
    {
      name: 'domain imports edge',
      tree: { 'src/domain/clubs.ts': `\nimport type { R } from '../edge/respond'` },
      expected: [
        `src/domain/clubs.ts:2 → '../edge/respond' (src/edge/respond.ts) [type-only]: domain may not import edge`,
      ],
    },
    {
      name: 'domain takes a type from elysia',
      tree: { 'src/domain/validate.ts': `import type { TSchema } from 'elysia'` },
      expected: [`src/domain/validate.ts:1 → 'elysia' [type-only]: domain may import the packages`],
    },
    {
      name: 'domain imports @elysiajs and lowdb; node: builtins and typebox are fine',
      tree: {
        'src/domain/x.ts': `import 'node:crypto'\nimport '@sinclair/typebox/compiler'\nimport '@elysiajs/swagger'\nimport 'lowdb'`,
      },
      expected: [`src/domain/x.ts:3 → '@elysiajs/swagger'`, `src/domain/x.ts:4 → 'lowdb'`],
    },
    {
      name: 'model takes more than t from elysia',
      tree: {
        'src/model/a.ts': `import { t, Elysia } from 'elysia'`,
        'src/model/b.ts': `import * as e from 'elysia'`,
        'src/model/c.ts': `import 'node:fs'`,
      },
      expected: [
        `src/model/a.ts:1 → 'elysia': takes Elysia; only {t} is allowed`,
        `src/model/b.ts:1 → 'elysia': takes the whole module`,
        `src/model/c.ts:1 → 'node:fs': model may import the packages elysia{t}, @sinclair/typebox*`,
      ],
    },
    {
      name: 'edge imports lowdb',
      tree: { 'src/edge/x.ts': `import { JSONFile } from 'lowdb/node'` },
      expected: [`src/edge/x.ts:1 → 'lowdb/node': only store may import lowdb`],
    },
    {
      name: 'store imports model',
      tree: { 'src/store/x.ts': `import type { C } from '../model/club'` },
      expected: [`src/store/x.ts:1 → '../model/club' (src/model/club.ts) [type-only]: store may not import model`],
    },
    {
      name: 'a layer imports a top-level file',
      tree: { 'src/edge/x.ts': `import { loadConfig } from '../config'`, 'src/domain/y.ts': `import '../app'` },
      expected: [
        `src/domain/y.ts:1 → '../app' (src/app.ts): domain may not import app`,
        `src/edge/x.ts:1 → '../config' (src/config.ts): edge may not import wiring`,
      ],
    },
    {
      name: 'app takes a value from config and imports the store',
      tree: {
        'src/app.ts': `import { loadConfig } from './config'\nimport type { DataFile } from './data-file'\nimport './store/store'`,
      },
      expected: [
        `src/app.ts:1 → './config' (src/config.ts): app may not import wiring`,
        `src/app.ts:3 → './store/store' (src/store/store.ts): app may not import store`,
      ],
    },
    {
      name: 'imports that resolve to nothing, or outside src/, and files in no layer',
      tree: {
        'src/domain/x.ts': `import './missing'\nimport '../../test/helpers'\nawait import(name)`,
        'src/test/helpers.ts': ``,
        'src/extra.ts': ``,
      },
      expected: [
        `src/domain/x.ts:1 → './missing': does not resolve to a file`,
        `src/domain/x.ts:2 → '../../test/helpers' (test/helpers.ts): outside src/`,
        `src/domain/x.ts:3 → import(<not a string literal>): cannot be checked`,
        `src/extra.ts: in no layer`,
        `src/test/helpers.ts: in no layer`,
      ],
    },
  ]
  test.each(rows)('$name', ({ tree, expected }) => {
    const sources: Record<string, string> = { ...base, ...tree }
    const files = new Set([...Object.keys(sources), 'test/helpers.ts'])
    const violations = layerViolations(buildTree(sources, (p) => files.has(p)))
    expect(violations.length).toBe(expected.length)
    expected.forEach((want, i) => expect(violations[i]).toContain(want))
  })

  test('a table row naming a file that is gone is stale', () => {
    const tree = buildTree(base, () => false)
    expect(staleRows(tree, LAYERS)).toEqual([
      'site: src/site/ is not in src/',
      'wiring: src/serve.ts is not in src/',
      'wiring: src/log.ts is not in src/',
      'wiring: src/healthcheck.ts is not in src/',
      'wiring: src/storage-log.ts is not in src/',
      'wiring: src/sandbox.ts is not in src/',
      'wiring: src/operator.ts is not in src/',
      'wiring: src/command-help.ts is not in src/',
    ])
  })
})

describe('naming a store, on small trees', () => {
  const files = new Set(['src/store/store.ts', 'src/store/postgres-store.ts', 'src/domain/x.ts', 'src/data-file.ts'])
  const rows: { name: string; tree: Record<string, string>; expected: string[] }[] = [
    {
      name: 'the wiring that picks and the store layer may',
      tree: {
        'src/data-file.ts': `import { Store } from './store/store'\nimport { PostgresStore } from './store/postgres-store'`,
        'src/store/x.ts': `import { SQL } from 'bun'\nimport { Store } from './store'`,
      },
      expected: [],
    },
    {
      name: 'the domain names the data file store, PostgreSQL and its client',
      tree: {
        'src/domain/x.ts': `import { Store } from '../store/store'\nimport type { PostgresStore } from '../store/postgres-store'\nimport { SQL } from 'bun'`,
      },
      expected: [
        `src/domain/x.ts:1 → '../store/store' (src/store/store.ts): names Store`,
        `src/domain/x.ts:2 → '../store/postgres-store' (src/store/postgres-store.ts) [type-only]: names PostgresStore`,
        `src/domain/x.ts:3 → 'bun': names SQL`,
      ],
    },
    {
      name: 'the rest of the wiring and the app may take other things from the store, not a store',
      tree: {
        'src/index.ts': `import { StoreError } from './store/store'\nimport * as all from './store/postgres-store'`,
        'src/app.ts': `import type { Server } from 'bun'`,
      },
      expected: [`src/index.ts:2 → './store/postgres-store' (src/store/postgres-store.ts): names PostgresStore`],
    },
  ]
  test.each(rows)('$name', ({ tree, expected }) => {
    const violations = storeNamings(buildTree(tree, (p) => files.has(p) || p in tree))
    expect(violations.length).toBe(expected.length)
    expected.forEach((want, i) => expect(violations[i]).toContain(want))
  })
})

const BENCH_MAY = 'bench/, src/, harness/postgres.ts, harness/bad-import.ts, harness/rss.ts'

describe('the folder rules on small trees', () => {
  const rows: { name: string; tree: Record<string, string>; expected: string[] }[] = [
    {
      name: 'tests and scripts through the harness',
      tree: {
        'test/a.test.ts': `import '../harness/app'\nimport '../src/x'\nimport 'bun:test'`,
        'scripts/s.ts': `import '../harness/app'`,
      },
      expected: [],
    },
    {
      name: 'an operator command imports the harness; a longer check may',
      tree: {
        'scripts/reset.ts': `import '../src/x'\nimport '../harness/app'`,
        'scripts/soak.ts': `import '../harness/app'`,
      },
      expected: [`scripts/reset.ts:2 → '../harness/app' (harness/app.ts): scripts/reset.ts may import only src/`],
    },
    {
      name: 'a script imports a test helper, the harness a script, a test another test',
      tree: {
        'scripts/s.ts': `import '../test/helpers'`,
        'harness/app.ts': `import '../scripts/s'`,
        'test/a.test.ts': `import './helpers'`,
      },
      expected: [
        `harness/app.ts:1 → '../scripts/s' (scripts/s.ts): harness/ may import only harness/, src/`,
        `scripts/s.ts:1 → '../test/helpers' (test/helpers.ts): scripts/ may import only harness/, src/`,
        `test/a.test.ts:1 → './helpers' (test/helpers.ts): test/ may import only harness/, src/`,
      ],
    },
    {
      name: 'the benchmarks import their own files, the PostgreSQL starter, the bad import and the RSS reader, but not the tests or the rest of the harness',
      tree: {
        'bench/run.ts': `import './servers'\nimport '../test/helpers'\nimport '../harness/postgres'\nimport '../harness/app'\nimport '../harness/bad-import'\nimport '../harness/rss'`,
      },
      expected: [
        `bench/run.ts:2 → '../test/helpers' (test/helpers.ts): bench/ may import only ${BENCH_MAY}`,
        `bench/run.ts:4 → '../harness/app' (harness/app.ts): bench/ may import only ${BENCH_MAY}`,
      ],
    },
  ]
  test.each(rows)('$name', ({ tree, expected }) => {
    const files = new Set([
      ...Object.keys(tree),
      'harness/app.ts',
      'harness/postgres.ts',
      'harness/bad-import.ts',
      'harness/rss.ts',
      'src/x.ts',
      'test/helpers.ts',
      'bench/servers.ts',
      'scripts/s.ts',
    ])
    expect(folderViolations(buildTree(tree, (p) => files.has(p)))).toEqual(expected)
  })
})

describe('finding cycles', () => {
  const rows: { name: string; graph: Record<string, string[]>; expected: string[][] }[] = [
    { name: 'no edges', graph: { a: [], b: [] }, expected: [] },
    { name: 'a chain', graph: { a: ['b'], b: ['c'], c: [] }, expected: [] },
    { name: 'a diamond', graph: { a: ['b', 'c'], b: ['d'], c: ['d'], d: [] }, expected: [] },
    { name: 'a file importing itself', graph: { a: ['a'] }, expected: [['a', 'a']] },
    { name: 'two files', graph: { a: ['b'], b: ['a'] }, expected: [['a', 'b', 'a']] },
    {
      name: 'three files and a tail',
      graph: { t: ['a'], a: ['b'], b: ['c'], c: ['a'] },
      expected: [['a', 'b', 'c', 'a']],
    },
    {
      name: 'the shortest way back through the first file',
      graph: { a: ['b', 'c'], b: ['c'], c: ['a'] },
      expected: [['a', 'c', 'a']],
    },
    {
      name: 'two separate cycles',
      graph: { a: ['b'], b: ['a'], x: ['y'], y: ['z'], z: ['x', 'a'] },
      expected: [
        ['a', 'b', 'a'],
        ['x', 'y', 'z', 'x'],
      ],
    },
    { name: 'an import of a file outside the graph', graph: { a: ['elsewhere'], b: ['a'] }, expected: [] },
  ]
  test.each(rows)('$name', ({ graph, expected }) => {
    expect(findCycles(new Map(Object.entries(graph)))).toEqual(expected)
  })

  test('a type-only import closes a cycle too, and the message names each import line', () => {
    const sources = {
      'src/edge/respond.ts': `import { render } from './browsable/render'`,
      'src/edge/browsable/render.ts': `\n\nimport type { Exchange } from '../respond'`,
    }
    const files = new Set(Object.keys(sources))
    const tree = buildTree(sources, (p) => files.has(p))
    expect(findCycles(graphOf(tree)).map((c) => describeCycle(tree, c))).toEqual([
      'src/edge/browsable/render.ts:3 [type-only] → src/edge/respond.ts:1 → src/edge/browsable/render.ts',
    ])
  })
})
