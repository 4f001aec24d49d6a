// Times durable creates in process, one at a time: each is one journal append plus the work
// around it. Prints {medianMs, minMs, maxMs, creates} as JSON.
//   npx bun bench/snapshot-write.ts <copy of a data set> <creates>
import { createApp } from '../src/app'
import { openDataFile } from '../src/data-file'
import { LogoMemory } from '../src/store/logo-store'
import { SEED_FILE } from './generate'

const TOKEN = 'bench-admin-token'
const [file, count = '15'] = Bun.argv.slice(2)
if (!file) throw new Error('usage: npx bun bench/snapshot-write.ts <data file> [creates]')

const { store, data } = await openDataFile(file, SEED_FILE)
const app = createApp({
  store,
  data,
  logos: new LogoMemory(),
  config: { adminToken: TOKEN, autoApprove: false, readOnly: false },
})

async function create(name: string): Promise<number> {
  const started = performance.now()
  const response = await app.handle(
    new Request('http://127.0.0.1/api/clubs/', {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name, subtitle: 'Made by the benchmark' }),
    }),
  )
  await response.arrayBuffer()
  if (response.status !== 201) throw new Error(`create answered ${response.status}`)
  return performance.now() - started
}

try {
  await create('Snapshot warm-up')
  const times: number[] = []
  for (let i = 1; i <= Number(count); i++) times.push(await create(`Snapshot write ${i}`))
  times.sort((a, b) => a - b)
  const medianMs = times[Math.floor(times.length / 2)]!
  console.log(JSON.stringify({ medianMs, minMs: times[0], maxMs: times.at(-1), creates: times.length }))
} finally {
  await store.close()
}
