import { Elysia, t } from 'elysia'
import { json } from '../docs/openapi'
import { endpoint } from '../endpoint'
import { exchangeForError } from '../exchange'
import { NOSNIFF } from '../respond'

const Root = t.Object({
  clubs: t.String({ format: 'uri' }),
  tags: t.String({ format: 'uri' }),
  favorites: t.String({ format: 'uri' }),
  subscriptions: t.String({ format: 'uri' }),
  users: t.String({ format: 'uri' }),
  docs: t.String({ format: 'uri' }),
})

/** `GET /api/`: where everything is (CONTRACT §17), as absolute URLs a client or a person can follow. */
export const apiRoot = endpoint({
  path: '/api/',
  name: 'Club Directory API',
  description:
    "A university's student clubs. Follow the links: the club list (sort, search, filter, page), tags, your favorites and subscriptions, users, and the interactive API docs.",
  tag: 'operations',
  actions: {
    GET: {
      summary: 'The API root',
      description: 'The absolute URLs of the collections and the docs.',
      access: 'anyone',
      responses: { 200: json(Root, 'Where everything is.') },
      errors: [401, 404],
      handle: ({ ex }) => {
        const at = (path: string) => `${ex.url.origin}${path}`
        return {
          status: 200,
          body: {
            clubs: at('/api/clubs/'),
            tags: at('/api/tags/'),
            favorites: at('/api/favorites/'),
            subscriptions: at('/api/subscriptions/'),
            users: at('/api/users/'),
            docs: at('/swagger'),
          },
        }
      },
    },
  },
})

/** `GET /`: to the API root (its browsable view in a browser). */
export const rootRedirect = new Elysia({ name: 'root-redirect' }).get(
  '/',
  ({ request }) =>
    new Response(null, {
      status: 302,
      headers: { Location: `${exchangeForError(request).url.origin}/api/`, ...NOSNIFF },
    }),
  { detail: { hide: true } },
)
