import { t, type TSchema } from 'elysia'
import { CHANGE_TYPES, ChangeEvent, type ChangeType } from '../../model/change'
import { schemaRef } from './components'

// The webhook deliveries this service sends (docs/reference.md §18), declared under the OpenAPI 3.1
// document's top-level `webhooks` (docs/reference.md §24): the POST a receiver gets for each event type,
// its body and the Standard Webhooks headers, so a receiver's code can be generated and checked
// as a client's is.

const header = (name: string, description: string, example: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: t.String({ examples: [example] }),
  example,
})

const HEADERS = [
  header(
    'webhook-id',
    'The message id: the same on every attempt of this event to this webhook, so a receiver can drop a repeat.',
    'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
  ),
  header('webhook-timestamp', 'When this attempt was sent, in Unix seconds.', '1767225600'),
  header(
    'webhook-signature',
    'v1, then a comma and the base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}", keyed with the bytes the webhook\'s secret (after whsec_) encodes (Standard Webhooks; its libraries verify it).',
    'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  ),
]

const DESCRIPTIONS: Record<ChangeType, string> = {
  'club.added': 'A club entered what the public sees: approved and active, by an approval or a re-activation.',
  'club.changed': 'The public detail representation of a club changed (counts and tag renames included).',
  'club.removed': 'A club left what the public sees: deleted, revoked or made inactive.',
}

/** The event object of one type, as its webhook delivery's body. */
function eventOf(type: ChangeType): TSchema {
  const club =
    type === 'club.removed' ? t.Null({ description: 'Null: the club is no longer public.' }) : schemaRef('ClubDetail')
  return t.Object(
    { ...ChangeEvent.properties, type: t.Literal(type), club },
    { additionalProperties: false, description: DESCRIPTIONS[type] },
  )
}

/** `club.added` as `ClubAdded`: the operation's name. */
const nameOf = (type: ChangeType) =>
  type
    .split('.')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('')

/** The document's `webhooks`: one POST per event type, named after it. */
export const WEBHOOKS = Object.fromEntries(
  CHANGE_TYPES.map((type) => [
    type,
    {
      post: {
        operationId: `webhook${nameOf(type)}`,
        tags: ['webhooks'],
        summary: `The ${type} event, POSTed to a webhook that wants it`,
        description: `${DESCRIPTIONS[type]} POSTed to every webhook that existed when it happened and wants this type (POST /api/webhooks/ "events"), as the Standard Webhooks specification says. A 2xx within 10 s delivers it; anything else is tried again after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then marked failed. Redirects are not followed.`,
        security: [],
        parameters: HEADERS,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: eventOf(type) } },
        },
        responses: {
          '200': { description: 'Any 2xx within 10 s: delivered.' },
          '400': { description: 'Any other answer, or none within 10 s: tried again later.' },
        },
      },
    },
  ]),
)
