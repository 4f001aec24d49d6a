import { randomBytes } from 'node:crypto'
import { requireUser, type Caller } from './caller'
import type { LoggedChange } from './change-log'
import { BodyCheck, fieldsOrRefuse } from './check'
import { NotFound, PermissionDenied, ValidationFailed } from './errors'
import type { Commit, Undo } from './journal'
import { checkWebhookUrl, HostUnresolved, resolveTarget, TargetRefused } from './webhook-targets'
import { CHANGE_TYPES } from '../model/change'
import {
  WebhookCreate,
  type Delivery,
  type DeliveryRecord,
  type Webhook,
  type WebhookEventRecord,
  type WebhookRecord,
} from '../model/webhook'

/** How long a failed delivery waits before each next attempt (CONTRACT §18); failed after the last. */
export const RETRY_DELAYS_MS: readonly number[] = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000].map((s) => s * 1000)
/** Delivered and failed deliveries kept per webhook, newest first: the data file does not grow without end. */
export const KEPT_FINISHED = 100
/**
 * Deliveries a webhook whose receiver fails keeps waiting: when an attempt fails with more, the
 * oldest are given up (failed, and counted on the webhook), so that a receiver down for days
 * costs the data file no more than this many events and records.
 */
export const MAX_WAITING = 100
/** Attempts at once to one webhook: a slow receiver holds its own deliveries back, no one else's. */
const MAX_IN_FLIGHT = 5
/** Random bytes in an event's nonce, which its deliveries' message ids (the webhook-id header) start with. */
const NONCE_BYTES = 16
/** How soon after an attempt its outcome is on disk at the latest. */
const OUTCOMES_SAVED_WITHIN_MS = 1_000

const WEBHOOK_BODY = new BodyCheck(WebhookCreate, {
  notAnObject: 'Send an object: {"url": "https://...", "description": "...", "events": ["club.added"]}.',
  fields: { url: { invalid: 'Enter a valid URL (http or https).' } },
  trimmed: ['url', 'description'],
  items: { events: 'Event type' },
})

/** A delivery to attempt now: where, what, and the secret that signs it. */
export interface DueDelivery {
  readonly webhook: number
  readonly seq: number
  readonly messageId: string
  readonly url: string
  readonly secret: string
  readonly body: string
}

/** What one attempt came to: a 2xx delivers; anything else is retried, then fails. */
export type Outcome =
  | { readonly delivered: true; readonly statusCode: number }
  | { readonly delivered: false; readonly statusCode: number | null; readonly error: string }

export interface WebhookOptions {
  readonly allowPrivate: boolean
  /** The newest event number on disk: no delivery is attempted before its event is. */
  readonly published: () => number
  readonly retryDelays?: readonly number[]
  /** Whether this instance sends deliveries (of several sharing a database, one does); always when not said. */
  readonly sendsHere?: () => boolean
}

/** How soon an instance that does not send deliveries looks again whether it now does. */
const SENDER_CHECK_MS = 2_000

const shown = ({ secret: _, dropped_deliveries = 0, ...webhook }: WebhookRecord): Webhook => ({
  ...webhook,
  dropped_deliveries,
})
const answered = ({ webhook: _, ...delivery }: DeliveryRecord): Delivery => delivery

/**
 * Webhooks (CONTRACT §18): admins add and remove them; each event is queued, in the commit of
 * the write that made it, for every webhook that wants its type, so that a delivery is on disk
 * as soon as its event is. Attempts (made at the edge, which knows HTTP) settle each delivery:
 * delivered, tried again on the schedule, or failed.
 */
export class WebhookService {
  readonly #hooks = new Map<number, WebhookRecord>()
  /** Deliveries still to make, by webhook, then by event number, in the order queued (none empty). */
  readonly #pending = new Map<number, Map<number, DeliveryRecord>>()
  /** The pending ones the snapshot keeps as records of their own: attempted at least once. The rest are their events' `waiting`. */
  readonly #recorded = new Set<DeliveryRecord>()
  /** Delivered and failed ones by webhook, oldest first: the newest KEPT_FINISHED, for admins to read. */
  readonly #finished = new Map<number, DeliveryRecord[]>()
  /** Each event a pending delivery waits to send: its JSON text once, and the webhooks not attempted yet. */
  readonly #events = new Map<number, WebhookEventRecord>()
  /** Webhooks that may have failed deliveries among their finished ones (the snapshot keeps those). */
  readonly #failing = new Set<number>()
  /** Failed deliveries given up past MAX_WAITING: listed while the service runs, counted on the webhook, not kept on disk. */
  readonly #givenUp = new WeakSet<DeliveryRecord>()
  readonly #inFlight = new Map<number, Set<number>>()
  readonly #retryDelays: readonly number[]
  #saving: ReturnType<typeof setTimeout> | null = null
  /** When the oldest outcome that no snapshot has captured yet was noted (performance.now()); null when none. */
  #unsavedSince: number | null = null

  constructor(
    hooks: readonly WebhookRecord[],
    deliveries: readonly DeliveryRecord[],
    events: readonly WebhookEventRecord[],
    private readonly commit: Commit,
    private readonly now: () => Date,
    private readonly options: WebhookOptions,
  ) {
    for (const hook of hooks) this.#hooks.set(hook.id, hook)
    const pending: DeliveryRecord[] = []
    for (const event of events) {
      this.#events.set(event.seq, event)
      if (event.waiting?.length) {
        const at = queuedAt(event, this.now)
        for (const webhook of event.waiting) pending.push(fresh(webhook, event, at))
      }
    }
    for (const delivery of [...deliveries].sort((a, b) => a.seq - b.seq))
      if (delivery.status === 'pending') {
        pending.push(delivery)
        this.#recorded.add(delivery)
      } else this.#finish(delivery)
    for (const delivery of pending.sort((a, b) => a.seq - b.seq))
      this.#queueOf(delivery.webhook).set(delivery.seq, delivery)
    this.#retryDelays = options.retryDelays ?? RETRY_DELAYS_MS
  }

  list(caller: Caller): Webhook[] {
    requireAdmin(caller)
    return [...this.#hooks.values()].map(shown)
  }

  retrieve(caller: Caller, id: string): Webhook {
    requireAdmin(caller)
    return shown(this.#find(id))
  }

  /** Adds a webhook; answers it with its secret, shown this once. */
  async create(caller: Caller, body: unknown): Promise<Webhook & { secret: string }> {
    requireAdmin(caller)
    const fields = fieldsOrRefuse(WEBHOOK_BODY.check(body))
    const url = await this.#vet(fields.url)
    const events = CHANGE_TYPES.filter((type) => fields.events?.includes(type) ?? true)
    if (events.length === 0) throw new ValidationFailed({ events: ['Choose at least one event type.'] })
    const record: WebhookRecord = {
      id: Math.max(0, ...this.#hooks.keys()) + 1,
      url: url.href,
      description: fields.description ?? '',
      events,
      created_at: this.now().toISOString(),
      secret: `whsec_${randomBytes(32).toString('base64')}`,
    }
    await this.commit(() => {
      this.#hooks.set(record.id, record)
      return () => this.#hooks.delete(record.id)
    })
    return { ...shown(record), secret: record.secret }
  }

  /** Removes a webhook and every delivery it has: none pending is attempted again. */
  async destroy(caller: Caller, id: string): Promise<void> {
    requireAdmin(caller)
    const hook = this.#find(id)
    await this.commit(() => {
      const queue = this.#pending.get(hook.id)
      const recorded = [...(queue?.values() ?? [])].filter((delivery) => this.#recorded.has(delivery))
      const finished = this.#finished.get(hook.id)
      const waitedFor = [...this.#events.values()].filter((event) => event.waiting?.includes(hook.id))
      this.#hooks.delete(hook.id)
      this.#pending.delete(hook.id)
      for (const delivery of recorded) this.#recorded.delete(delivery)
      for (const event of waitedFor) this.#events.set(event.seq, notWaitingFor(event, hook.id))
      this.#finished.delete(hook.id)
      return () => {
        this.#hooks.set(hook.id, hook)
        if (queue) this.#pending.set(hook.id, queue)
        for (const delivery of recorded) this.#recorded.add(delivery)
        for (const event of waitedFor) this.#events.set(event.seq, event)
        if (finished) {
          this.#finished.set(hook.id, finished)
          this.#failing.add(hook.id)
        }
      }
    })
  }

  /** A webhook's deliveries, newest event first. */
  deliveries(caller: Caller, id: string): Delivery[] {
    requireAdmin(caller)
    const hook = this.#find(id)
    return [...(this.#pending.get(hook.id)?.values() ?? []), ...(this.#finished.get(hook.id) ?? [])]
      .sort((a, b) => b.seq - a.seq)
      .map(answered)
  }

  /** Queues `events` for every webhook that wants their type; called in the commit that numbered them. */
  enqueue(events: readonly LoggedChange[]): Undo {
    if (this.#hooks.size === 0 || events.length === 0) return () => {}
    const at = this.now().toISOString()
    const queued: WebhookEventRecord[] = []
    // One call for the write's every nonce: a call per delivery cost the commit 70 µs at fifty webhooks.
    const random = randomBytes(NONCE_BYTES * events.length)
    events.forEach(({ seq, type, text }, i) => {
      const waiting: number[] = []
      for (const hook of this.#hooks.values()) if (hook.events.includes(type)) waiting.push(hook.id)
      if (!waiting.length) return
      const nonce = random.toString('base64url', i * NONCE_BYTES, (i + 1) * NONCE_BYTES)
      const event: WebhookEventRecord = { seq, body: text, nonce, waiting }
      this.#events.set(seq, event)
      for (const webhook of waiting) this.#queueOf(webhook).set(seq, fresh(webhook, event, at))
      queued.push(event)
    })
    return () => {
      for (const { seq, waiting } of queued) {
        for (const webhook of waiting!) this.#unqueue(webhook, seq)
        this.#events.delete(seq)
      }
    }
  }

  /** The deliveries due now whose events are on disk, each marked as under way until `release`. */
  take(): DueDelivery[] {
    if (this.#pending.size === 0 || this.options.sendsHere?.() === false) return []
    const now = this.now().getTime()
    const published = this.options.published()
    const out: DueDelivery[] = []
    for (const [id, queue] of this.#pending) {
      const hook = this.#hooks.get(id)
      let flying = this.#inFlight.get(id)
      for (const delivery of queue.values()) {
        if (!hook || (flying?.size ?? 0) >= MAX_IN_FLIGHT) break
        if (flying?.has(delivery.seq) || !isDue(delivery, now, published)) continue
        if (!flying) this.#inFlight.set(id, (flying = new Set()))
        flying.add(delivery.seq)
        out.push({
          webhook: id,
          seq: delivery.seq,
          messageId: delivery.message_id,
          url: hook.url,
          secret: hook.secret,
          body: this.#events.get(delivery.seq)!.body,
        })
      }
    }
    return out
  }

  /**
   * Lets `take` hand out this delivery again (when still pending and due). Answers whether its
   * webhook has deliveries not under way, which `take` and `nextDueIn` should look at again: one
   * held back by the limit of attempts at once, or this one, due again later.
   */
  release({ webhook, seq }: DueDelivery): boolean {
    const flying = this.#inFlight.get(webhook)
    flying?.delete(seq)
    if (flying?.size === 0) this.#inFlight.delete(webhook)
    return (this.#pending.get(webhook)?.size ?? 0) > (flying?.size ?? 0)
  }

  /** Milliseconds until the next delivery that `take` would hand out is due; null when none is waiting. */
  nextDueIn(): number | null {
    if (this.#pending.size === 0) return null
    if (this.options.sendsHere?.() === false) return SENDER_CHECK_MS
    const published = this.options.published()
    let next = Infinity
    for (const [id, queue] of this.#pending) {
      const flying = this.#inFlight.get(id)
      if ((flying?.size ?? 0) >= MAX_IN_FLIGHT) continue
      for (const delivery of queue.values())
        if (delivery.seq <= published && !flying?.has(delivery.seq)) next = Math.min(next, dueAt(delivery))
    }
    return next === Infinity ? null : Math.max(0, next - this.now().getTime())
  }

  /**
   * Notes what an attempt came to — delivered, due again after the next delay, or failed after the
   * last — and saves it with the next write, or within a second. Outcomes are not worth a write of
   * their own each (fifty receivers of one event would queue fifty writes ahead of the next
   * client's), nor one at all while writes carry them: one lost in a crash is an attempt made
   * again, which delivery at least once allows.
   */
  settle({ webhook, seq }: DueDelivery, outcome: Outcome): void {
    const was = this.#pending.get(webhook)?.get(seq)
    if (!was) return
    const attempts = was.attempts + 1
    const delay = this.#retryDelays[attempts - 1]
    const finished = outcome.delivered || delay === undefined
    const next: DeliveryRecord = {
      ...was,
      status: outcome.delivered ? 'delivered' : finished ? 'failed' : 'pending',
      attempts,
      last_status_code: outcome.statusCode,
      last_error: outcome.delivered ? null : outcome.error,
      next_attempt_at: finished ? null : new Date(this.now().getTime() + delay!).toISOString(),
    }
    if (!this.#recorded.delete(was)) {
      // Its first attempt: from now on the delivery is a record of its own (when still pending).
      const event = this.#events.get(seq)!
      this.#events.set(seq, notWaitingFor(event, webhook))
    }
    if (finished) {
      this.#unqueue(webhook, seq)
      this.#finish(next)
    } else {
      this.#queueOf(webhook).set(seq, next)
      this.#recorded.add(next)
    }
    if (!outcome.delivered) this.#giveUpPastLimit(webhook)
    this.#saveSoon()
  }

  /**
   * After a failed attempt, gives up the oldest deliveries (not under way) past the newest
   * MAX_WAITING of the webhook: each finishes failed, saying why, and the webhook counts them. Only
   * then: a burst of events to a receiver that takes them is sent in full.
   */
  #giveUpPastLimit(webhook: number): void {
    const queue = this.#pending.get(webhook)
    const hook = this.#hooks.get(webhook)
    if (!queue || !hook || queue.size <= MAX_WAITING) return
    const flying = this.#inFlight.get(webhook)
    // Oldest event first (a queue another instance filled is in the order it heard of them).
    const oldest = [...queue.values()].filter(({ seq }) => !flying?.has(seq)).sort((a, b) => a.seq - b.seq)
    const given = oldest.slice(0, queue.size - MAX_WAITING)
    if (!given.length) return
    for (const delivery of given) {
      if (!this.#recorded.has(delivery))
        this.#events.set(delivery.seq, notWaitingFor(this.#events.get(delivery.seq)!, webhook))
      this.#unqueue(webhook, delivery.seq)
      const last_error = `Given up unsent: the receiver kept failing while ${MAX_WAITING} newer deliveries waited (GET /api/changes/?since=${delivery.seq - 1} has the event while the change log keeps it).`
      const record: DeliveryRecord = { ...delivery, status: 'failed', last_error, next_attempt_at: null }
      this.#givenUp.add(record)
      this.#finish(record)
    }
    this.#hooks.set(webhook, { ...hook, dropped_deliveries: (hook.dropped_deliveries ?? 0) + given.length })
  }

  /**
   * Saves the outcomes noted so far within OUTCOMES_SAVED_WITHIN_MS: a write of their own only for
   * those that no write's snapshot has captured by then (with writes flowing, none; one captured
   * by a write that then failed waits for the next write or outcome).
   */
  #saveSoon(): void {
    this.#unsavedSince ??= performance.now()
    if (!this.#saving) this.#saveIn(OUTCOMES_SAVED_WITHIN_MS)
  }

  #saveIn(ms: number): void {
    this.#saving = setTimeout(() => {
      this.#saving = null
      if (this.#unsavedSince === null) return
      const wait = this.#unsavedSince + OUTCOMES_SAVED_WITHIN_MS - performance.now()
      if (wait > 0) return this.#saveIn(wait)
      // A failed save leaves the outcomes in memory: the next write, or the next try, saves them.
      this.commit(() => []).catch(() => this.#saveSoon())
    }, ms)
    this.#saving.unref?.()
  }

  /** Puts the webhook `id` as another instance left it (null: deleted). */
  putHook(id: number, record: WebhookRecord | null): void {
    if (record) this.#hooks.set(id, record)
    else {
      this.#hooks.delete(id)
      this.#finished.delete(id)
    }
  }

  /** Puts a delivery as another instance left it: attempted and pending, failed, or (null) no longer kept, delivered or gone with its webhook. */
  putDelivery(webhook: number, seq: number, record: DeliveryRecord | null): void {
    this.#unqueue(webhook, seq)
    // A finished one gone there (past the newest kept) goes here too, or this instance's next write would bring it back.
    const finished = this.#finished.get(webhook)
    const at = finished?.findIndex((delivery) => delivery.seq === seq) ?? -1
    if (at >= 0) finished!.splice(at, 1)
    if (record?.status === 'pending') {
      this.#queueOf(webhook).set(seq, record)
      this.#recorded.add(record)
    } else if (record) this.#finish(record)
  }

  /**
   * Puts event `seq` as another instance left it (null: no delivery waits to send it any more),
   * with the deliveries not attempted yet that it names: those it no longer names were attempted
   * there (their records, if still pending, come with putDelivery, in either order).
   */
  putEvent(seq: number, event: WebhookEventRecord | null): void {
    const was = this.#events.get(seq)
    for (const webhook of was?.waiting ?? [])
      if (!event?.waiting?.includes(webhook)) {
        const delivery = this.#pending.get(webhook)?.get(seq)
        if (delivery && !this.#recorded.has(delivery)) this.#unqueue(webhook, seq)
      }
    if (event === null) return void this.#events.delete(seq)
    this.#events.set(seq, event)
    // Read from the body only for a delivery new here: an event's every attempt elsewhere puts it again.
    let at: string | undefined
    for (const webhook of event.waiting ?? [])
      if (!this.#pending.get(webhook)?.has(seq))
        this.#queueOf(webhook).set(seq, fresh(webhook, event, (at ??= queuedAt(event, this.now))))
  }

  snapshot(): {
    webhooks: WebhookRecord[]
    webhook_deliveries: DeliveryRecord[]
    webhook_events: WebhookEventRecord[]
  } {
    this.#unsavedSince = null
    // Loops, not flat(): this runs with every write, over up to a hundred finished per webhook.
    const kept: DeliveryRecord[] = []
    const needed = new Set<number>()
    for (const delivery of this.#recorded) {
      kept.push(delivery)
      needed.add(delivery.seq)
    }
    // Delivered ones are for reading while the service runs: on disk, fifty webhooks' hundred
    // each would weigh on every write. Failed ones, which an admin must see, stay, but for those
    // given up past the bound: one per event while a receiver is down, which its count stands for.
    for (const id of this.#failing) {
      let any = false
      for (const delivery of this.#finished.get(id) ?? [])
        if (delivery.status === 'failed' && !this.#givenUp.has(delivery)) {
          kept.push(delivery)
          any = true
        }
      if (!any) this.#failing.delete(id)
    }
    // An event no pending delivery needs any more goes now (a webhook deleted, its events all sent).
    for (const [seq, event] of this.#events) if (!event.waiting?.length && !needed.has(seq)) this.#events.delete(seq)
    return {
      webhooks: [...this.#hooks.values()],
      webhook_deliveries: kept,
      webhook_events: [...this.#events.values()],
    }
  }

  #find(id: string): WebhookRecord {
    const hook = /^\d{1,9}$/.test(id) ? this.#hooks.get(Number(id)) : undefined
    if (!hook) throw new NotFound()
    return hook
  }

  #queueOf(webhook: number): Map<number, DeliveryRecord> {
    let queue = this.#pending.get(webhook)
    if (!queue) this.#pending.set(webhook, (queue = new Map()))
    return queue
  }

  #unqueue(webhook: number, seq: number): void {
    const queue = this.#pending.get(webhook)
    const delivery = queue?.get(seq)
    if (delivery) this.#recorded.delete(delivery)
    queue?.delete(seq)
    if (queue?.size === 0) this.#pending.delete(webhook)
  }

  /** Keeps a finished delivery among its webhook's newest KEPT_FINISHED. */
  #finish(delivery: DeliveryRecord): void {
    let finished = this.#finished.get(delivery.webhook)
    if (!finished) this.#finished.set(delivery.webhook, (finished = []))
    finished.push(delivery)
    if (finished.length > KEPT_FINISHED) finished.shift()
    if (delivery.status === 'failed' && !this.#givenUp.has(delivery)) this.#failing.add(delivery.webhook)
  }

  /** The URL, or a 400 on `url`: not http(s), or (unless allowed) an address, or a name resolving to one, that is not public. */
  async #vet(text: string): Promise<URL> {
    try {
      const url = checkWebhookUrl(text, this.options.allowPrivate)
      if (!this.options.allowPrivate) await resolveTarget(url, false)
      return url
    } catch (e) {
      // A name that does not resolve yet may once the receiver is set up; each attempt checks again.
      if (e instanceof HostUnresolved) return new URL(text)
      if (e instanceof TargetRefused) throw new ValidationFailed({ url: [e.message] })
      throw e
    }
  }
}

function requireAdmin(caller: Caller): void {
  if (!requireUser(caller).isAdmin) throw new PermissionDenied()
}

const isDue = (delivery: DeliveryRecord, now: number, published: number) =>
  delivery.status === 'pending' && delivery.seq <= published && dueAt(delivery) <= now

/** Each pending delivery's next attempt time, parsed once: take and nextDueIn look at every one, each time. */
const DUE_AT = new WeakMap<DeliveryRecord, number>()
let lastTimeText = ''
let lastTime = NaN
/**
 * When `delivery` is due (ms since the epoch): a record never changes, so its time is parsed once,
 * and the last time parsed is remembered too (an event's fresh deliveries, fifty at a fan-out, share one).
 */
function dueAt(delivery: DeliveryRecord): number {
  let time = DUE_AT.get(delivery)
  if (time === undefined) {
    const text = delivery.next_attempt_at!
    if (text !== lastTimeText) {
      lastTimeText = text
      lastTime = Date.parse(text)
    }
    DUE_AT.set(delivery, (time = lastTime))
  }
  return time
}

/** A delivery of `event` to `webhook` not attempted yet: its message id is made from the event's nonce. */
function fresh(webhook: number, event: WebhookEventRecord, at: string): DeliveryRecord {
  return {
    webhook,
    seq: event.seq,
    message_id: `msg_${event.nonce}_${webhook}`,
    status: 'pending',
    attempts: 0,
    last_status_code: null,
    last_error: null,
    next_attempt_at: at,
  }
}

const notWaitingFor = (event: WebhookEventRecord, webhook: number): WebhookEventRecord => ({
  ...event,
  waiting: event.waiting?.filter((id) => id !== webhook),
})

/** When an event's deliveries were queued: the time the event itself says, read back from the data file or another instance. */
function queuedAt(event: WebhookEventRecord, now: () => Date): string {
  try {
    const { at } = JSON.parse(event.body) as { at?: unknown }
    if (typeof at === 'string' && !Number.isNaN(Date.parse(at))) return at
  } catch {
    // A body that is not a change event is still sent as it is; it is due now.
  }
  return now().toISOString()
}
