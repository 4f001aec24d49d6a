// The shell examples of the README and the guides in docs/, as test/readme.test.ts runs them: the
// files of EXAMPLE_FILES one after the other, in each every ```sh (or bash, shell) block in order,
// but those whose info string says `no-run` (they need what a test machine lacks: docker, a real
// identity provider, a stopped server, minutes). In a block:
//   - a command is a line, with the lines after it while it ends in "\";
//   - its trailing comment, or a comment line right below it, that starts with a status
//     (`# 201 ...`, `# 400: ...`) says the answer's status; otherwise any status below 400 will do;
//   - `NAME=<what to paste>` (or `export NAME=<...>`) is a placeholder for a token the reader
//     copies from an earlier answer; the test fills it in.

import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The files whose examples run, in this order, against one server: each example runs against the
 * state the ones before it left, in its file and in the files above it here (the README's taste and
 * the hackathon's first requests only read; docs/api.md makes the users, clubs and tags it then uses).
 */
export const EXAMPLE_FILES = [
  'README.md',
  'docs/hackathon.md',
  'docs/api.md',
  'docs/campus.md',
  'docs/development.md',
] as const

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

/** A command of one of EXAMPLE_FILES: which file it stands in, and where. */
export interface Example extends Command {
  /** Its file, relative to the repository. */
  readonly file: string
}

/** The commands of every file, in the order of `files`, each named by its file. */
export function examplesOf(root: string, files: readonly string[] = EXAMPLE_FILES): Example[] {
  return files.flatMap((file) =>
    shellExamples(readFileSync(join(root, file), 'utf8')).map((command) => ({ ...command, file })),
  )
}

/** The anchors GitHub gives a file's headings (outside code blocks): lowercased, punctuation dropped, spaces made "-"; a repeated one gets "-1", "-2", ...; and the ids of its `<a id>` anchors. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fence = false
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fence = !fence
    // An anchor of its own (`<a id="s12"></a>`, as the reference gives each numbered section).
    if (!fence) for (const [, id] of line.matchAll(/<a id="([^"]+)"><\/a>/g)) anchors.add(id!)
    const heading = !fence && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const slug = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

/**
 * A command that runs `bun` by name, with an argument (the `bun` user is no command): at its start or
 * after `;`, `&`, `|` or `(`, behind variables or `exec`/`time`/`env`.
 */
const BARE_BUN = /(?:^|[;&|(])\s*(?:(?:[A-Za-z_]\w*=\S*|exec|time|nohup|env)\s+)*bun\s+\S/
const SPAN = /(`+)([\s\S]*?[^`])\1(?!`)/g
const COMMAND_BLOCKS = new Set(['', 'sh', 'bash', 'shell', 'console', 'zsh'])

/** Where a line number falls: the number of newlines before `index`, from 1. */
const lineAt = (text: string, index: number) => text.slice(0, index).split('\n').length

/**
 * The commands of a file that call `bun` as if it were on PATH, which on a fresh machine it is not
 * (it is in node_modules/.bin: `npx bun ...` or an npm script finds it): every line of a shell (or
 * untagged) block, runnable or not, and every inline code span, in prose or in a code block's comments.
 */
export function bareBunCommands(markdown: string): { line: number; text: string }[] {
  const found: { line: number; text: string }[] = []
  const lines = markdown.split('\n')
  // Prose keeps its line numbers with the blocks' lines blanked; spans may run over a line break.
  const prose = [...lines]
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!)
    if (!open) continue
    const language = infoWords(open[2]!)[0] ?? ''
    for (prose[i] = '', i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]!); prose[i] = '', i++) {
      const line = lines[i]!
      const command = line.slice(0, line.length - (trailingComment(line)?.length ?? 0)).replace(/^\s*\$\s/, '')
      if (COMMAND_BLOCKS.has(language) && BARE_BUN.test(command)) found.push({ line: i + 1, text: line.trim() })
      for (const span of line.matchAll(SPAN))
        if (BARE_BUN.test(span[2]!.trim())) found.push({ line: i + 1, text: span[2]!.trim() })
    }
    prose[i] = ''
  }
  const text = prose.join('\n')
  for (const span of text.matchAll(SPAN))
    if (BARE_BUN.test(span[2]!.trim()))
      found.push({ line: lineAt(text, span.index!), text: span[2]!.replace(/\s+/g, ' ').trim() })
  return found.sort((a, b) => a.line - b.line)
}
