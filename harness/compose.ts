// A small Docker Compose model for rehearsing compose files without Docker (this machine has a
// Docker client without the compose plugin, and no engine): the file parsed with Bun's YAML,
// compose's variable interpolation, and each service in one normal form. A service key the model
// does not know stops the rehearsal with a message naming it, so it never passes over something.

export interface ComposeService {
  name: string
  image: string | null
  build: string | null
  environment: Record<string, string>
  /** The env files it reads (paths as the compose file names them), whose variables `environment` overrides. */
  envFiles: string[]
  /** The secrets' names; each is the file /run/secrets/<name> inside the container. */
  secrets: string[]
  volumes: string[]
  ports: string[]
  dependsOn: Record<string, string>
  healthcheck: Record<string, unknown> | null
}

export interface ComposeFile {
  services: Record<string, ComposeService>
  /** Each secret's file, as the compose file names it (relative to the compose file). */
  secrets: Record<string, string>
  volumes: string[]
}

const SERVICE_KEYS = [
  'image',
  'build',
  'environment',
  'env_file',
  'secrets',
  'volumes',
  'ports',
  'depends_on',
  'healthcheck',
  'restart',
  'stop_grace_period',
]

/** `$$`, `$NAME`, `${NAME}`, `${NAME:-default}`, `${NAME-default}`, `${NAME:?error}`, `${NAME?error}`, as compose reads them. */
export function interpolate(text: string, vars: Record<string, string | undefined>): string {
  return text.replace(
    /\$(?:(\$)|([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\})/g,
    (whole, dollar, bare, name, op, arg) => {
      if (dollar) return '$'
      if (bare) return vars[bare] ?? ''
      const value = vars[name]
      const unset = op?.startsWith(':') ? value === undefined || value === '' : value === undefined
      if (!op || !unset) return value ?? ''
      if (op.endsWith('-')) return arg
      throw new Error(`${whole}: ${arg || `${name} is required`}`)
    },
  )
}

function interpolateAll(value: unknown, vars: Record<string, string | undefined>): unknown {
  if (typeof value === 'string') return interpolate(value, vars)
  if (Array.isArray(value)) return value.map((v) => interpolateAll(v, vars))
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateAll(v, vars)]))
  return value
}

/** Map or `NAME=value` list form → a map; numbers and booleans as the strings the container gets. */
function environment(raw: unknown): Record<string, string> {
  if (Array.isArray(raw))
    return Object.fromEntries(
      raw.map((item: string) => {
        const i = item.indexOf('=')
        return i < 0 ? [item, ''] : [item.slice(0, i), item.slice(i + 1)]
      }),
    )
  return Object.fromEntries(
    Object.entries((raw ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v ?? '')]),
  )
}

/** `env_file` as a list of paths: a string, a list of strings, or (compose 2.24) of `{path, required}`. */
function envFiles(name: string, raw: unknown): string[] {
  if (raw === undefined) return []
  return (Array.isArray(raw) ? raw : [raw]).map((entry: string | { path: string; required?: boolean }) => {
    if (typeof entry === 'string') return entry
    if (entry.required === false) throw new Error(`service ${name}: an env_file that is not required is not modelled`)
    return entry.path
  })
}

/**
 * An env file as compose reads it: `NAME=value` lines, `#` comments and blank lines skipped, a
 * value in matching quotes unquoted; no interpolation (the model's files use none).
 */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line)
    if (!match) throw new Error(`env file: "${line}" is not NAME=value`)
    const value = match[2]!
    out[match[1]!] = /^(['"]).*\1$/.test(value) ? value.slice(1, -1) : value.replace(/\s+#.*$/, '')
  }
  return out
}

function service(name: string, raw: Record<string, any>): ComposeService {
  const unknown = Object.keys(raw).filter((key) => !SERVICE_KEYS.includes(key))
  if (unknown.length) throw new Error(`service ${name}: ${unknown.join(', ')} is not modelled by the rehearsal`)
  const secrets = (raw.secrets ?? []).map((s: string | { source: string; target?: string }) => {
    if (typeof s === 'string') return s
    if (s.target && s.target !== s.source) throw new Error(`service ${name}: a secret's target is not modelled`)
    return s.source
  })
  const dependsOn = Array.isArray(raw.depends_on)
    ? Object.fromEntries(raw.depends_on.map((d: string) => [d, 'service_started']))
    : Object.fromEntries(
        Object.entries((raw.depends_on ?? {}) as Record<string, { condition?: string }>).map(([d, v]) => [
          d,
          v.condition ?? 'service_started',
        ]),
      )
  return {
    name,
    image: raw.image ?? null,
    build: typeof raw.build === 'object' ? (raw.build?.context ?? null) : (raw.build ?? null),
    environment: environment(raw.environment),
    envFiles: envFiles(name, raw.env_file),
    secrets,
    volumes: raw.volumes ?? [],
    ports: (raw.ports ?? []).map(String),
    dependsOn,
    healthcheck: raw.healthcheck ?? null,
  }
}

/** Parses a compose file, every string interpolated from `vars` (the operator's shell and .env). */
export function parseCompose(text: string, vars: Record<string, string | undefined> = {}): ComposeFile {
  const raw = interpolateAll(Bun.YAML.parse(text), vars) as Record<string, any>
  const unknown = Object.keys(raw).filter((key) => !['services', 'secrets', 'volumes'].includes(key))
  if (unknown.length) throw new Error(`${unknown.join(', ')} at the top level is not modelled by the rehearsal`)
  const secrets: Record<string, string> = {}
  for (const [name, spec] of Object.entries((raw.secrets ?? {}) as Record<string, { file?: string }>)) {
    if (!spec?.file) throw new Error(`secret ${name}: only file secrets are modelled`)
    secrets[name] = spec.file
  }
  return {
    services: Object.fromEntries(Object.entries(raw.services ?? {}).map(([n, s]) => [n, service(n, s as any)])),
    secrets,
    volumes: Object.keys(raw.volumes ?? {}),
  }
}

/** The shell commands in the file's opening comment: its lines indented by three spaces or more. */
export function headerCommands(text: string): string[] {
  const header = text.slice(0, text.search(/^[^#\n]/m))
  return [...header.matchAll(/^# {3,}(\S.*)$/gm)].map((m) => m[1]!)
}
