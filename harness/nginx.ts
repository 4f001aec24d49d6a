import type { Subprocess } from 'bun'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { sleep } from './service'

/**
 * Debian's nginx as the tests run it: in the foreground, every file it writes in `dir`, and an
 * http block holding `server` (a `server { ... }` block). Resolves once `ready` says it answers;
 * fails, with nginx's own words, if it exits first. The caller stops it.
 */
export async function startNginx(dir: string, server: string, ready: () => Promise<boolean>): Promise<Subprocess> {
  const nginx = Bun.spawn(['nginx', '-p', dir, '-c', writeConfig(dir, server)], { stderr: 'pipe', stdout: 'pipe' })
  for (let i = 0; i < 100; i++) {
    if (nginx.exitCode !== null) throw new Error(`nginx exited: ${await new Response(nginx.stderr).text()}`)
    if (await ready().catch(() => false)) return nginx
    await sleep(50)
  }
  nginx.kill()
  throw new Error('nginx did not answer in time')
}

/** `nginx -t` on the same config startNginx would run: whether nginx accepts it, in its own words. */
export function checkNginxConfig(dir: string, server: string): { ok: boolean; output: string } {
  const result = Bun.spawnSync(['nginx', '-t', '-p', dir, '-c', writeConfig(dir, server)], {
    stderr: 'pipe',
    stdout: 'pipe',
  })
  return { ok: result.exitCode === 0, output: result.stderr.toString() + result.stdout.toString() }
}

/** Each `upstream` block's servers, `host:port` as written. */
export function upstreamServers(config: string): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const [, name, body] of config.matchAll(/^\s*upstream\s+(\S+)\s*\{([^}]*)\}/gm))
    out[name!] = [...body!.matchAll(/^\s*server\s+([^\s;]+)/gm)].map((m) => m[1]!)
  return out
}

/**
 * A deployment's config for loopback: each upstream server `host:port` pointed at 127.0.0.1 and
 * the port `ports[host]` gives, and the `listen` port replaced by 127.0.0.1:`listen`.
 */
export function onLoopback(config: string, ports: Record<string, number>, listen: number): string {
  return config
    .replace(/^(\s*server\s+)([^\s:;]+):\d+/gm, (_, lead, host) => {
      if (ports[host] === undefined) throw new Error(`no loopback port for the upstream server ${host}`)
      return `${lead}127.0.0.1:${ports[host]}`
    })
    .replace(/^(\s*listen\s+)\d+/gm, (_, lead) => `${lead}127.0.0.1:${listen}`)
}

function writeConfig(dir: string, server: string): string {
  const temp = (name: string) => `${name}_temp_path ${join(dir, name)};`
  const file = join(dir, 'nginx.conf')
  writeFileSync(
    file,
    `${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes 1;
daemon off;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 64; }
http {
  access_log off;
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}
  ${server}
}
`,
  )
  return file
}
