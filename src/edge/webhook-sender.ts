import { Webhook } from 'standardwebhooks'
import { resolveTarget, TargetRefused } from '../domain/webhook-targets'
import type { DueDelivery, Outcome } from '../domain/webhooks'

/** How long one attempt may take, answer included (CONTRACT §18). */
export const ATTEMPT_LIMIT_MS = 10_000
/** How much of a refusing answer is read, for last_error; the rest is never downloaded. */
const ANSWER_BYTES_READ = 1024

const failed = (statusCode: number | null, error: string): Outcome => ({ delivered: false, statusCode, error })

/**
 * One attempt of a delivery, as the Standard Webhooks specification says: the event POSTed as
 * JSON, signed with the webhook's secret. The host is resolved and checked here, and the request
 * goes to that very address (with the Host header and, for https, the TLS server name and
 * certificate check of the host name), so that DNS answering otherwise a moment later changes
 * nothing. Redirects are not followed; never throws.
 */
export async function attemptDelivery(delivery: DueDelivery, allowPrivate: boolean): Promise<Outcome> {
  const signal = AbortSignal.timeout(ATTEMPT_LIMIT_MS)
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
        'webhook-signature': new Webhook(delivery.secret).sign(delivery.messageId, sentAt, delivery.body),
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
    if (error instanceof TargetRefused) return failed(null, error.message)
    if (signal.aborted) return failed(null, `No answer within ${ATTEMPT_LIMIT_MS / 1000} s.`)
    return failed(null, `The request failed: ${error instanceof Error ? error.message : String(error)}`)
  }
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
