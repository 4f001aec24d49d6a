// The thread that makes webhook attempts (src/edge/webhook-sender.ts), so that signing and
// sending fifty POSTs for one event never holds the thread that answers requests. Attempts come
// as one JSON text a batch, and outcomes go back as one JSON text when every attempt under way has
// answered (a fan-out's fifty in one message), or OUTCOMES_HELD_MS after the first waiting one.
// Attempts are background work: this thread, and Bun's HTTP client thread that makes the requests
// (a fan-out of one event cost them twice the request thread's time for the write; the request
// thread's own rare requests, an identity provider's keys, share it), run at the lowest priority,
// so that on a busy machine the next write is not kept waiting for a core.
import { runInBackground } from './background-priority'
import { ATTEMPT_LIMIT_MS, attemptDelivery, type AttemptBatch } from './webhook-sender'
import { messageIdOf, type Failure, type Target } from '../domain/webhooks'

declare const self: Worker

/** Longest an outcome waits for the rest of the attempts under way: a slow receiver holds no one else's. */
const OUTCOMES_HELD_MS = 20

/** Each webhook's target, as the batches said last. */
const targets = new Map<number, Target>()
/** The outcomes not told yet: each event's webhooks delivered to, by status code (a fan-out's fifty as one list of ids), and the failures. */
let delivered = new Map<string, number[]>()
let failed: Failure[] = []
let underWay = 0
let held: ReturnType<typeof setTimeout> | undefined
/** Bun starts its HTTP client thread at the first request: lowered once that has been made. */
let lowered = false

runInBackground()

function post() {
  clearTimeout(held)
  held = undefined
  const outcomes = { delivered: [...delivered.values()], failed }
  delivered = new Map()
  failed = []
  self.postMessage(JSON.stringify(outcomes))
}

function attempt(
  webhook: number,
  seq: number,
  messageId: string,
  body: string,
  { allowPrivate }: AttemptBatch,
  signal: AbortSignal,
) {
  underWay++
  void attemptDelivery({ webhook, seq, messageId, ...targets.get(webhook)!, body }, allowPrivate, signal).then(
    (outcome) => {
      if (!lowered) runInBackground('HTTP Client')
      lowered = true
      underWay--
      if (outcome.delivered) {
        const key = `${seq} ${outcome.statusCode}`
        const ids = delivered.get(key)
        if (ids) ids.push(webhook)
        else delivered.set(key, [seq, outcome.statusCode, webhook])
      } else failed.push([seq, webhook, outcome.statusCode, outcome.error])
      if (underWay === 0) post()
      else held ??= setTimeout(post, OUTCOMES_HELD_MS)
    },
  )
}

self.onmessage = ({ data }: MessageEvent<string>) => {
  const batch = JSON.parse(data) as AttemptBatch
  for (const [webhook, target] of Object.entries(batch.targets)) targets.set(Number(webhook), target)
  // The batch's attempts start now, together: one timer ends those not answered in time.
  const signal = AbortSignal.timeout(ATTEMPT_LIMIT_MS)
  for (const { seq, body, nonce, fresh, again } of batch.events) {
    for (const webhook of fresh) attempt(webhook, seq, messageIdOf(nonce, webhook), body, batch, signal)
    for (const [webhook, messageId] of again) attempt(webhook, seq, messageId, body, batch, signal)
  }
}
