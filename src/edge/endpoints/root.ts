import { Elysia, t } from 'elysia'
import { json } from '../docs/openapi'
import { endpoint, type Endpoint } from '../endpoint'
import { exchangeForError } from '../exchange'
import { NOSNIFF } from '../respond'
import { changeList } from './changes'
import { clubList } from './clubs'
import { favoriteList, subscriptionList } from './saved-clubs'
import { tagList } from './tags'
import { userList } from './users'

const Root = t.Object({
  clubs: t.String({ format: 'uri' }),
  tags: t.String({ format: 'uri' }),
  changes: t.String({ format: 'uri' }),
  favorites: t.String({ format: 'uri' }),
  subscriptions: t.String({ format: 'uri' }),
  users: t.String({ format: 'uri' }),
  docs: t.String({ format: 'uri' }),
})

/** A link of the root, said as its endpoint says itself, and whether reading it takes a token. */
const entry = (name: string, page: Endpoint) => ({
  name,
  path: page.path,
  title: page.name,
  description: page.actions.GET?.access === 'user' ? `${page.description} Needs a token.` : page.description,
})

/** The root's links in its order (the docs are no endpoint). */
const DIRECTORY = [
  entry('clubs', clubList),
  entry('tags', tagList),
  entry('changes', changeList),
  entry('favorites', favoriteList),
  entry('subscriptions', subscriptionList),
  entry('users', userList),
  {
    name: 'docs',
    path: '/swagger',
    title: 'API docs',
    description: 'Every operation, to read and to try out (Swagger UI); the OpenAPI 3.1 document is at /swagger/json.',
  },
]

/** `GET /api/`: where everything is (docs/reference.md §17), as absolute URLs a client or a person can follow. */
export const apiRoot = endpoint({
  path: '/api/',
  name: 'Club Directory API',
  description:
    "A university's student clubs. Follow the links: the club list (sort, search, filter, page), tags, the changes to follow, your favorites and subscriptions, users, and the interactive API docs.",
  tag: 'operations',
  actions: {
    GET: {
      summary: 'The API root',
      description: 'The absolute URLs of the collections and the docs.',
      access: 'anyone',
      responses: { 200: json(Root, 'Where everything is.') },
      errors: [401, 404],
      handle: ({ ex }) => ({
        status: 200,
        body: Object.fromEntries(DIRECTORY.map(({ name, path }) => [name, `${ex.url.origin}${path}`])),
        notes: { directory: DIRECTORY },
      }),
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
