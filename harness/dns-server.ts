import { createSocket, type Socket } from 'node:dgram'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

// A DNS server of a test's own, for a process that runs in a mount namespace of its own
// (unshare -m, as root) whose /etc/resolv.conf names it and whose /etc/hosts is only localhost:
// it answers the A records it is given and never answers anything else, as a DNS outage would.
// On these machines DNS traffic to other servers is intercepted and answered at once, so an
// outage is staged on loopback: the queries arrive, are noted, and are dropped.

const TYPE_A = 1

/** A DNS query's question: its name and type, and where the question ends; null when it is not one. */
function questionOf(packet: Buffer): { name: string; type: number; end: number } | null {
  const labels: string[] = []
  let at = 12 // past the header
  while (at < packet.length) {
    const length = packet[at]!
    if (length === 0) {
      if (at + 5 > packet.length) return null
      return { name: labels.join('.').toLowerCase(), type: packet.readUInt16BE(at + 1), end: at + 5 }
    }
    if (length > 63) return null
    labels.push(packet.toString('latin1', at + 1, at + 1 + length))
    at += 1 + length
  }
  return null
}

/** The answer to `query` (whose question ends at `end`): its one A record `address`, or none (no such record). */
function answer(query: Buffer, end: number, address: string | null): Buffer {
  const header = Buffer.alloc(12)
  query.copy(header, 0, 0, 2) // the query's id
  header.writeUInt16BE(0x8180, 2) // a response, recursion desired and available, no error
  header.writeUInt16BE(1, 4) // one question
  header.writeUInt16BE(address ? 1 : 0, 6)
  const parts = [header, query.subarray(12, end)]
  if (address) {
    const record = Buffer.alloc(16)
    record.writeUInt16BE(0xc00c, 0) // the name: the question's
    record.writeUInt16BE(TYPE_A, 2)
    record.writeUInt16BE(1, 4) // class IN
    record.writeUInt32BE(60, 6) // TTL
    record.writeUInt16BE(4, 10)
    address.split('.').forEach((byte, i) => record.writeUInt8(Number(byte), 12 + i))
    parts.push(record)
  }
  return Buffer.concat(parts)
}

/** Whether this process may make mount namespaces and bind-mount over /etc (root, with unshare). */
export const CAN_STAGE_DNS_OUTAGE =
  Bun.spawnSync(['unshare', '-m', 'sh', '-c', 'mount --bind /etc/hosts /etc/hosts'], {
    stdout: 'ignore',
    stderr: 'ignore',
  }).exitCode === 0

/**
 * Starts the server on 127.0.0.x:53 (a random x: other runs may hold one) and writes a resolv.conf
 * naming it (and the `search` domains) and a hosts file of localhost into `dir`. It answers the
 * names of `addresses` (IPv4: their A record, no other) and drops every other query. `asked` holds every name queried.
 */
export async function startDnsServer(dir: string, addresses: Record<string, string> = {}, search: string[] = []) {
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
  socket.on('message', (packet, from) => {
    const question = questionOf(packet)
    if (!question) return
    asked.push(question.name)
    const address = addresses[question.name]
    if (address !== undefined)
      socket!.send(answer(packet, question.end, question.type === TYPE_A ? address : null), from.port, from.address)
  })
  writeFileSync(
    join(dir, 'resolv.conf'),
    `nameserver ${address}\n${search.length ? `search ${search.join(' ')}\n` : ''}`,
  )
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
    stop: () => socket!.close(),
  }
}
