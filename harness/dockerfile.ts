// A small Dockerfile model for rehearsing the image without Docker (test/docker-rehearsal.test.ts):
// a parser for the instructions this project uses, Docker's .dockerignore matching, and a
// "build" that performs each stage's COPY and RUN in a temp dir standing for the stage's
// filesystem root. An instruction the model does not know stops the rehearsal with a message
// naming it, so the rehearsal can never quietly pass over something the image does.
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { basename, dirname, join, posix, relative } from 'node:path'

// ---------------------------------------------------------------- the parser

export type Step =
  | { kind: 'ENV'; line: number; vars: [string, string][] }
  | { kind: 'ARG'; line: number; name: string; value: string | null }
  | { kind: 'WORKDIR'; line: number; path: string }
  | {
      kind: 'COPY'
      line: number
      from: string | null
      chown: string | null
      chmod: string | null
      sources: string[]
      dest: string
    }
  | { kind: 'RUN'; line: number; command: string[] | string }
  | { kind: 'USER'; line: number; user: string }

export interface Healthcheck {
  line: number
  options: Record<string, string>
  /** null for HEALTHCHECK NONE. */
  command: string[] | null
}

export interface Stage {
  index: number
  /** The earlier stage this one starts from (`FROM deps AS runtime`), if any. */
  parent: Stage | null
  /** The `AS name`, lower-cased as Docker compares it; null when unnamed. */
  name: string | null
  base: string
  line: number
  steps: Step[]
  /** The last of each, as the image ends up with them. */
  user: string | null
  volumes: string[]
  expose: string[]
  healthcheck: Healthcheck | null
  cmd: string[] | null
  entrypoint: string[] | null
  labels: Record<string, string>
}

export class DockerfileError extends Error {
  constructor(line: number, message: string) {
    super(`Dockerfile line ${line}: ${message}`)
  }
}

/** Joins `\` continuations and drops comments and blank lines: one entry per instruction. */
export function logicalLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = []
  let start = 0
  let body: string | null = null
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!
    // Comment and blank lines are dropped, even in the middle of a continued instruction, as
    // Docker does (it warns about an "empty continuation line" but carries on with the instruction).
    if (/^\s*#/.test(raw) || raw.trim() === '') continue
    const continued = /\\\s*$/.test(raw)
    const part = continued ? raw.replace(/\\\s*$/, '') : raw
    if (body === null) {
      start = i + 1
      body = part
    } else body += part
    if (!continued) {
      out.push({ line: start, text: body.trim() })
      body = null
    }
  }
  if (body !== null) out.push({ line: start, text: body.trim() })
  return out
}

/**
 * Splits shell-like words: whitespace separates, "double" and 'single' quotes group, a
 * backslash escapes the next character; `$NAME` and `${NAME}` (and `${NAME:-default}`) expand
 * from `vars` outside single quotes, as Docker's ENV, WORKDIR, COPY and USER do.
 */
export function words(text: string, vars: Record<string, string> = {}): string[] {
  const out: string[] = []
  let word: string | null = null
  let quote: '"' | "'" | null = null
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quote === "'") {
      if (c === "'") quote = null
      else word += c
      continue
    }
    if (c === '\\' && i + 1 < text.length) {
      word = (word ?? '') + text[++i]
      continue
    }
    if (c === '$' && i + 1 < text.length && /[A-Za-z_{]/.test(text[i + 1]!)) {
      const braced = text[i + 1] === '{'
      const m = braced
        ? /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/.exec(text.slice(i))
        : /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(text.slice(i))
      if (m) {
        const value = vars[m[1]!]
        word = (word ?? '') + (value !== undefined && value !== '' ? value : (m[2] ?? ''))
        i += m[0].length - 1
        continue
      }
    }
    if (quote === '"') {
      if (c === '"') quote = null
      else word += c
      continue
    }
    if (c === '"' || c === "'") {
      quote = c
      word = word ?? ''
      continue
    }
    if (/\s/.test(c)) {
      if (word !== null) out.push(word)
      word = null
      continue
    }
    word = (word ?? '') + c
  }
  if (quote) throw new Error(`unterminated ${quote} in ${text}`)
  if (word !== null) out.push(word)
  return out
}

/** `["a", "b"]` (exec form) → the array; anything else → null (shell form). */
function execForm(text: string, line: number): string[] | null {
  if (!text.trimStart().startsWith('[')) return null
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    // Docker falls back to the shell form for invalid JSON; that is almost always a mistake here.
    throw new DockerfileError(line, `not valid JSON (exec form): ${text}`)
  }
  if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === 'string'))
    throw new DockerfileError(line, `the exec form takes an array of strings: ${text}`)
  return parsed
}

/** The exec form, or the shell form wrapped as Docker runs it. */
function command(text: string, line: number): string[] {
  return execForm(text, line) ?? ['/bin/sh', '-c', text]
}

/** Leading `--name=value` flags of COPY, RUN, FROM and HEALTHCHECK. */
function flags(text: string): { flags: Record<string, string>; rest: string } {
  const out: Record<string, string> = {}
  let rest = text.trimStart()
  for (;;) {
    const m = /^--([a-z-]+)(?:=(\S*))?\s*/.exec(rest)
    if (!m) break
    out[m[1]!] = m[2] ?? 'true'
    rest = rest.slice(m[0].length)
  }
  return { flags: out, rest }
}

/** Parses a Dockerfile into its stages, in order. Throws on anything this model does not know. */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = []
  let args: Record<string, string> = {}
  // ENV as far as the parser has got in the current stage, for `$VAR` in later instructions.
  let env: Record<string, string> = {}
  for (const { line, text: instruction } of logicalLines(text)) {
    const m = /^(\S+)\s*([\s\S]*)$/.exec(instruction)!
    const keyword = m[1]!.toUpperCase()
    const rest = m[2]!
    const vars = { ...args, ...env }
    if (keyword === 'FROM') {
      const parts = words(flags(rest).rest, args)
      if (parts.length !== 1 && !(parts.length === 3 && parts[1]!.toUpperCase() === 'AS'))
        throw new DockerfileError(line, `FROM takes an image and optionally AS name: ${rest}`)
      const base = parts[0]!
      const parent = stages.find((s) => s.name !== null && s.name === base.toLowerCase())
      env = parent ? { ...stageEnv(parent) } : {}
      stages.push({
        index: stages.length,
        parent: parent ?? null,
        name: parts[2]?.toLowerCase() ?? null,
        base,
        line,
        steps: [],
        user: parent?.user ?? null,
        volumes: [...(parent?.volumes ?? [])],
        expose: [...(parent?.expose ?? [])],
        healthcheck: parent?.healthcheck ?? null,
        cmd: parent?.cmd ?? null,
        entrypoint: parent?.entrypoint ?? null,
        labels: { ...parent?.labels },
      })
      continue
    }
    if (keyword === 'ARG' && stages.length === 0) {
      const [name, value] = splitAssignment(rest.trim())
      args[name] = value ?? ''
      continue
    }
    const stage = stages.at(-1)
    if (!stage) throw new DockerfileError(line, `${keyword} before the first FROM`)
    switch (keyword) {
      case 'ENV': {
        const vars2 = parseEnv(rest, vars, line)
        for (const [k, v] of vars2) env[k] = v
        stage.steps.push({ kind: 'ENV', line, vars: vars2 })
        break
      }
      case 'ARG': {
        const [name, value] = splitAssignment(rest.trim())
        args = { ...args, [name]: value ?? args[name] ?? '' }
        stage.steps.push({ kind: 'ARG', line, name, value })
        break
      }
      case 'WORKDIR':
        stage.steps.push({ kind: 'WORKDIR', line, path: words(rest, vars).join(' ') })
        break
      case 'COPY': {
        const f = flags(rest)
        const unknown = Object.keys(f.flags).filter((k) => !['from', 'chown', 'chmod', 'link'].includes(k))
        if (unknown.length) throw new DockerfileError(line, `COPY --${unknown[0]} is not modelled by the rehearsal`)
        const parts = execForm(f.rest, line) ?? words(f.rest, vars)
        if (parts.length < 2) throw new DockerfileError(line, `COPY needs a source and a destination: ${rest}`)
        stage.steps.push({
          kind: 'COPY',
          line,
          from: f.flags.from?.toLowerCase() ?? null,
          chown: f.flags.chown ?? null,
          chmod: f.flags.chmod ?? null,
          sources: parts.slice(0, -1),
          dest: parts.at(-1)!,
        })
        break
      }
      case 'RUN': {
        const f = flags(rest)
        stage.steps.push({ kind: 'RUN', line, command: execForm(f.rest, line) ?? f.rest })
        break
      }
      case 'USER':
        stage.user = words(rest, vars).join(' ')
        stage.steps.push({ kind: 'USER', line, user: stage.user })
        break
      case 'VOLUME':
        stage.volumes.push(...(execForm(rest, line) ?? words(rest, vars)))
        break
      case 'EXPOSE':
        stage.expose.push(...words(rest, vars))
        break
      case 'HEALTHCHECK': {
        const f = flags(rest)
        if (/^NONE\s*$/i.test(f.rest)) stage.healthcheck = { line, options: f.flags, command: null }
        else {
          const cm = /^CMD\s+([\s\S]+)$/i.exec(f.rest)
          if (!cm) throw new DockerfileError(line, `HEALTHCHECK takes NONE or [options] CMD command: ${rest}`)
          stage.healthcheck = { line, options: f.flags, command: command(cm[1]!, line) }
        }
        break
      }
      case 'CMD':
        stage.cmd = command(rest, line)
        break
      case 'ENTRYPOINT':
        stage.entrypoint = command(rest, line)
        // Docker resets an inherited CMD when ENTRYPOINT is set.
        stage.cmd = null
        break
      case 'LABEL':
        for (const [k, v] of parseEnv(rest, vars, line)) stage.labels[k] = v
        break
      case 'STOPSIGNAL':
        if (!/^(SIGTERM|15)$/i.test(rest.trim()))
          throw new DockerfileError(line, `STOPSIGNAL ${rest}: the rehearsal stops the service with SIGTERM only`)
        break
      default:
        throw new DockerfileError(line, `${keyword} is not modelled by the rehearsal (harness/dockerfile.ts)`)
    }
  }
  if (stages.length === 0) throw new DockerfileError(1, 'no FROM')
  return stages
}

function splitAssignment(text: string): [string, string | null] {
  const i = text.indexOf('=')
  if (i < 0) return [text, null]
  return [text.slice(0, i), words(text.slice(i + 1)).join(' ')]
}

/** `ENV A=b C="d e"` (any number, on continued lines) or the old `ENV A b c` (A is "b c"). */
export function parseEnv(text: string, vars: Record<string, string>, line = 0): [string, string][] {
  const trimmed = text.trim()
  const first = /^[^\s=]+/.exec(trimmed)?.[0] ?? ''
  if (!first) throw new DockerfileError(line, 'ENV needs a name')
  if (trimmed[first.length] !== '=') {
    const value = trimmed.slice(first.length).trim()
    if (!value) throw new DockerfileError(line, `ENV ${first} has no value`)
    return [[first, words(value, vars).join(' ')]]
  }
  // Each word is NAME=value; a value may be quoted or empty, and expands from earlier ENV only.
  return words(trimmed, vars).map((word) => {
    const i = word.indexOf('=')
    if (i <= 0) throw new DockerfileError(line, `ENV: "${word}" is not NAME=value (mixing the two ENV forms?)`)
    return [word.slice(0, i), word.slice(i + 1)] as [string, string]
  })
}

/** The stage's ENV as the image has it (later ENV wins). */
export function stageEnv(stage: Stage): Record<string, string> {
  const env: Record<string, string> = stage.parent ? stageEnv(stage.parent) : {}
  for (const step of stage.steps) if (step.kind === 'ENV') for (const [k, v] of step.vars) env[k] = v
  return env
}

/** The stage's final WORKDIR ("/" when none). */
export function stageWorkdir(stage: Stage): string {
  let dir = stage.parent ? stageWorkdir(stage.parent) : '/'
  for (const step of stage.steps) if (step.kind === 'WORKDIR') dir = posix.resolve(dir, step.path)
  return dir
}

/** What `docker run` starts: ENTRYPOINT + CMD. */
export function startCommand(stage: Stage): string[] {
  return [...(stage.entrypoint ?? []), ...(stage.cmd ?? [])]
}

// ---------------------------------------------------------------- .dockerignore

export interface IgnoreRule {
  pattern: string
  negated: boolean
  regex: RegExp
}

/** Docker's .dockerignore: one pattern a line, `#` comments, `!` exceptions, paths from the context root. */
export function parseDockerignore(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = []
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim()
    if (!line || line.startsWith('#')) continue
    const negated = line.startsWith('!')
    if (negated) line = line.slice(1).trim()
    // Docker cleans each pattern: no leading "/" or "./", no trailing "/".
    const pattern = posix
      .normalize(line)
      .replace(/^(\.\/|\/)+/, '')
      .replace(/\/+$/, '')
    if (!pattern || pattern === '.') continue
    rules.push({ pattern, negated, regex: globRegex(pattern) })
  }
  return rules
}

/** Go's filepath.Match plus `**`: `*` and `?` stay within one path segment, `**` crosses them. */
function globRegex(pattern: string): RegExp {
  let re = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === '*' && pattern[i + 1] === '*') {
      i++
      if (pattern[i + 1] === '/') {
        i++
        re += '(?:.*/)?'
      } else re += '.*'
    } else if (c === '*') re += '[^/]*'
    else if (c === '?') re += '[^/]'
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1)
      if (end < 0) re += '\\['
      else {
        re +=
          '[' +
          pattern
            .slice(i + 1, end)
            .replace(/^\^/, '^')
            .replace(/^!/, '^')
            .replace(/\\/g, '\\\\') +
          ']'
        i = end
      }
    } else if (c === '\\' && i + 1 < pattern.length) re += '\\' + pattern[++i]
    else re += c.replace(/[.+^${}()|\]\\]/g, '\\$&')
  }
  return new RegExp(`^${re}$`)
}

/**
 * Whether the context path `rel` (posix, from the context root) is left out of the build.
 * As Docker does: a pattern matching the path or one of its parent folders decides; the last
 * deciding pattern wins, so `!` can re-include what an earlier pattern left out.
 */
export function isIgnored(rules: IgnoreRule[], rel: string): boolean {
  const path = posix
    .normalize(rel)
    .replace(/^(\.\/|\/)+/, '')
    .replace(/\/+$/, '')
  const prefixes: string[] = []
  const parts = path.split('/')
  for (let i = 1; i <= parts.length; i++) prefixes.push(parts.slice(0, i).join('/'))
  let ignored = false
  for (const rule of rules) if (prefixes.some((p) => rule.regex.test(p))) ignored = !rule.negated
  return ignored
}

// ---------------------------------------------------------------- the rehearsal

export class RehearsalError extends Error {}

export interface BuiltStage {
  stage: Stage
  /** The temp dir standing for the stage's `/`. */
  root: string
  env: Record<string, string>
  workdir: string
  /** Every `chown` the stage's RUN steps asked for (a no-op here): the owner and the paths. */
  chowns: { owner: string; paths: string[] }[]
  /** The users the stage's RUN steps created (useradd, adduser). */
  usersCreated: string[]
}

export interface RehearsalOptions {
  /** The build context (the repository). */
  context: string
  /** The Dockerfile's text, and the .dockerignore's ('' for none). */
  dockerfile: string
  dockerignore: string
  /** An empty dir; each stage gets `<workRoot>/<n>-<name>` as its `/`. */
  workRoot: string
  /** The Bun binary standing in for the image's `bun`. */
  bun: string
  /** Seconds a RUN may take. */
  runTimeoutS?: number
  /** Called with each RUN's output, for the test log. */
  log?: (text: string) => void
}

/** A folder of stand-ins, first on PATH: `bun` (and `bunx`), and user commands that need the image's users. */
function makeShims(dir: string, bun: string, chownLog: string, userLog: string) {
  mkdirSync(dir, { recursive: true })
  symlinkSync(bun, join(dir, 'bun'))
  symlinkSync(bun, join(dir, 'bunx'))
  // chown/chgrp: the image's users do not exist on this machine. Log the request, check that
  // every path exists (what would fail in the image too), change nothing.
  const chown = `#!/bin/sh
owner=
for a in "$@"; do
  case "$a" in -*) continue ;; esac
  if [ -z "$owner" ]; then owner="$a"; printf '%s' "$owner" >> '${chownLog}'; continue; fi
  if [ ! -e "$a" ]; then echo "chown: cannot access '$a': No such file or directory" >&2; exit 1; fi
  printf '\\t%s' "$a" >> '${chownLog}'
done
echo >> '${chownLog}'
`
  for (const name of ['chown', 'chgrp']) {
    writeFileSync(join(dir, name), chown)
    chmodSync(join(dir, name), 0o755)
  }
  const addUser = `#!/bin/sh
for a in "$@"; do last="$a"; done
echo "$last" >> '${userLog}'
`
  for (const name of ['useradd', 'adduser', 'groupadd', 'addgroup', 'usermod']) {
    writeFileSync(join(dir, name), name.includes('group') ? '#!/bin/sh\nexit 0\n' : addUser)
    chmodSync(join(dir, name), 0o755)
  }
}

/** The host path of `imagePath` inside a rehearsed stage. */
export function hostPath(root: string, imagePath: string): string {
  return join(root, posix.resolve('/', imagePath))
}

/**
 * The environment with every value that is an absolute path into the stage's own files (its
 * first folder exists in the rehearsed root, e.g. `/app/...`) mapped into the rehearsed root.
 */
export function mapEnv(root: string, env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(env)) {
    const top = /^\/([^/]+)(\/|$)/.exec(v)?.[1]
    out[k] = top && existsSync(join(root, top)) ? hostPath(root, v) : v
  }
  return out
}

/** Rewrites absolute paths in a RUN command into the rehearsed root; refuses other absolute paths. */
function mapCommand(root: string, cmd: string, line: number): string {
  const tops = readdirSync(root).filter((name) => !name.startsWith('.shims'))
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  // One pass, so a mapped path (itself under /tmp) is not mapped again.
  const re = new RegExp(`(^|[\\s=:'"(])/(${tops.map(escape).join('|')})(?=[/\\s'";)&|]|$)`, 'g')
  const mapped = tops.length ? cmd.replace(re, (_, before: string, top: string) => `${before}${join(root, top)}`) : cmd
  // Paths outside the stage (/usr, /var, /etc, …) would be this machine's own: refuse to touch them.
  const outside = [...mapped.matchAll(/(?:^|[\s=:'"(])(\/[^\s'";)&|]*)/g)]
    .map((m) => m[1]!)
    .filter((p) => !p.startsWith(root) && p !== '/dev/null')
  if (outside.length)
    throw new RehearsalError(
      `Dockerfile line ${line}: RUN uses ${outside.join(', ')}, outside what the rehearsal models; extend harness/dockerfile.ts`,
    )
  return mapped
}

async function run(
  argv: string[],
  options: { cwd: string; env: Record<string, string>; timeoutS: number },
): Promise<{ code: number; output: string }> {
  const proc = Bun.spawn(argv, { cwd: options.cwd, env: options.env, stdout: 'pipe', stderr: 'pipe' })
  const timer = setTimeout(() => proc.kill('SIGKILL'), options.timeoutS * 1000)
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  clearTimeout(timer)
  return { code, output: stdout + stderr }
}

/** The PATH a rehearsed stage's processes see: the stand-ins, then this machine's basics (sh, mkdir). */
export function stagePath(built: BuiltStage): string {
  return `${join(built.root, '.shims')}:/usr/bin:/bin`
}

/** Performs every stage: COPY from the context (minus .dockerignore) or an earlier stage, RUN with `sh -c`. */
export async function rehearseBuild(options: RehearsalOptions): Promise<BuiltStage[]> {
  const stages = parseDockerfile(options.dockerfile)
  const rules = parseDockerignore(options.dockerignore)
  const built: BuiltStage[] = []
  for (const stage of stages) {
    const root = join(options.workRoot, `${stage.index}-${stage.name ?? 'stage'}`)
    mkdirSync(root, { recursive: true })
    const parent = built.find((b) => b.stage.name !== null && b.stage.name === stage.base.toLowerCase())
    if (parent) cpSync(parent.root, root, { recursive: true, verbatimSymlinks: true })
    const chownLog = join(root, '.shims-chown.log')
    const userLog = join(root, '.shims-users.log')
    writeFileSync(chownLog, '')
    writeFileSync(userLog, '')
    rmSync(join(root, '.shims'), { recursive: true, force: true })
    makeShims(join(root, '.shims'), options.bun, chownLog, userLog)
    // The base image's HOME for root; a fresh one, so `bun install` starts with an empty cache as in the image.
    mkdirSync(join(root, 'root'), { recursive: true })
    const b: BuiltStage = {
      stage,
      root,
      env: parent ? { ...parent.env } : {},
      workdir: parent?.workdir ?? '/',
      chowns: [],
      usersCreated: [],
    }
    const fail = (line: number, message: string): never => {
      throw new RehearsalError(`Dockerfile line ${line} (stage ${stage.name ?? stage.index}): ${message}`)
    }
    for (const step of stage.steps) {
      switch (step.kind) {
        case 'ENV':
          for (const [k, v] of step.vars) b.env[k] = v
          break
        case 'ARG':
          break
        case 'USER':
          break
        case 'WORKDIR':
          b.workdir = posix.resolve(b.workdir, step.path)
          mkdirSync(hostPath(root, b.workdir), { recursive: true })
          break
        case 'COPY': {
          const destIsDir = step.dest.endsWith('/') || step.sources.length > 1
          const dest = hostPath(root, posix.resolve(b.workdir, step.dest))
          let from: { root: string; ignore: IgnoreRule[] } = { root: options.context, ignore: rules }
          if (step.from !== null) {
            const source = built.find((s) => s.stage.name === step.from || String(s.stage.index) === step.from)
            if (!source)
              fail(step.line, `COPY --from=${step.from}: no earlier stage of that name (images are not modelled)`)
            from = { root: source!.root, ignore: [] }
          }
          for (const src of step.sources) {
            const matches = expandSource(from.root, src, from.ignore)
            if (matches.length === 0)
              fail(
                step.line,
                `COPY ${src}: not found in ${step.from === null ? 'the build context' : `stage ${step.from}`}` +
                  (step.from === null && existsSync(join(from.root, src)) ? ' (left out by .dockerignore)' : ''),
              )
            for (const rel of matches) copyInto(from.root, rel, from.ignore, dest, destIsDir || isDir(dest))
          }
          break
        }
        case 'RUN': {
          const env = {
            ...mapEnv(root, b.env),
            PATH: stagePath(b),
            HOME: join(root, 'root'),
            TMPDIR: join(root, 'tmp'),
          }
          mkdirSync(env.TMPDIR, { recursive: true })
          const argv = Array.isArray(step.command)
            ? step.command.map((arg, i) => (i === 0 ? arg : mapCommand(root, arg, step.line)))
            : ['sh', '-c', mapCommand(root, step.command, step.line)]
          const cwd = hostPath(root, b.workdir)
          mkdirSync(cwd, { recursive: true })
          const result = await run(argv, { cwd, env, timeoutS: options.runTimeoutS ?? 120 })
          options.log?.(
            `[${stage.name ?? stage.index}] RUN ${Array.isArray(step.command) ? JSON.stringify(step.command) : step.command}\n${result.output}`,
          )
          if (result.code !== 0) fail(step.line, `RUN exited with ${result.code}:\n${result.output}`)
          break
        }
      }
    }
    for (const entry of readFileSync(chownLog, 'utf8').split('\n').filter(Boolean)) {
      const [owner, ...paths] = entry.split('\t')
      b.chowns.push({ owner: owner!, paths: paths.map((p) => '/' + relative(root, p)) })
    }
    b.usersCreated = readFileSync(userLog, 'utf8').split('\n').filter(Boolean)
    built.push(b)
  }
  return built
}

function isDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory()
  } catch {
    return false
  }
}

/** The paths (relative to `root`) a COPY source names: itself, or its glob matches; never an ignored one. */
function expandSource(root: string, src: string, ignore: IgnoreRule[]): string[] {
  const rel = posix.normalize(src).replace(/^(\.\/|\/)+/, '') || '.'
  if (rel.startsWith('..')) throw new RehearsalError(`COPY ${src}: outside the build context`)
  if (/[*?[]/.test(rel)) {
    return [...new Bun.Glob(rel).scanSync({ cwd: root, onlyFiles: false, dot: true })]
      .filter((m) => !isIgnored(ignore, m))
      .sort()
  }
  if (!existsSync(join(root, rel)) || (rel !== '.' && isIgnored(ignore, rel))) return []
  return [rel]
}

/** Docker's COPY: a folder's contents go into the destination; a file goes to it, or into it when it is a folder. */
function copyInto(root: string, rel: string, ignore: IgnoreRule[], dest: string, destIsDir: boolean) {
  const src = join(root, rel)
  const filter = (path: string) => {
    const r = relative(root, path).split('\\').join('/')
    return r === '' || !isIgnored(ignore, r)
  }
  if (isDir(src)) {
    mkdirSync(dest, { recursive: true })
    cpSync(src, dest, { recursive: true, filter, verbatimSymlinks: true })
    return
  }
  const target = destIsDir ? join(dest, basename(rel)) : dest
  mkdirSync(dirname(target), { recursive: true })
  cpSync(src, target, { verbatimSymlinks: true })
}

/** The stand-in for a command the image runs (`bun`, `/usr/local/bin/bun`): found among the shims or refused. */
export function standIn(built: BuiltStage, argv0: string): string {
  const shim = join(built.root, '.shims', basename(argv0))
  if (!existsSync(shim))
    throw new RehearsalError(`the rehearsal has no stand-in for ${argv0}; extend harness/dockerfile.ts`)
  return shim
}
