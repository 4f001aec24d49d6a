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
  const temp = (name: string) => `${name}_temp_path ${join(dir, name)};`
  writeFileSync(
    join(dir, 'nginx.conf'),
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
  const nginx = Bun.spawn(['nginx', '-p', dir, '-c', join(dir, 'nginx.conf')], { stderr: 'pipe', stdout: 'pipe' })
  for (let i = 0; i < 100; i++) {
    if (nginx.exitCode !== null) throw new Error(`nginx exited: ${await new Response(nginx.stderr).text()}`)
    if (await ready().catch(() => false)) return nginx
    await sleep(50)
  }
  nginx.kill()
  throw new Error('nginx did not answer in time')
}
