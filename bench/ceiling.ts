// The ceiling for our runtime: a minimal Bun.serve answering GET with the exact bytes the
// service returned for its list, from one shared Blob, doing the same job as the service around
// it (a request id, an access line with the address: bench/bare-job.ts).
//   npx bun bench/ceiling.ts <list body file> <port>
import { withTheSameJob } from './bare-job'

const [file, port] = Bun.argv.slice(2)
if (!file || !port) throw new Error('usage: npx bun bench/ceiling.ts <list body file> <port>')
const body = new Blob([await Bun.file(file).bytes()])
const headers = { 'Content-Type': 'application/json' }

Bun.serve({
  hostname: '127.0.0.1',
  port: Number(port),
  fetch: withTheSameJob((request) =>
    request.method === 'GET' ? new Response(body, { headers }) : new Response(null, { status: 405 }),
  ),
})

export {}
