import type { ChangeLog } from '../domain/change-log'
import type { Due, Outcomes, WebhookService } from '../domain/webhooks'

/** setTimeout's longest wait; a later delivery is looked at again then. */
const LONGEST_WAIT_MS = 2 ** 31 - 1
/** How long a delivery (or a look at what is due) waits after a fault before trying again. */
const FAULT_PAUSE_MS = 5_000

/** Where deliveries go to be attempted; what they came to is told to the function it was made with. */
export interface Sender {
  send(due: Due): void
}

/**
 * Runs the webhook deliveries: each as soon as its event is on disk, again when its next attempt
 * is due (one timer, set for the earliest), all at once and none waiting for another, so a slow
 * or hung receiver delays nothing but its own deliveries. Its timers keep no process alive.
 * `sender` makes the sender, given what to do with outcomes. Returns how to stop following new events.
 */
export function dispatchWebhooks(
  webhooks: WebhookService,
  changes: ChangeLog,
  sender: (settled: (outcomes: Outcomes) => void) => Sender,
): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined
  let queued = false

  // Not in the write's own turn: the write is answered first.
  const soon = () => {
    if (queued) return
    queued = true
    setImmediate(pump)
  }
  const deliveries = sender((outcomes) => {
    // One pass over a batch of outcomes, however many; another look at what is due only when a
    // webhook has deliveries not under way: after a fan-out's fifty are answered there are none,
    // and the look would cost the request thread.
    const { more, faulted } = webhooks.settle(outcomes)
    if (faulted.length)
      setTimeout(() => {
        for (const [webhook, seq] of faulted) webhooks.release(webhook, seq)
        soon()
      }, FAULT_PAUSE_MS).unref()
    if (more) soon()
  })
  function pump() {
    queued = false
    clearTimeout(timer)
    try {
      deliveries.send(webhooks.take())
      const wait = webhooks.nextDueIn()
      timer = wait === null ? undefined : setTimeout(soon, Math.min(wait, LONGEST_WAIT_MS))
    } catch {
      // The clock failed (a fault a test injects): look again a moment later, never crash the process.
      timer = setTimeout(soon, FAULT_PAUSE_MS)
    }
    timer?.unref()
  }

  const stop = changes.follow(soon)
  soon()
  return stop
}
