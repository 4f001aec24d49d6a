import { t } from 'elysia'
import { Delivery, Webhook, WebhookCreate, WebhookWithSecret } from '../../model/webhook'
import { headerRefs } from '../docs/components'
import { json } from '../docs/openapi'
import { endpoint } from '../endpoint'

const SIGNED =
  'Each event (docs/reference.md §18) is POSTed as JSON to every webhook that existed when it happened and wants its type, signed as the Standard Webhooks specification says (webhook-id, webhook-timestamp, webhook-signature). A 2xx within 10 s delivers it; otherwise it is tried again after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then failed. Redirects are not followed. At most 100 deliveries wait for a webhook whose receiver fails: past that, a failed attempt gives up the oldest (failed, and counted in dropped_deliveries).'
/** An answer showing a secret is never kept by a cache. */
const NO_STORE = { 'Cache-Control': 'no-store' }

export const webhookList = endpoint({
  path: '/api/webhooks/',
  name: 'Webhooks',
  description: `Admins list the webhooks and add them here. ${SIGNED}`,
  tag: 'webhooks',
  template: () => ({ url: '', description: '', events: ['club.added', 'club.changed', 'club.removed'] }),
  actions: {
    GET: {
      summary: 'List webhooks (admins)',
      description: 'Every webhook, oldest first, without its secret.',
      access: 'user',
      responses: { 200: json(t.Array(Webhook), 'The webhooks.') },
      errors: [401, 403],
      handle: ({ services, caller }) => ({ status: 200, body: services.webhooks.list(caller) }),
    },
    POST: {
      summary: 'Add a webhook (admins)',
      description:
        'url is http or https; one naming a loopback, private or link-local address, or a host name resolving to one, is a 400 unless CLUBS_WEBHOOK_ALLOW_PRIVATE=true. events: the types it gets (default all three). The answer shows the secret that signs its deliveries, this once.',
      access: 'user',
      body: {
        schema: WebhookCreate,
        example: {
          url: 'https://mirror.example.edu/hooks/clubs',
          description: 'Campus mirror',
          events: ['club.added'],
        },
      },
      responses: {
        201: {
          ...json(WebhookWithSecret, 'The new webhook; its secret is shown this once. Location names it.'),
          headers: headerRefs('Location'),
        },
      },
      errors: [400, 401, 403, 405, 413, 415, 503],
      async handle({ services, caller, body, ex }) {
        const hook = await services.webhooks.create(caller, body)
        return {
          status: 201,
          body: hook,
          headers: { ...NO_STORE, Location: `${ex.url.origin}/api/webhooks/${hook.id}/` },
        }
      },
    },
  },
})

export const webhookDetail = endpoint({
  path: '/api/webhooks/:id/',
  name: 'Webhook',
  description: 'One webhook, without its secret. Admins remove it with DELETE: its pending deliveries are dropped.',
  tag: 'webhooks',
  actions: {
    GET: {
      summary: 'Retrieve a webhook (admins)',
      description: 'The webhook, without its secret.',
      access: 'user',
      responses: { 200: json(Webhook, 'The webhook.') },
      errors: [401, 403, 404],
      handle: ({ services, caller, params }) => ({ status: 200, body: services.webhooks.retrieve(caller, params.id) }),
    },
    DELETE: {
      summary: 'Remove a webhook (admins)',
      description: 'No event is sent to it from now on; its pending deliveries are dropped.',
      access: 'user',
      responses: { 204: { description: 'Removed.' } },
      errors: [401, 403, 404, 405, 503],
      async handle({ services, caller, params }) {
        await services.webhooks.destroy(caller, params.id)
        return { status: 204 }
      },
    },
  },
})

export const webhookDeliveries = endpoint({
  path: '/api/webhooks/:id/deliveries/',
  name: 'Webhook Deliveries',
  description:
    "A webhook's deliveries, newest event first: pending ones, and the newest 100 delivered or failed. Admins.",
  tag: 'webhooks',
  actions: {
    GET: {
      summary: "List a webhook's deliveries (admins)",
      description:
        'Each event sent or to be sent to it: its webhook-id (message_id, the same on every attempt), its status, how many attempts were made, what the last one got, and when the next one is due.',
      access: 'user',
      responses: { 200: json(t.Array(Delivery), 'The deliveries, newest event first.') },
      errors: [401, 403, 404],
      handle: ({ services, caller, params }) => ({
        status: 200,
        body: services.webhooks.deliveries(caller, params.id),
      }),
    },
  },
})
