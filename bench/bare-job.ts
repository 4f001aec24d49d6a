// What every baseline server of the bench does besides answering, because OURS does it too (the
// decided comparison: the bare runtime doing the same job): a request id for each request, sent
// back as X-Request-Id, and one JSON access line per request with the client's address, the lines
// of one turn of the event loop written to stdout together.
import type { Server } from 'bun'

const writer = Bun.stdout.writer()
let pending = ''
const handOver = () => {
  writer.write(pending)
  pending = ''
  void writer.flush()
}

function accessLine(request: Request, status: number, started: number, address: string | null, id: string) {
  if (pending === '') setImmediate(handOver)
  const path = request.url.slice(request.url.indexOf('/', 8)).split('?')[0]
  const fields = {
    method: request.method,
    path,
    status,
    duration_ms: Math.round((performance.now() - started) * 100) / 100,
    address,
    request_id: id,
  }
  pending += `{"level":"info","time":"${new Date().toISOString()}",${JSON.stringify(fields).slice(1, -1)},"msg":"request"}\n`
}

/** `answer` as a Bun.serve fetch handler that also does the job above. */
export const withTheSameJob =
  (answer: (request: Request) => Response) =>
  (request: Request, server: Server<undefined>): Response => {
    const started = performance.now()
    const id = crypto.randomUUID()
    const response = answer(request)
    response.headers.set('X-Request-Id', id)
    accessLine(request, response.status, started, server.requestIP(request)?.address ?? null, id)
    return response
  }
