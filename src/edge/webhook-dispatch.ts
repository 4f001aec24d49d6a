import type { ChangeLog } from '../domain/change-log'
import type { DueDelivery, Outcome, WebhookService } from '../domain/webhooks'

/** setTimeout's longest wait; a later delivery is looked at again then. */
const LONGEST_WAIT_MS = 2 ** 31 - 1
/** How long a delivery (or a look at what is due) waits after a fault before trying again. */
const FAULT_PAUSE_MS = 5_000

/**
 * Runs the webhook deliveries: each as soon as its event is on disk, again when its next attempt
 * is due (one timer, set for the earliest), all at once and none waiting for another, so a slow
 * or hung receiver delays nothing but its own deliveries. Its timers keep no process alive.
 * Returns how to stop following new events.
 */
export function dispatchWebhooks(
  webhooks: WebhookService,
  changes: ChangeLog,
  send: (delivery: DueDelivery) => Promise<Outcome>,
): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined
  let queued = false

  // Not in the write's own turn: the write is answered first.
  const soon = () => {
    if (queued) return
    queued = true
    setImmediate(pump)
  }
  function pump() {
    queued = false
    clearTimeout(timer)
    try {
      for (const delivery of webhooks.take()) void attempt(delivery)
      const wait = webhooks.nextDueIn()
      timer = wait === null ? undefined : setTimeout(soon, Math.min(wait, LONGEST_WAIT_MS))
    } catch {
      // The clock failed (a fault a test injects): look again a moment later, never crash the process.
      timer = setTimeout(soon, FAULT_PAUSE_MS)
    }
    timer?.unref()
  }
  async function attempt(delivery: DueDelivery) {
    try {
      webhooks.settle(delivery, await send(delivery))
    } catch {
      // The clock failed (a fault a test injects): the delivery stays pending as it was, a while.
      await new Promise((resolve) => setTimeout(resolve, FAULT_PAUSE_MS).unref())
    } finally {
      webhooks.release(delivery)
      soon()
    }
  }

  const stop = changes.follow(soon)
  soon()
  return stop
}
