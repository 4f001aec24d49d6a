import { t } from 'elysia'
// Elysia's t.Integer also accepts numeric strings; records and answers hold integers only.
import { Type } from '@sinclair/typebox'
import { ChangeEvent } from './change'

export const MAX_WEBHOOK_URL_LENGTH = 2048
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 500

const EventTypes = t.Array(ChangeEvent.properties.type, {
  description: 'The event types it gets; all three when not said.',
})

/** What an admin sends to add a webhook (POST /api/webhooks/). */
export const WebhookCreate = t.Object(
  {
    url: t.String({ maxLength: MAX_WEBHOOK_URL_LENGTH, description: 'Where each event is POSTed: http or https.' }),
    description: t.Optional(t.String({ maxLength: MAX_WEBHOOK_DESCRIPTION_LENGTH })),
    events: t.Optional(EventTypes),
  },
  { additionalProperties: false },
)

/** A webhook as answered: never its secret, which only the answer that made it shows. */
export const Webhook = t.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    url: t.String(),
    description: t.String(),
    events: EventTypes,
    created_at: t.String({ format: 'date-time' }),
    dropped_deliveries: Type.Integer({
      minimum: 0,
      description:
        'Deliveries given up unsent because its receiver kept failing while 100 newer ones waited: each is listed failed while the service runs (among the newest 100 finished); the count outlives a restart.',
    }),
  },
  { additionalProperties: false },
)
export type Webhook = typeof Webhook.static

/** The answer that made a webhook: the secret, shown this once. */
export const WebhookWithSecret = t.Object(
  {
    ...Webhook.properties,
    secret: t.String({
      pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
      examples: ['whsec_dCtIiZ/AR+TWVIym5ZatajEsbhUSwS5CkD3opzYFOmQ='],
      description: '"whsec_" then the base64 of 32 random bytes: verify each delivery with it. Shown this once.',
    }),
  },
  { additionalProperties: false },
)

/** A webhook as the data file keeps it: with its secret, which signs every delivery (and no count of dropped ones in files from before it). */
export const WebhookRecord = t.Object({
  ...Webhook.properties,
  dropped_deliveries: t.Optional(Webhook.properties.dropped_deliveries),
  secret: t.String(),
})
export type WebhookRecord = typeof WebhookRecord.static

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const

/** One event's delivery to one webhook, as answered (docs/reference.md §18). */
export const Delivery = t.Object(
  {
    seq: Type.Integer({ minimum: 1, description: 'The event delivered.' }),
    message_id: t.String({ description: 'The webhook-id header: the same on every attempt.' }),
    status: t.Union(DELIVERY_STATUSES.map((status) => t.Literal(status))),
    attempts: Type.Integer({ minimum: 0 }),
    last_status_code: t.Union([Type.Integer(), t.Null()], {
      description: "The last attempt's HTTP status; null when it got none.",
    }),
    last_error: t.Union([t.String(), t.Null()], {
      description: 'Why the last attempt did not deliver: the start of the answer, or what went wrong.',
    }),
    next_attempt_at: t.Union([t.String({ format: 'date-time' }), t.Null()], {
      description: 'When it is tried next; null once delivered or failed.',
    }),
  },
  { additionalProperties: false },
)
export type Delivery = typeof Delivery.static

/** A delivery as the data file keeps it: whose it is. */
export const DeliveryRecord = t.Object({
  ...Delivery.properties,
  webhook: Type.Integer({ minimum: 1 }),
})
export type DeliveryRecord = typeof DeliveryRecord.static

/**
 * An event that deliveries still wait to send, as the data file keeps it: its JSON text, once
 * however many webhooks get it, so that it outlives the change log's retention and a restart.
 * The deliveries not attempted yet are kept here too, as the webhooks they go to: fifty webhooks'
 * fresh deliveries of one event as fifty records would make every write's snapshot ten times the
 * size while a fan-out is under way. Their webhook-id is "msg_<nonce>_<webhook>"; a delivery once
 * attempted is a record of its own, with that id. A file from before this keeps them as records.
 */
export const WebhookEventRecord = t.Object({
  seq: Type.Integer({ minimum: 1 }),
  body: t.String(),
  nonce: t.Optional(t.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' })),
  waiting: t.Optional(t.Array(Type.Integer({ minimum: 1 }))),
})
export type WebhookEventRecord = typeof WebhookEventRecord.static
