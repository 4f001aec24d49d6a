// Issue 24 §5: the memory an import of bad rows costs. Starts the service over a copy of the
// sample, sends it a 10 MiB CSV whose every row is invalid, and prints the RSS above idle at the
// peak of the import and a few seconds after it, with the size of the 400 it answered.
//   npx bun bench/import-errors.ts
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { allInvalid } from '../harness/bad-import'
import { rssMb, sampleRss, sleep, stopAll } from './procs'
import { ADMIN_TOKEN, ROOT, startOurs } from './servers'

const USAGE = `usage: npx bun bench/import-errors.ts

Starts the service over a copy of data/seed.json, imports a 10 MiB CSV whose every row is invalid
(a bad value in each of 8 columns), and prints the RSS above idle during the import (peak) and 3 s and 10 s after it, and the answer's
status and size. Target: at most 300 MB above idle, and back down after.`
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(USAGE)
  process.exit(0)
}

const MIB = 1024 * 1024

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'clubs-import-errors-'))
  try {
    const server = await startOurs(join(ROOT, 'data', 'seed.json'), join(dir, 'db.json'))
    const pid = server.child.pid
    await sleep(1000)
    const idle = (await rssMb(pid))!
    const { body, rows } = allInvalid(10 * MIB)
    const sampler = sampleRss(pid, 20)
    const started = performance.now()
    const res = await fetch(`${server.base}/api/imports/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv' },
      body,
    })
    const answer = await res.arrayBuffer()
    const ms = performance.now() - started
    const peak = await sampler.stop()
    await sleep(3000)
    const after = (await rssMb(pid))!
    await sleep(7000)
    const later = (await rssMb(pid))!
    await server.stop()
    console.log(
      `import of ${rows} invalid rows (${(body.length / MIB).toFixed(1)} MiB CSV): ${res.status}, ${(answer.byteLength / 1024).toFixed(0)} KiB answer in ${(ms / 1000).toFixed(1)} s`,
    )
    console.log(
      `RSS idle ${idle.toFixed(0)} MB; above idle: peak +${(peak - idle).toFixed(0)} MB, 3 s after +${(after - idle).toFixed(0)} MB, 10 s after +${(later - idle).toFixed(0)} MB`,
    )
  } finally {
    await stopAll()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
