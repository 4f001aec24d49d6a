import { createSocket, type Socket } from 'node:dgram'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

// A DNS server that never answers, for a process that runs in a mount namespace of its own
// (unshare -m, as root) whose /etc/resolv.conf names it and whose /etc/hosts is only localhost.
// On these machines DNS traffic to other servers is intercepted and answered at once, so an
// outage is staged on loopback: the queries arrive, are noted, and are dropped.

/** The host name a DNS query asks about (its question's labels), or null when it is not one. */
function questionOf(packet: Buffer): string | null {
  const labels: string[] = []
  let at = 12 // past the header
  while (at < packet.length) {
    const length = packet[at]!
    if (length === 0) return labels.join('.').toLowerCase()
    if (length > 63) return null
    labels.push(packet.toString('latin1', at + 1, at + 1 + length))
    at += 1 + length
  }
  return null
}

/** Whether this process may make mount namespaces and bind-mount over /etc (root, with unshare). */
export const CAN_STAGE_DNS_OUTAGE =
  Bun.spawnSync(['unshare', '-m', 'sh', '-c', 'mount --bind /etc/hostname /etc/hosts && true'], {
    stdout: 'ignore',
    stderr: 'ignore',
  }).exitCode === 0

/**
 * Starts the silent server on 127.0.0.x:53 (a random x: other runs may hold one) and writes a
 * resolv.conf naming it and a hosts file of localhost into `dir`. `asked` holds every name queried.
 */
export async function startSilentDns(dir: string) {
  let socket: Socket | undefined
  let address = ''
  for (let attempt = 0; !socket; attempt++) {
    address = `127.0.0.${100 + Math.floor(Math.random() * 150)}`
    const trying = createSocket('udp4')
    const bound = await new Promise<boolean>((resolve) => {
      trying.once('error', () => resolve(false))
      trying.bind(53, address, () => resolve(true))
    })
    if (bound) socket = trying
    else if (attempt > 20) throw new Error('no free 127.0.0.x:53 for the silent DNS server')
    else trying.close()
  }
  const asked: string[] = []
  socket.on('message', (packet) => {
    const name = questionOf(packet)
    if (name) asked.push(name)
  })
  writeFileSync(join(dir, 'resolv.conf'), `nameserver ${address}\n`)
  writeFileSync(join(dir, 'hosts'), '127.0.0.1 localhost\n::1 localhost\n')
  return {
    address,
    asked,
    /** `command` run with this server as its only resolver and no host name but localhost in /etc/hosts. */
    wrap: (command: readonly string[]) => [
      'unshare',
      '-m',
      'sh',
      '-c',
      `mount --bind ${join(dir, 'resolv.conf')} /etc/resolv.conf && mount --bind ${join(dir, 'hosts')} /etc/hosts && exec "$@"`,
      'sh',
      ...command,
    ],
    stop: () => socket.close(),
  }
}
