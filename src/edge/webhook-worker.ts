// The thread that makes webhook attempts (src/edge/webhook-sender.ts), so that signing and
// sending fifty POSTs for one event never holds the thread that answers requests. Attempts come,
// and the outcomes of one turn go back, as one JSON text each.
import { attemptDelivery, type AttemptBatch, type AttemptResult } from './webhook-sender'

declare const self: Worker

let outbox: AttemptResult[] = []

function post() {
  const batch = outbox
  outbox = []
  self.postMessage(JSON.stringify(batch))
}

self.onmessage = ({ data }: MessageEvent<string>) => {
  const { allowPrivate, bodies, attempts } = JSON.parse(data) as AttemptBatch
  for (const { id, ...delivery } of attempts)
    void attemptDelivery({ ...delivery, body: bodies[delivery.seq]! }, allowPrivate).then((outcome) => {
      if (!outbox.length) setTimeout(post, 0)
      outbox.push({ id, outcome })
    })
}
