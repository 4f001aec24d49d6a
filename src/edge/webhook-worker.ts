// The thread that makes webhook attempts (src/edge/webhook-sender.ts), so that signing and
// sending fifty POSTs for one event never holds the thread that answers requests.
import { attemptDelivery, type AttemptRequest, type AttemptResult } from './webhook-sender'

declare const self: Worker

self.onmessage = async ({ data }: MessageEvent<AttemptRequest>) => {
  const outcome = await attemptDelivery(data.delivery, data.allowPrivate)
  self.postMessage({ id: data.id, outcome } satisfies AttemptResult)
}
