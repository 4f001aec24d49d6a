import { sleep } from './service'

/** One request a receiver got: its headers (lowercase names) and body as sent. */
export interface Received {
  readonly headers: Record<string, string>
  readonly body: string
}

/** What a receiver answers its `n`th request (from 1). */
export type Answerer = (n: number, request: Request) => Response | Promise<Response>

/**
 * A real webhook receiver on 127.0.0.1 (`port`, or any free one) that keeps every request it gets
 * and answers as `answer` says (200 "ok" when not told).
 */
export function startReceiver(answer: Answerer = () => new Response('ok'), port = 0) {
  const received: Received[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port,
    async fetch(request) {
      const body = await request.text()
      received.push({ headers: Object.fromEntries(request.headers), body })
      return answer(received.length, request)
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}/hook`,
    port: server.port,
    received,
    /** The events it got, parsed. */
    events: () => received.map(({ body }) => JSON.parse(body) as { seq: number; type: string; code: string }),
    stop: () => server.stop(true),
  }
}

/** A receiver that answers nothing until released, then answers `status` ("late", or no body for 204). */
export function heldReceiver(status = 200) {
  let release = () => {}
  const held = new Promise<void>((resolve) => (release = resolve))
  const receiver = startReceiver(async () => {
    await held
    return new Response(status === 204 ? null : 'late', { status })
  })
  return { ...receiver, release }
}

/** Waits until `check` holds, looking every 20 ms; fails with `what` after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = performance.now() + ms
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(20)
  }
}
