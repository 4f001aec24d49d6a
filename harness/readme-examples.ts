// The README's shell examples, as test/readme.test.ts runs them: every ```sh (or bash, shell)
// block in order, but those whose info string says `no-run` (they need what a test machine lacks:
// docker, a real identity provider, a stopped server, minutes). In a block:
//   - a command is a line, with the lines after it while it ends in "\";
//   - its trailing comment, or a comment line right below it, that starts with a status
//     (`# 201 ...`, `# 400: ...`) says the answer's status; otherwise any status below 400 will do;
//   - `NAME=<what to paste>` (or `export NAME=<...>`) is a placeholder for a token the reader
//     copies from an earlier answer; the test fills it in.

export interface Command {
  /** Its text, continuation lines included. */
  readonly text: string
  /** Its first line's number in the file (from 1). */
  readonly line: number
  /** The status its comment states, or null: then any status below 400. */
  readonly status: number | null
  /** `NAME=<...>`: the variable a reader fills in by hand. */
  readonly placeholder: string | null
}

const FENCE = /^(\s*)```(.*)$/
const SHELLS = new Set(['sh', 'bash', 'shell'])
const STATUS = /^#\s*([1-5]\d\d)\b/
const PLACEHOLDER = /^(?:export\s+)?([A-Z][A-Z0-9_]*)=<[^>]*>\s*(?:#.*)?$/

/** The info string's words: ```sh no-run → ['sh', 'no-run']. */
const infoWords = (info: string) => info.trim().split(/\s+/).filter(Boolean)

/** Whether a block with this info string is run. */
export function runs(info: string): boolean {
  const [language = '', ...rest] = infoWords(info)
  return SHELLS.has(language) && !rest.includes('no-run')
}

/** The comment that ends a command line (a `#` outside quotes, at the start or after a space), or null. */
export function trailingComment(line: string): string | null {
  let quote: string | null = null
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (quote) {
      if (c === '\\' && quote === '"') i++
      else if (c === quote) quote = null
    } else if (c === "'" || c === '"') quote = c
    else if (c === '\\') i++
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(i)
  }
  return null
}

const statusOf = (comment: string | null) => {
  const match = comment && STATUS.exec(comment)
  return match ? Number(match[1]) : null
}

/** The commands of one block's lines (its indentation removed), numbered from `firstLine`. */
function commandsOf(lines: readonly string[], firstLine: number): Command[] {
  const commands: Command[] = []
  let previous: { command: Command; index: number } | null = null
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (line.trim() === '') {
      previous = null
      continue
    }
    if (line.trimStart().startsWith('#')) {
      // A comment line right below a command may state its status.
      const status = statusOf(line.trimStart())
      if (previous && previous.command.status === null && status !== null)
        commands[previous.index] = { ...previous.command, status }
      previous = null
      continue
    }
    const start = i
    const parts = [line]
    while (parts.at(-1)!.endsWith('\\') && i + 1 < lines.length) parts.push(lines[++i]!)
    const text = parts.join('\n')
    const command: Command = {
      text,
      line: firstLine + start,
      status: statusOf(trailingComment(parts.at(-1)!)),
      placeholder: PLACEHOLDER.exec(text.trim())?.[1] ?? null,
    }
    commands.push(command)
    previous = { command, index: commands.length - 1 }
  }
  return commands
}

/** The commands of every block that runs, in the order of the file. */
export function shellExamples(markdown: string): Command[] {
  const lines = markdown.split('\n')
  const commands: Command[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!)
    if (!open) continue
    const indent = open[1]!.length
    const body: string[] = []
    const first = i + 2
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]!); i++) body.push(lines[i]!.slice(indent))
    if (runs(open[2]!)) commands.push(...commandsOf(body, first))
  }
  return commands
}

/** The shell variables the examples set (`NAME=...`, `export NAME=...`), which carry from one command to the next. */
export function variablesOf(commands: readonly Command[]): string[] {
  const names = commands.flatMap((c) => [...c.text.matchAll(/(?:^|[\s;&|(])(?:export\s+)?([A-Z][A-Z0-9_]*)=/g)])
  return [...new Set(names.map((match) => match[1]!))]
}
