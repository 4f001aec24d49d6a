// The pure parts of the Dockerfile model (harness/dockerfile.ts) the image rehearsal stands
// on (test/docker-rehearsal.test.ts): joining continued lines, splitting and expanding words,
// ENV in both forms, .dockerignore matching, and the WORKDIR and start command of a stage.
// Each row is an input and what Docker makes of it.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  isIgnored,
  logicalLines,
  parseDockerfile,
  parseDockerignore,
  parseEnv,
  stageWorkdir,
  startCommand,
  words,
} from '../harness/dockerfile'
import { ROOT } from '../harness/service'

/** Rows with a one-line title for the test name (inputs span lines). */
const titled = <T extends object>(rows: T[], title: (row: T) => string) =>
  rows.map((row) => ({ ...row, title: title(row) }))

/** The value, or "throws: <message>". */
const attempt = <T>(f: () => T): T | string => {
  try {
    return f()
  } catch (error) {
    return `throws: ${(error as Error).message}`
  }
}

describe('logicalLines', () => {
  const rows: { input: string; expected: { line: number; text: string }[] }[] = [
    {
      input: 'FROM x\nRUN a',
      expected: [
        { line: 1, text: 'FROM x' },
        { line: 2, text: 'RUN a' },
      ],
    },
    {
      input: '\n# a comment\nFROM x\n\n   # an indented comment\nCMD y\n',
      expected: [
        { line: 3, text: 'FROM x' },
        { line: 6, text: 'CMD y' },
      ],
    },
    { input: 'RUN a \\\n  && b', expected: [{ line: 1, text: 'RUN a   && b' }] },
    { input: 'RUN a \\   \n  && b', expected: [{ line: 1, text: 'RUN a   && b' }] }, // spaces after the backslash
    { input: 'ENV A=1 \\\n# a note\n    B=2', expected: [{ line: 1, text: 'ENV A=1     B=2' }] },
    // An empty line does not end a continued instruction (Docker warns, and carries on).
    {
      input: 'RUN a \\\n\n  b\nCMD c',
      expected: [
        { line: 1, text: 'RUN a   b' },
        { line: 4, text: 'CMD c' },
      ],
    },
    {
      input: 'FROM x\nRUN a \\\n b \\\n c\nCMD d',
      expected: [
        { line: 1, text: 'FROM x' },
        { line: 2, text: 'RUN a  b  c' },
        { line: 5, text: 'CMD d' },
      ],
    },
    { input: 'CMD a \\', expected: [{ line: 1, text: 'CMD a' }] }, // a continuation at the end of the file
    {
      input: 'FROM x\r\nRUN y\r\n',
      expected: [
        { line: 1, text: 'FROM x' },
        { line: 2, text: 'RUN y' },
      ],
    },
    { input: 'RUN echo "#not a comment"', expected: [{ line: 1, text: 'RUN echo "#not a comment"' }] },
    { input: '', expected: [] },
  ]
  test.each(titled(rows, (r) => JSON.stringify(r.input)))('$title', ({ input, expected }) => {
    expect(logicalLines(input)).toEqual(expected)
  })
})

describe('words', () => {
  const vars = { A: '1', EMPTY: '', SPACED: 'two words' }
  const rows: { input: string; expected: string[] | string }[] = [
    { input: 'a b  c', expected: ['a', 'b', 'c'] },
    { input: '  leading and trailing  ', expected: ['leading', 'and', 'trailing'] },
    { input: '"two words" x', expected: ['two words', 'x'] },
    { input: 'pre"fix and"post', expected: ['prefix andpost'] },
    { input: '"double $A"', expected: ['double 1'] },
    { input: "'single $A'", expected: ['single $A'] },
    { input: `'it''s'`, expected: ['its'] },
    { input: '$A/x ${A}/y', expected: ['1/x', '1/y'] },
    { input: '${MISSING:-fallback}', expected: ['fallback'] },
    { input: '${A:-fallback}', expected: ['1'] },
    { input: '${EMPTY:-fallback}', expected: ['fallback'] }, // :- also replaces an empty value
    { input: '$SPACED', expected: ['two words'] }, // expansion does not split words
    { input: 'a\\ b', expected: ['a b'] },
    { input: '\\$A', expected: ['$A'] },
    { input: '"a \\" b"', expected: ['a " b'] },
    { input: '$1 $ cost', expected: ['$1', '$', 'cost'] }, // not a name: kept as written
    { input: '""', expected: [''] },
    { input: 'x=""', expected: ['x='] },
    { input: '"unterminated', expected: 'throws: unterminated " in "unterminated' },
    { input: "it's", expected: `throws: unterminated ' in it's` },
  ]
  test.each(titled(rows, (r) => JSON.stringify(r.input)))('$title', ({ input, expected }) => {
    expect(attempt(() => words(input, vars))).toEqual(expected)
  })
})

describe('parseEnv', () => {
  const rows: { input: string; vars?: Record<string, string>; expected: [string, string][] | string }[] = [
    { input: 'A=1', expected: [['A', '1']] },
    {
      input: 'A=1 B="two words"',
      expected: [
        ['A', '1'],
        ['B', 'two words'],
      ],
    },
    { input: 'A=', expected: [['A', '']] },
    { input: 'URL=http://x/?a=b', expected: [['URL', 'http://x/?a=b']] }, // only the first = splits
    { input: 'C=${A}/x', vars: { A: '/app' }, expected: [['C', '/app/x']] },
    // As Docker does, $A expands to its value before this instruction: unset here.
    {
      input: 'A=1 C=$A',
      expected: [
        ['A', '1'],
        ['C', ''],
      ],
    },
    { input: 'LEGACY some value', expected: [['LEGACY', 'some value']] },
    { input: 'LEGACY "quoted  spaces"', expected: [['LEGACY', 'quoted  spaces']] },
    { input: 'LEGACY $A', vars: { A: 'expanded' }, expected: [['LEGACY', 'expanded']] },
    { input: '', expected: 'throws: Dockerfile line 7: ENV needs a name' },
    { input: '=x', expected: 'throws: Dockerfile line 7: ENV needs a name' },
    { input: 'A', expected: 'throws: Dockerfile line 7: ENV A has no value' },
    { input: 'A=1 B', expected: 'throws: Dockerfile line 7: ENV: "B" is not NAME=value (mixing the two ENV forms?)' },
  ]
  test.each(titled(rows, (r) => `ENV ${r.input}`))('$title', ({ input, vars, expected }) => {
    expect(attempt(() => parseEnv(input, vars ?? {}, 7))).toEqual(expected)
  })
})

describe('parseDockerignore', () => {
  const rows: { input: string; expected: { pattern: string; negated: boolean }[] }[] = [
    { input: '', expected: [] },
    { input: '# a comment\n\n   \n', expected: [] },
    { input: 'node_modules', expected: [{ pattern: 'node_modules', negated: false }] },
    // Docker cleans each pattern: no leading "/" or "./", no trailing "/", no "//".
    {
      input: '/data/\n./src//x/\n  spaced  ',
      expected: [
        { pattern: 'data', negated: false },
        { pattern: 'src/x', negated: false },
        { pattern: 'spaced', negated: false },
      ],
    },
    {
      input: '!keep.md\n! also.md',
      expected: [
        { pattern: 'keep.md', negated: true },
        { pattern: 'also.md', negated: true },
      ],
    },
    { input: '.\n/\n./', expected: [] }, // the context root itself is never a pattern
    { input: 'a/../b', expected: [{ pattern: 'b', negated: false }] },
  ]
  test.each(titled(rows, (r) => JSON.stringify(r.input)))('$title', ({ input, expected }) => {
    expect(parseDockerignore(input).map(({ pattern, negated }) => ({ pattern, negated }))).toEqual(expected)
  })
})

describe('isIgnored', () => {
  const rows: { ignore: string; path: string; expected: boolean }[] = [
    { ignore: 'node_modules', path: 'node_modules', expected: true },
    { ignore: 'node_modules', path: 'node_modules/elysia/package.json', expected: true }, // a parent folder matches
    { ignore: 'node_modules', path: 'src/node_modules', expected: false }, // patterns start at the root
    { ignore: 'docs/', path: 'docs/a.png', expected: true },
    { ignore: 'docs/', path: 'src/edge/docs/routes.ts', expected: false },
    { ignore: '**/docs', path: 'src/edge/docs/routes.ts', expected: true },
    { ignore: '/data/db.json*', path: 'data/db.json.lock', expected: true },
    { ignore: '/data/db.json*', path: 'data/seed.json', expected: false },
    { ignore: '*.md', path: 'README.md', expected: true },
    { ignore: '*.md', path: 'docs/notes.md', expected: false }, // * stays within one folder
    { ignore: '*/*.md', path: 'docs/notes.md', expected: true },
    { ignore: '**/*.md', path: 'a/b/c/notes.md', expected: true },
    { ignore: 'a/**/b', path: 'a/b', expected: true }, // **/ may be no folder at all
    { ignore: 'a/**/b', path: 'a/x/y/b/c', expected: true },
    { ignore: 'file?.txt', path: 'file1.txt', expected: true },
    { ignore: 'file?.txt', path: 'file10.txt', expected: false },
    { ignore: 'file?.txt', path: 'file/.txt', expected: false }, // ? is not a /
    { ignore: '[ab].txt', path: 'a.txt', expected: true },
    { ignore: '[ab].txt', path: 'c.txt', expected: false },
    { ignore: '[!ab].txt', path: 'c.txt', expected: true },
    { ignore: '[!ab].txt', path: 'a.txt', expected: false },
    { ignore: '[a-c].txt', path: 'b.txt', expected: true },
    { ignore: 'a.b', path: 'axb', expected: false }, // . is a dot, not any character
    { ignore: 'x+y', path: 'x+y', expected: true },
    { ignore: '.git', path: '.gitignore', expected: false },
    { ignore: '.env.*', path: '.env.production', expected: true },
    { ignore: '.env.*', path: '.env', expected: false },
    { ignore: '*', path: 'anything/at/all', expected: true },
    { ignore: '*.md\n!README.md', path: 'README.md', expected: false },
    { ignore: '*.md\n!README.md', path: 'CONTRIBUTING.md', expected: true },
    { ignore: '!README.md\n*.md', path: 'README.md', expected: true }, // the last matching pattern wins
    { ignore: 'data\n!data/seed.json', path: 'data/seed.json', expected: false },
    { ignore: 'data\n!data/seed.json', path: 'data/db.json', expected: true },
    { ignore: '# node_modules', path: 'node_modules', expected: false },
    { ignore: 'src', path: './src/index.ts', expected: true }, // the path is cleaned too
    { ignore: 'src', path: 'src/', expected: true },
  ]
  test.each(titled(rows, (r) => `${r.path} with ${JSON.stringify(r.ignore)}`))(
    '$title',
    ({ ignore, path, expected }) => {
      expect(isIgnored(parseDockerignore(ignore), path)).toBe(expected)
    },
  )
})

describe("the project's .dockerignore", () => {
  const rules = parseDockerignore(readFileSync(join(ROOT, '.dockerignore'), 'utf8'))
  const rows: { path: string; expected: boolean }[] = [
    { path: 'src/index.ts', expected: false },
    { path: 'src/edge/docs/routes.ts', expected: false },
    { path: 'data/seed.json', expected: false },
    { path: 'package.json', expected: false },
    { path: 'bun.lock', expected: false },
    { path: 'harness/service.ts', expected: true }, // shared by tests and scripts: not in the image
    { path: 'test/layers.test.ts', expected: true },
    { path: 'scripts/reset.ts', expected: true },
    { path: 'bench/run.ts', expected: true },
    { path: 'data/db.json', expected: true },
    { path: '.env', expected: true },
  ]
  test.each(rows)('$path', ({ path, expected }) => {
    expect(isIgnored(rules, path)).toBe(expected)
  })
})

describe('a stage: WORKDIR and the start command', () => {
  const rows: { dockerfile: string; workdir: string; start: string[] }[] = [
    { dockerfile: 'FROM x', workdir: '/', start: [] },
    { dockerfile: 'FROM x\nWORKDIR /app\nWORKDIR sub\nWORKDIR ../other', workdir: '/app/other', start: [] },
    { dockerfile: 'FROM x\nENV D=/srv\nWORKDIR $D/app', workdir: '/srv/app', start: [] },
    { dockerfile: 'FROM x AS a\nWORKDIR /a\nCMD ["run"]\nFROM a\nWORKDIR b', workdir: '/a/b', start: ['run'] },
    { dockerfile: 'FROM x\nCMD bun start.ts', workdir: '/', start: ['/bin/sh', '-c', 'bun start.ts'] },
    { dockerfile: 'FROM x\nENTRYPOINT ["bun"]\nCMD ["src/index.ts"]', workdir: '/', start: ['bun', 'src/index.ts'] },
    // ENTRYPOINT resets a CMD from before it (or from the parent stage).
    { dockerfile: 'FROM x\nCMD ["src/index.ts"]\nENTRYPOINT ["bun"]', workdir: '/', start: ['bun'] },
    { dockerfile: 'FROM x AS a\nCMD ["a"]\nFROM a\nENTRYPOINT ["e"]', workdir: '/', start: ['e'] },
    { dockerfile: 'FROM x\nCMD ["a"]\nCMD ["b"]', workdir: '/', start: ['b'] }, // the last CMD wins
  ]
  test.each(titled(rows, (r) => JSON.stringify(r.dockerfile)))('$title', ({ dockerfile, workdir, start }) => {
    const stage = parseDockerfile(dockerfile).at(-1)!
    expect({ workdir: stageWorkdir(stage), start: startCommand(stage) }).toEqual({ workdir, start })
  })
})
