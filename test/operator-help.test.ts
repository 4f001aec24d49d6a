import { describe, expect, it } from 'bun:test'
import { copyFileSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { SEED_FILE, tempDir } from '../harness/app'
import { shellEnvironment } from '../harness/npm-start'
import { ROOT } from '../harness/service'

// Every operator command answers --help (issue 16): its usage on stdout, exit 0, and nothing else
// happens — `npm run reset -- --help` resets nothing, `users:add -- --help` adds no one. Every
// script in scripts/ is one, so a new script cannot forget it.

const SCRIPTS = readdirSync(join(ROOT, 'scripts')).filter((name) => name.endsWith('.ts'))
const dir = tempDir('clubs-help-')
const dataFile = join(dir, 'db.json')

function run(script: string, args: string[]) {
  const result = Bun.spawnSync([process.execPath, join(ROOT, 'scripts', script), ...args], {
    cwd: dir,
    env: shellEnvironment({ CLUBS_DATA_FILE: dataFile, CLUBS_SEED_FILE: SEED_FILE }),
  })
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() }
}

describe('--help', () => {
  copyFileSync(SEED_FILE, dataFile)
  const before = readFileSync(dataFile, 'utf8')

  it('covers the npm scripts that run an operator command', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>
    }
    const commands = Object.values(scripts).flatMap((line) => /^bun scripts\/(\S+\.ts)/.exec(line)?.[1] ?? [])
    expect(commands.length).toBeGreaterThan(0)
    for (const command of commands) expect(SCRIPTS).toContain(command)
  })

  for (const script of SCRIPTS)
    it(`scripts/${script} prints its usage, exits 0 and touches no data`, () => {
      const { code, stdout, stderr } = run(script, ['--help'])
      expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' })
      expect(stdout).toStartWith('usage: ')
      expect(stdout.split('\n').length).toBeGreaterThan(1)
      expect(readdirSync(dir)).toEqual(['db.json'])
      expect(readFileSync(dataFile, 'utf8')).toBe(before)
    })

  it('npm run bench -- --help prints its usage and exits at once, starting no run', () => {
    const result = Bun.spawnSync([process.execPath, join(ROOT, 'bench', 'run.ts'), '--help'], { cwd: dir })
    expect(result.exitCode).toBe(0)
    expect(result.stdout.toString()).toStartWith('usage: npm run bench')
    expect(result.stdout.toString()).toContain('BENCH_SIZES')
    expect(readdirSync(dir)).toEqual(['db.json'])
  })

  it('users:add: an unknown option is a usage error (exit 2, one message), not a stack trace', () => {
    const { code, stdout, stderr } = run('users-add.ts', ['--adm', 'alice'])
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toStartWith("users:add: Unknown option '--adm'")
    expect(stderr.trimEnd().split('\n').at(-1)).toBe('usage: npm run users:add -- <username> [--admin]')
    expect(readFileSync(dataFile, 'utf8')).toBe(before)
  })
})
