// The thread that makes webhook attempts (src/edge/webhook-sender.ts), so that signing and
// sending fifty POSTs for one event never holds the thread that answers requests. Attempts come
// as one JSON text a batch, and outcomes go back as one JSON text when every attempt under way has
// answered (a fan-out's fifty in one message), or OUTCOMES_HELD_MS after the first waiting one.
import { attemptDelivery, type AttemptBatch, type AttemptResult } from './webhook-sender'

declare const self: Worker

/** Longest an outcome waits for the rest of the attempts under way: a slow receiver holds no one else's. */
const OUTCOMES_HELD_MS = 20

let outbox: AttemptResult[] = []
let underWay = 0
let held: ReturnType<typeof setTimeout> | undefined

function post() {
  clearTimeout(held)
  held = undefined
  const batch = outbox
  outbox = []
  self.postMessage(JSON.stringify(batch))
}

self.onmessage = ({ data }: MessageEvent<string>) => {
  const { allowPrivate, bodies, attempts } = JSON.parse(data) as AttemptBatch
  underWay += attempts.length
  for (const { id, ...delivery } of attempts)
    void attemptDelivery({ ...delivery, body: bodies[delivery.seq]! }, allowPrivate).then((outcome) => {
      underWay--
      outbox.push({ id, outcome })
      if (underWay === 0) post()
      else held ??= setTimeout(post, OUTCOMES_HELD_MS)
    })
}
