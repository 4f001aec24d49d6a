// The ceiling for one small answer: a bare Bun.serve returning, for every request, exactly the
// status, headers and bytes the service answered (gzip, 304 or 404 included), doing the same job
// as the service around it (a request id, an access line with the address: bench/bare-job.ts).
//   npx bun bench/answer-ceiling.ts <answer.json> <port>     answer.json: {status, headers, body (base64)}
import { withTheSameJob } from './bare-job'

const [file, port] = Bun.argv.slice(2)
if (!file || !port) throw new Error('usage: npx bun bench/answer-ceiling.ts <answer.json> <port>')
const { status, headers, body } = (await Bun.file(file).json()) as {
  status: number
  headers: Record<string, string>
  body: string
}
const bytes = Buffer.from(body, 'base64')
// The recorded answer's own request id is not sent again: each answer gets a new one.
const { 'x-request-id': _recorded, ...kept } = headers
const answer = () => new Response(status === 304 || bytes.length === 0 ? null : bytes, { status, headers: kept })

// /ready is for the harness: a 304 or 404 answer is never the 200 it waits for.
Bun.serve({
  hostname: '127.0.0.1',
  port: Number(port),
  routes: { '/ready': new Response('ok') },
  fetch: withTheSameJob(answer),
})

export {}
