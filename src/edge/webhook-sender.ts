import { createHmac } from 'node:crypto'
import { resolveTarget, TargetRefused } from '../domain/webhook-targets'
import type { Due, DueDelivery, DueEvent, Outcome, Outcomes, Target } from '../domain/webhooks'

/** How long one attempt may take, answer included (docs/reference.md §18). */
export const ATTEMPT_LIMIT_MS = 10_000
/** How much of a refusing answer is read, for last_error; the rest is never downloaded. */
const ANSWER_BYTES_READ = 1024

const failed = (statusCode: number | null, error: string): Outcome => ({ delivered: false, statusCode, error })

/**
 * Attempts as the sending thread is asked for them: each event once with the webhooks it goes to
 * (its body once, however many), and each webhook's target only when the thread does not know it
 * as it is. Ids, not objects or message ids per delivery: what the request thread writes out for
 * a fan-out stays about one event's size however many webhooks get it.
 */
export interface AttemptBatch {
  readonly allowPrivate: boolean
  readonly targets: Readonly<Record<number, Target>>
  readonly events: readonly DueEvent[]
}

/**
 * Makes attempts on a thread of their own (src/edge/webhook-worker.ts): a fan-out of one event to
 * fifty receivers is fifty signatures, connections and answers, which on the request thread would
 * slow the writes that come meanwhile. The attempts of one `send` go over as one message, and
 * their outcomes come back to `settled` a batch at a time (`Outcomes`: the webhooks an event was
 * delivered to, as ids): no promise, message or object per attempt. Never fails: a lost thread
 * is a failed attempt of everything under way.
 */
export class WebhookSender {
  #worker: Worker | null = null
  /** Each webhook's target as the thread last got it. */
  readonly #known = new Map<number, Target>()

  constructor(
    private readonly allowPrivate: boolean,
    private readonly settled: (outcomes: Outcomes) => void,
  ) {}

  send({ events, targets }: Due): void {
    if (!events.length) return
    const thread = this.#thread()
    const told: Record<number, Target> = {}
    const know = (webhook: number) => {
      const target = targets.get(webhook)
      if (target && this.#known.get(webhook) !== target) {
        this.#known.set(webhook, target)
        told[webhook] = { url: target.url, secret: target.secret }
      }
    }
    for (const { fresh, again } of events) {
      for (const webhook of fresh) know(webhook)
      for (const [webhook] of again) know(webhook)
    }
    thread.postMessage(
      JSON.stringify({ allowPrivate: this.allowPrivate, targets: told, events } satisfies AttemptBatch),
    )
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker
    // Idle, it keeps no process alive (a test's, or a server that is stopping).
    const worker = new Worker(new URL('./webhook-worker.ts', import.meta.url).href, { ref: false })
    worker.onmessage = ({ data }: MessageEvent<string>) => this.settled(JSON.parse(data) as Outcomes)
    worker.onerror = (event) => {
      // The thread is gone: what it held failed, and the next attempt starts a new one.
      this.#known.clear()
      this.#worker = null
      this.settled({ delivered: [], failed: [], lost: event.message })
    }
    return (this.#worker = worker)
  }
}

/**
 * One attempt of a delivery, as the Standard Webhooks specification says: the event POSTed as
 * JSON, signed with the webhook's secret. The host is resolved and checked here, and the request
 * goes to that very address (with the Host header and, for https, the TLS server name and
 * certificate check of the host name), so that DNS answering otherwise a moment later changes
 * nothing. Redirects are not followed; never throws. `signal` ends it after ATTEMPT_LIMIT_MS
 * from its start: the attempts of a fan-out, started together, share one (one timer, not fifty).
 */
export async function attemptDelivery(
  delivery: DueDelivery,
  allowPrivate: boolean,
  signal: AbortSignal = AbortSignal.timeout(ATTEMPT_LIMIT_MS),
): Promise<Outcome> {
  try {
    const target = await resolveTarget(new URL(delivery.url), allowPrivate)
    const sentAt = new Date()
    const pinned = new URL(target.url)
    pinned.hostname = target.address.includes(':') ? `[${target.address}]` : target.address
    const answer = await fetch(pinned, {
      method: 'POST',
      body: delivery.body,
      headers: {
        host: target.url.host,
        'content-type': 'application/json',
        'user-agent': 'club-directory-webhooks',
        'webhook-id': delivery.messageId,
        'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
        'webhook-signature': signature(delivery.secret, delivery.messageId, sentAt, delivery.body),
      },
      redirect: 'manual',
      signal,
      ...(target.hostName && target.url.protocol === 'https:' ? { tls: { serverName: target.hostName } } : {}),
    })
    const { status } = answer
    if (status >= 200 && status < 300) {
      void answer.body?.cancel().catch(() => undefined)
      return { delivered: true, statusCode: status }
    }
    if (status >= 300 && status < 400) {
      void answer.body?.cancel().catch(() => undefined)
      return failed(status, `Redirects are not followed (${status} to ${answer.headers.get('location') ?? 'nowhere'}).`)
    }
    const start = await startOf(answer)
    return failed(status, `The receiver answered ${status}${start ? `: ${start}` : '.'}`)
  } catch (error) {
    if (signal.aborted) return failed(null, `No answer within ${ATTEMPT_LIMIT_MS / 1000} s.`)
    if (error instanceof TargetRefused) return failed(null, error.message)
    return failed(null, `The request failed: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/** Each secret's key bytes, decoded once (a fan-out signs with each of fifty secrets every event); at most KEYS_KEPT. */
const KEYS = new Map<string, Buffer>()
const KEYS_KEPT = 1_000

/**
 * The webhook-signature header as the Standard Webhooks specification says: "v1," and the base64
 * HMAC-SHA256 of "{id}.{timestamp}.{body}", keyed with the bytes the secret after "whsec_" encodes.
 * node:crypto's HMAC (native) rather than the standardwebhooks package's sign (SHA-256 in
 * JavaScript), which was most of a fan-out's CPU; receivers verify it with that package.
 */
export function signature(secret: string, messageId: string, sentAt: Date, body: string): string {
  let key = KEYS.get(secret)
  if (!key) {
    if (KEYS.size >= KEYS_KEPT) KEYS.clear()
    KEYS.set(
      secret,
      (key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64')),
    )
  }
  const timestamp = Math.floor(sentAt.getTime() / 1000)
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.`).update(body).digest('base64')}`
}

/** The first ANSWER_BYTES_READ bytes of an answer, as text; the rest is cancelled unread. */
async function startOf(answer: Response): Promise<string> {
  if (!answer.body) return ''
  const reader = answer.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    while (size < ANSWER_BYTES_READ) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      size += value.length
    }
  } finally {
    void reader.cancel().catch(() => undefined)
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, ANSWER_BYTES_READ)).trim()
}
