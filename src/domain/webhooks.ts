import { randomBytes } from 'node:crypto'
import { requireUser, type Caller } from './caller'
import type { LoggedChange } from './change-log'
import { pair, Touched } from './change-set'
import { BodyCheck, fieldsOrRefuse } from './check'
import { NotFound, PermissionDenied, ValidationFailed } from './errors'
import type { Commit } from './journal'
import type { Undo } from './undo'
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

/** How long a failed delivery waits before each next attempt (docs/reference.md §18); failed after the last. */
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
/**
 * Attempts at once to all webhooks, shared among them (one each at least): the sending thread's
 * HTTP client keeps 64 connections open for reuse, and an attempt past them opens and closes one
 * of its own, which cost a fan-out to fifty webhooks, five at once each, 40% more CPU.
 */
const ATTEMPTS_AT_ONCE = 64
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

/** One delivery's attempt: where, what, and the secret that signs it. */
export interface DueDelivery {
  readonly webhook: number
  readonly seq: number
  readonly messageId: string
  readonly url: string
  readonly secret: string
  readonly body: string
}

/** Where a webhook's deliveries go, and the secret that signs them. */
export interface Target {
  readonly url: string
  readonly secret: string
}

/**
 * An event's deliveries to attempt now: its text once, however many webhooks get it, and the
 * webhooks. Those attempted for the first time are named by id alone (their webhook-id is made
 * from the event's nonce, `messageIdOf`); those attempted again come with their record's.
 */
export interface DueEvent {
  readonly seq: number
  readonly body: string
  readonly nonce: string
  readonly fresh: number[]
  readonly again: (readonly [webhook: number, messageId: string])[]
}

/** What `take` hands out: the events to send, and every webhook's target, by id. */
export interface Due {
  readonly events: readonly DueEvent[]
  readonly targets: ReadonlyMap<number, Target>
}

/** What one attempt came to: a 2xx delivers; anything else is retried, then fails. */
export type Outcome =
  | { readonly delivered: true; readonly statusCode: number }
  | { readonly delivered: false; readonly statusCode: number | null; readonly error: string }

/**
 * What attempts came to, as few values as can say it (a fan-out's fifty outcomes are read on the
 * request thread): `delivered` lists `[seq, status code, ...webhooks]`, the webhooks an event was
 * delivered to with that status; `failed` each attempt that was not, and why; `lost`, that every
 * attempt under way was lost (the sending thread failed), and why.
 */
export interface Outcomes {
  readonly delivered: readonly (readonly number[])[]
  readonly failed: readonly Failure[]
  readonly lost?: string
}
export type Failure = readonly [seq: number, webhook: number, statusCode: number | null, error: string]

/** What settling outcomes came to for the dispatcher: whether to look again at what is due, and the attempts whose outcome could not be noted (the clock failed), still under way. */
export interface Settled {
  readonly more: boolean
  readonly faulted: readonly (readonly [webhook: number, seq: number])[]
}

/** The webhook-id of a delivery of the event with `nonce` to `webhook`: the same on every attempt. */
export const messageIdOf = (nonce: string, webhook: number) => `msg_${nonce}_${webhook}`

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
 * Webhooks (docs/reference.md §18): admins add and remove them; each event is queued, in the commit of
 * the write that made it, for every webhook that wants its type, so that a delivery is on disk
 * as soon as its event is. Attempts (made at the edge, which knows HTTP) settle each delivery:
 * delivered, tried again on the schedule, or failed.
 *
 * What the request thread does per event does not grow with the webhooks that get it: a delivery
 * not attempted yet is no record of its own but its webhook's id in its event's `waiting` list
 * (which the commit shares among the events of one type), the event is handed to the sending
 * thread once with those ids, and what its attempts came to is noted in one pass, the event's
 * list shortened once. A delivery becomes a record of its own only when an attempt fails and it
 * waits to be tried again.
 */
export class WebhookService {
  readonly #hooks = new Map<number, WebhookRecord>()
  /** The webhooks wanting each event type, in order: one list every event of that type shares until the webhooks change. */
  readonly #wanting = new Map<string, readonly number[]>()
  /** Each event a delivery waits to send: its JSON text once, and the webhooks not attempted yet (its fresh deliveries). */
  readonly #events = new Map<number, WebhookEventRecord>()
  /** Deliveries attempted and waiting to be tried again (or, from an older data file, kept as records), by webhook, then event number. */
  readonly #retrying = new Map<number, Map<number, DeliveryRecord>>()
  /** Delivered and failed ones by webhook, oldest first: the newest KEPT_FINISHED (#kept), for admins to read. */
  readonly #finished = new Map<number, DeliveryRecord[]>()
  /** Webhooks that may have failed deliveries among their finished ones (the snapshot keeps those). */
  readonly #failing = new Set<number>()
  /** Failed deliveries given up past MAX_WAITING: listed while the service runs, counted on the webhook, not kept on disk. */
  readonly #givenUp = new WeakSet<DeliveryRecord>()
  /** The events each webhook has attempts of under way (kept when empty: a fan-out would make fifty anew each event). */
  readonly #inFlight = new Map<number, Set<number>>()
  /** Attempts at once to one webhook: MAX_IN_FLIGHT, or its share of ATTEMPTS_AT_ONCE when there are many. */
  #perWebhook = MAX_IN_FLIGHT
  readonly #retryDelays: readonly number[]
  #saving: ReturnType<typeof setTimeout> | null = null
  /**
   * The keys of the records on disk (snapshot()) that changed since a write last took them, by
   * collection: a write carries what changed, not the webhooks' every record.
   */
  readonly touched = { webhooks: new Touched(), deliveries: new Touched(), events: new Touched() }

  constructor(
    hooks: readonly WebhookRecord[],
    deliveries: readonly DeliveryRecord[],
    events: readonly WebhookEventRecord[],
    private readonly commit: Commit,
    private readonly now: () => Date,
    private readonly options: WebhookOptions,
  ) {
    for (const hook of hooks) this.#setHook(hook.id, hook)
    for (const event of events) this.#setEvent(event.seq, event)
    // A data file of an earlier release keeps a fan-out not attempted yet as records (attempts 0): they are retried as records.
    for (const delivery of [...deliveries].sort((a, b) => a.seq - b.seq))
      if (delivery.status === 'pending') this.#retriesOf(delivery.webhook).set(delivery.seq, delivery)
      else this.#finish(delivery)
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
      this.#setHook(record.id, record)
      return () => this.#setHook(record.id, null)
    })
    return { ...shown(record), secret: record.secret }
  }

  /** Removes a webhook and every delivery it has: none pending is attempted again. */
  async destroy(caller: Caller, id: string): Promise<void> {
    requireAdmin(caller)
    const hook = this.#find(id)
    await this.commit(() => {
      const retries = this.#retrying.get(hook.id)
      const finished = this.#finished.get(hook.id)
      // The events it waits to send or try again: those no other webhook needs go with it.
      const needed = [...this.#events.values()].filter(
        (event) => event.waiting?.includes(hook.id) || retries?.has(event.seq),
      )
      const onDisk = this.#deliveriesOnDisk(hook.id)
      this.#setHook(hook.id, null)
      this.#retrying.delete(hook.id)
      for (const { seq } of needed) this.#stopWaiting(seq, new Set([hook.id]))
      this.#finished.delete(hook.id)
      for (const { webhook, seq } of onDisk) this.#touchDelivery(webhook, seq)
      return () => {
        this.#setHook(hook.id, hook)
        if (retries) this.#retrying.set(hook.id, retries)
        for (const event of needed) this.#setEvent(event.seq, event)
        if (finished) {
          this.#finished.set(hook.id, finished)
          this.#failing.add(hook.id)
        }
        for (const { webhook, seq } of onDisk) this.#touchDelivery(webhook, seq)
      }
    })
  }

  /** A webhook's deliveries, newest event first. */
  deliveries(caller: Caller, id: string): Delivery[] {
    requireAdmin(caller)
    const hook = this.#find(id)
    const retries = this.#retrying.get(hook.id)
    const fresh: DeliveryRecord[] = []
    for (const event of this.#events.values())
      if (event.waiting?.includes(hook.id) && !retries?.has(event.seq))
        fresh.push(freshDelivery(hook.id, event, queuedAt(event, this.now)))
    return [...(retries?.values() ?? []), ...fresh, ...this.#kept(hook.id)].sort((a, b) => b.seq - a.seq).map(answered)
  }

  /**
   * Queues `events` for every webhook that wants their type; called in the commit that numbered
   * them. Each event is one record naming its webhooks, however many they are: a list the events
   * of its type share, not made anew.
   */
  enqueue(events: readonly LoggedChange[]): Undo {
    if (this.#hooks.size === 0 || events.length === 0) return () => {}
    const queued: number[] = []
    // One call for the write's every nonce: a call per delivery cost the commit 70 µs at fifty webhooks.
    const random = randomBytes(NONCE_BYTES * events.length)
    events.forEach(({ seq, type, text }, i) => {
      const waiting = this.#wantingOf(type)
      if (!waiting.length) return
      const nonce = random.toString('base64url', i * NONCE_BYTES, (i + 1) * NONCE_BYTES)
      this.#setEvent(seq, { seq, body: text, nonce, waiting: waiting as number[] })
      queued.push(seq)
    })
    return () => {
      for (const seq of queued) this.#setEvent(seq, null)
    }
  }

  /**
   * The deliveries due now whose events are on disk, each marked as under way until settled (or
   * `release`d): those tried again when their time comes, and those not attempted yet as soon as
   * their event is on disk. At most #perWebhook at once per webhook, the oldest first.
   */
  take(): Due {
    const out: Due = { events: [], targets: this.#hooks }
    if ((this.#retrying.size === 0 && this.#events.size === 0) || this.options.sendsHere?.() === false) return out
    const now = this.now().getTime()
    const published = this.options.published()
    const due = new Map<number, DueEvent>()
    const dueOf = (seq: number) => {
      let event = due.get(seq)
      if (!event) {
        const { body, nonce = '' } = this.#events.get(seq)!
        due.set(seq, (event = { seq, body, nonce, fresh: [], again: [] }))
      }
      return event
    }
    // Those tried again first: theirs are the older events.
    for (const [id, retries] of this.#retrying) {
      if (!this.#hooks.has(id)) continue
      const flying = this.#flying(id)
      for (const delivery of retries.values()) {
        if (flying.size >= this.#perWebhook) break
        if (flying.has(delivery.seq) || !isDue(delivery, now, published)) continue
        flying.add(delivery.seq)
        dueOf(delivery.seq).again.push([id, delivery.message_id])
      }
    }
    // Once no webhook can take another attempt, no later event is looked at: with receivers
    // behind, hundreds of events wait, and this runs after every write and every settled batch.
    let room = 0
    for (const id of this.#hooks.keys()) if (this.#flying(id).size < this.#perWebhook) room++
    for (const event of this.#events.values()) {
      if (room === 0) break
      if (event.seq > published || !event.waiting?.length) continue
      let fresh: number[] | undefined
      for (const id of event.waiting) {
        if (!this.#sendable(id, event.seq)) continue
        const flying = this.#inFlight.get(id)!
        flying.add(event.seq)
        if (flying.size === this.#perWebhook) room--
        ;(fresh ??= dueOf(event.seq).fresh).push(id)
      }
    }
    return { ...out, events: [...due.values()] }
  }

  /** Lets `take` hand out the delivery of event `seq` to `webhook` again (when still pending and due). */
  release(webhook: number, seq: number): void {
    this.#inFlight.get(webhook)?.delete(seq)
  }

  /**
   * After a `take`, milliseconds until the next delivery to try again is due; null when none
   * waits. Those not attempted yet need no timer: `take` handed out every one it could, and the
   * rest can go when an event lands or an attempt settles, which look again.
   */
  nextDueIn(): number | null {
    if (this.#retrying.size === 0 && this.#events.size === 0) return null
    if (this.options.sendsHere?.() === false) return SENDER_CHECK_MS
    const published = this.options.published()
    let next = Infinity
    for (const [id, retries] of this.#retrying) {
      const flying = this.#inFlight.get(id)
      if ((flying?.size ?? 0) >= this.#perWebhook) continue
      for (const delivery of retries.values())
        if (delivery.seq <= published && !flying?.has(delivery.seq)) next = Math.min(next, dueAt(delivery))
    }
    return next === Infinity ? null : Math.max(0, next - this.now().getTime())
  }

  /**
   * Notes what attempts came to — delivered, due again after the next delay, or failed after the
   * last — in one pass however many there are (each event's list of webhooks not attempted yet is
   * shortened once), and saves it with the next write, or within a second. Outcomes are not worth
   * a write of their own each (fifty receivers of one event would queue fifty writes ahead of the
   * next client's), nor one at all while writes carry them: one lost in a crash is an attempt
   * made again, which delivery at least once allows.
   */
  settle({ delivered, failed, lost }: Outcomes): Settled {
    let more = false
    /** Each event whose fresh deliveries are settled: the webhooks it waited for, and those that leave its `waiting` list. */
    const attempted = new Map<number, { readonly event: WebhookEventRecord; waited: Set<number>; done: Set<number> }>()
    /** Events whose deliveries tried again are done: each goes once no delivery needs it. */
    const unqueued = new Set<number>()
    /** The delivery of `seq` to `webhook` as it waited (a record, or made from its event), or null when none does (its webhook deleted meanwhile). */
    const waiting = (webhook: number, seq: number): DeliveryRecord | null => {
      const flying = this.#inFlight.get(webhook)
      // One held back by the limit of attempts at once can go now.
      if ((flying?.size ?? 0) >= this.#perWebhook) more = true
      flying?.delete(seq)
      const record = this.#retrying.get(webhook)?.get(seq)
      if (record) return record
      let fanned = attempted.get(seq)
      if (!fanned) {
        const event = this.#events.get(seq)
        if (!event?.waiting?.length) return null
        attempted.set(seq, (fanned = { event, waited: new Set(event.waiting), done: new Set() }))
      }
      if (!fanned.waited.has(webhook)) return null
      fanned.done.add(webhook)
      return freshDelivery(webhook, fanned.event, '')
    }
    for (const outcome of delivered) {
      const seq = outcome[0]!
      const statusCode = outcome[1]!
      for (let i = 2; i < outcome.length; i++) {
        const webhook = outcome[i]!
        const was = waiting(webhook, seq)
        if (!was) continue
        if (this.#unqueue(webhook, seq)) unqueued.add(seq)
        this.#finish({
          webhook,
          seq,
          message_id: was.message_id,
          status: 'delivered',
          attempts: was.attempts + 1,
          last_status_code: statusCode,
          last_error: null,
          next_attempt_at: null,
        })
      }
    }
    const failures: Failure[] = [...failed]
    if (lost !== undefined)
      for (const [webhook, flying] of this.#inFlight)
        for (const seq of flying) failures.push([seq, webhook, null, `The sending thread failed: ${lost}`])
    const faulted: (readonly [number, number])[] = []
    const failing = new Set<number>()
    let now: number | undefined
    for (const [seq, webhook, statusCode, error] of failures) {
      try {
        now ??= this.now().getTime()
      } catch {
        // The clock failed (a fault a test injects): the delivery stays pending as it was, under way a while.
        faulted.push([webhook, seq])
        continue
      }
      const was = waiting(webhook, seq)
      if (!was) continue
      more = true
      const attempts = was.attempts + 1
      const delay = this.#retryDelays[attempts - 1]
      const next: DeliveryRecord = {
        ...was,
        status: delay === undefined ? 'failed' : 'pending',
        attempts,
        last_status_code: statusCode,
        last_error: error,
        next_attempt_at: delay === undefined ? null : new Date(now + delay).toISOString(),
      }
      if (delay === undefined) {
        if (this.#unqueue(webhook, seq)) unqueued.add(seq)
        this.#finish(next)
      } else this.#setRetry(next)
      failing.add(webhook)
    }
    for (const [seq, { done }] of attempted) this.#stopWaiting(seq, done)
    for (const seq of unqueued) this.#dropUnneeded(seq)
    for (const webhook of failing) this.#giveUpPastLimit(webhook)
    if (attempted.size || failing.size || delivered.length) this.#saveSoon()
    return { more, faulted }
  }

  /**
   * After a failed attempt, gives up the oldest deliveries (not under way) past the newest
   * MAX_WAITING of the webhook: each finishes failed, saying why, and the webhook counts them. Only
   * then: a burst of events to a receiver that takes them is sent in full.
   */
  #giveUpPastLimit(webhook: number): void {
    const hook = this.#hooks.get(webhook)
    if (!hook) return
    const retries = this.#retrying.get(webhook)
    const waiting: DeliveryRecord[] = [...(retries?.values() ?? [])]
    const fresh = new Map<number, WebhookEventRecord>()
    for (const event of this.#events.values())
      if (event.waiting?.includes(webhook) && !retries?.has(event.seq)) fresh.set(event.seq, event)
    if (waiting.length + fresh.size <= MAX_WAITING) return
    for (const event of fresh.values()) waiting.push(freshDelivery(webhook, event, ''))
    const flying = this.#inFlight.get(webhook)
    // Oldest event first (a queue another instance filled is in the order it heard of them).
    const oldest = waiting.filter(({ seq }) => !flying?.has(seq)).sort((a, b) => a.seq - b.seq)
    const given = oldest.slice(0, waiting.length - MAX_WAITING)
    if (!given.length) return
    const unhooked = new Set([webhook])
    for (const delivery of given) {
      if (fresh.has(delivery.seq)) this.#stopWaiting(delivery.seq, unhooked)
      else if (this.#unqueue(webhook, delivery.seq)) this.#dropUnneeded(delivery.seq)
      const last_error = `Given up unsent: the receiver kept failing while ${MAX_WAITING} newer deliveries waited (GET /api/changes/?since=${delivery.seq - 1} has the event while the change log keeps it).`
      const record: DeliveryRecord = { ...delivery, status: 'failed', last_error, next_attempt_at: null }
      this.#givenUp.add(record)
      this.#finish(record)
    }
    this.#setHook(webhook, { ...hook, dropped_deliveries: (hook.dropped_deliveries ?? 0) + given.length })
  }

  /**
   * Saves the outcomes noted so far within OUTCOMES_SAVED_WITHIN_MS: a write of their own only for
   * those that no write has taken by then (with writes flowing, none; one taken by a write that
   * was then refused waits for the next write or outcome).
   */
  #saveSoon(): void {
    if (this.#saving) return
    this.#saving = setTimeout(() => {
      this.#saving = null
      const { webhooks, deliveries, events } = this.touched
      if (!webhooks.any && !deliveries.any && !events.any) return
      // A failed save leaves the outcomes in memory: the next write, or the next try, saves them.
      this.commit(() => []).catch(() => this.#saveSoon())
    }, OUTCOMES_SAVED_WITHIN_MS)
    this.#saving.unref?.()
  }

  /** Puts the webhook `id` as another instance left it (null: deleted). */
  putHook(id: number, record: WebhookRecord | null): void {
    this.#setHook(id, record)
    if (!record) this.#finished.delete(id)
  }

  /** Puts a delivery as another instance left it: attempted and pending, failed, or (null) no longer kept, delivered or gone with its webhook. */
  putDelivery(webhook: number, seq: number, record: DeliveryRecord | null): void {
    this.#unqueue(webhook, seq)
    // A finished one gone there (past the newest kept) goes here too, or this instance's next write would bring it back.
    const finished = this.#kept(webhook)
    const at = finished.findIndex((delivery) => delivery.seq === seq)
    if (at >= 0) finished.splice(at, 1)
    this.#touchDelivery(webhook, seq)
    if (record?.status === 'pending') this.#setRetry(record)
    else if (record) this.#finish(record)
  }

  /**
   * Puts event `seq` as another instance left it (null: no delivery waits to send it any more),
   * with the deliveries not attempted yet that it names: those it no longer names were attempted
   * there (their records, if still pending, come with putDelivery, in either order).
   */
  putEvent(seq: number, event: WebhookEventRecord | null): void {
    this.#setEvent(seq, event)
  }

  snapshot(): {
    webhooks: WebhookRecord[]
    webhook_deliveries: DeliveryRecord[]
    webhook_events: WebhookEventRecord[]
  } {
    const kept: DeliveryRecord[] = []
    const needed = new Set<number>()
    for (const retries of this.#retrying.values())
      for (const delivery of retries.values()) {
        kept.push(delivery)
        needed.add(delivery.seq)
      }
    // Delivered ones are for reading while the service runs: on disk, fifty webhooks' hundred
    // each would weigh on every write. Failed ones, which an admin must see, stay, but for those
    // given up past the bound: one per event while a receiver is down, which its count stands for.
    for (const id of this.#failing) {
      const failed = this.#failedKept(id)
      kept.push(...failed)
      if (!failed.length) this.#failing.delete(id)
    }
    // An event no pending delivery needs any more goes now (a webhook deleted, its events all sent).
    for (const [seq, event] of this.#events) if (!event.waiting?.length && !needed.has(seq)) this.#setEvent(seq, null)
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

  /** The webhook `id` as the snapshot has it (null: none). */
  hookOnDisk(id: number): WebhookRecord | null {
    return this.#hooks.get(id) ?? null
  }

  /** The delivery of event `seq` to `webhook` as the snapshot has it: waiting to be tried again, or failed among the newest kept (null: none). */
  deliveryOnDisk(webhook: number, seq: number): DeliveryRecord | null {
    return this.#retrying.get(webhook)?.get(seq) ?? this.#failedKept(webhook).find((d) => d.seq === seq) ?? null
  }

  /** Event `seq` as the snapshot has it (null: none). */
  eventOnDisk(seq: number): WebhookEventRecord | null {
    return this.#events.get(seq) ?? null
  }

  /** Sets (or, null, deletes) a webhook; the lists of webhooks wanting each type are made again. */
  #setHook(id: number, record: WebhookRecord | null): void {
    if (record) this.#hooks.set(id, record)
    else this.#hooks.delete(id)
    this.#wanting.clear()
    this.#perWebhook = Math.min(MAX_IN_FLIGHT, Math.max(1, Math.floor(ATTEMPTS_AT_ONCE / this.#hooks.size)))
    this.touched.webhooks.mark(String(id))
  }

  /** Puts (or, null, removes) event `seq`. */
  #setEvent(seq: number, event: WebhookEventRecord | null): void {
    if (event) this.#events.set(seq, event)
    else if (!this.#events.delete(seq)) return
    this.touched.events.mark(String(seq))
  }

  /**
   * Takes `webhooks` off event `seq`'s list of those not attempted yet; the event goes once nothing
   * waits to send it (it is not written out again only to go).
   */
  #stopWaiting(seq: number, webhooks: ReadonlySet<number>): void {
    const event = this.#events.get(seq)
    if (!event) return
    const rest = notWaitingFor(event, webhooks)
    this.#setEvent(seq, rest.waiting?.length || this.#recorded(seq) ? rest : null)
  }

  /** Removes event `seq` once nothing waits to send it: no webhook not attempted yet, no delivery to try again. */
  #dropUnneeded(seq: number): void {
    if (!this.#events.get(seq)?.waiting?.length && !this.#recorded(seq)) this.#setEvent(seq, null)
  }

  /** The deliveries of `webhook` the snapshot has: waiting to be tried again, and failed among the newest kept. */
  #deliveriesOnDisk(webhook: number): DeliveryRecord[] {
    return [...(this.#retrying.get(webhook)?.values() ?? []), ...this.#failedKept(webhook)]
  }

  /** The failed deliveries of `webhook` among its newest KEPT_FINISHED, but for those given up past the bound. */
  #failedKept(webhook: number): DeliveryRecord[] {
    return this.#kept(webhook).filter((delivery) => this.#failedOnDisk(delivery))
  }

  /** Whether a finished delivery is one the snapshot keeps (among its webhook's newest): failed, and not given up past the bound. */
  #failedOnDisk(delivery: DeliveryRecord): boolean {
    return delivery.status === 'failed' && !this.#givenUp.has(delivery)
  }

  /** Marks the delivery of event `seq` to `webhook` as changed on disk (put, changed or gone). */
  #touchDelivery(webhook: number, seq: number): void {
    this.touched.deliveries.mark(pair(webhook, seq))
  }

  #wantingOf(type: string): readonly number[] {
    let ids = this.#wanting.get(type)
    if (!ids) {
      ids = [...this.#hooks.values()].filter((hook) => (hook.events as string[]).includes(type)).map(({ id }) => id)
      this.#wanting.set(type, ids)
    }
    return ids
  }

  /** Whether a delivery of event `seq` waits to be tried again (its record needs the event). */
  #recorded(seq: number): boolean {
    for (const retries of this.#retrying.values()) if (retries.has(seq)) return true
    return false
  }

  /** Whether the first attempt of event `seq` to `webhook` may be handed out now. */
  #sendable(webhook: number, seq: number): boolean {
    const flying = this.#flying(webhook)
    return (
      flying.size < this.#perWebhook &&
      !flying.has(seq) &&
      this.#hooks.has(webhook) &&
      !this.#retrying.get(webhook)?.has(seq)
    )
  }

  #flying(webhook: number): Set<number> {
    let flying = this.#inFlight.get(webhook)
    if (!flying) this.#inFlight.set(webhook, (flying = new Set()))
    return flying
  }

  #retriesOf(webhook: number): Map<number, DeliveryRecord> {
    let retries = this.#retrying.get(webhook)
    if (!retries) this.#retrying.set(webhook, (retries = new Map()))
    return retries
  }

  /** Keeps a delivery attempted and waiting to be tried again. */
  #setRetry(delivery: DeliveryRecord): void {
    this.#retriesOf(delivery.webhook).set(delivery.seq, delivery)
    this.#touchDelivery(delivery.webhook, delivery.seq)
  }

  /** Drops the record of the delivery of `seq` to `webhook` waiting to be tried again; answers whether there was one. */
  #unqueue(webhook: number, seq: number): boolean {
    const retries = this.#retrying.get(webhook)
    if (!retries?.delete(seq)) return false
    if (retries.size === 0) this.#retrying.delete(webhook)
    this.#touchDelivery(webhook, seq)
    return true
  }

  /**
   * Keeps a finished delivery among its webhook's newest KEPT_FINISHED. The older ones go a
   * hundred at a time (#kept goes on from there): one at a time, each delivery of a fan-out
   * moved its webhook's hundred others.
   */
  #finish(delivery: DeliveryRecord): void {
    let finished = this.#finished.get(delivery.webhook)
    if (!finished) this.#finished.set(delivery.webhook, (finished = []))
    finished.push(delivery)
    // The one it pushed out of the newest KEPT_FINISHED leaves the snapshot, if it was there.
    const out = finished[finished.length - 1 - KEPT_FINISHED]
    if (out && this.#failedOnDisk(out)) this.#touchDelivery(out.webhook, out.seq)
    if (finished.length > 2 * KEPT_FINISHED) finished.splice(0, finished.length - KEPT_FINISHED)
    if (this.#failedOnDisk(delivery)) {
      this.#failing.add(delivery.webhook)
      this.#touchDelivery(delivery.webhook, delivery.seq)
    }
  }

  /** The newest KEPT_FINISHED finished deliveries of `webhook`, oldest first. */
  #kept(webhook: number): DeliveryRecord[] {
    const finished = this.#finished.get(webhook)
    if (!finished) return []
    if (finished.length > KEPT_FINISHED) finished.splice(0, finished.length - KEPT_FINISHED)
    return finished
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

/** A delivery of `event` to `webhook` not attempted yet, queued `at`: its message id is made from the event's nonce. */
function freshDelivery(webhook: number, event: WebhookEventRecord, at: string): DeliveryRecord {
  return {
    webhook,
    seq: event.seq,
    message_id: messageIdOf(event.nonce ?? '', webhook),
    status: 'pending',
    attempts: 0,
    last_status_code: null,
    last_error: null,
    next_attempt_at: at,
  }
}

const notWaitingFor = (event: WebhookEventRecord, webhooks: ReadonlySet<number>): WebhookEventRecord => ({
  ...event,
  waiting: event.waiting?.filter((id) => !webhooks.has(id)),
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
