import { t } from 'elysia'
import { UserCreate } from '../../model/user'
import { json } from '../docs/openapi'
import { endpoint } from '../endpoint'

const User = t.Object({ username: t.String(), is_admin: t.Boolean() })

export const userList = endpoint({
  path: '/api/users/',
  name: 'Users',
  description: 'Admins issue users and their tokens here; the token is shown once.',
  tag: 'users',
  actions: {
    POST: {
      summary: 'Issue a user and their token (admins)',
      description: 'Adds a user and answers their bearer token, which is shown this once: only its hash is kept.',
      access: 'user',
      body: { schema: UserCreate, example: { username: 'alice', is_admin: false } },
      responses: { 201: json(t.Object({ ...User.properties, token: t.String() }), 'The token is shown this once.') },
      errors: [400, 401, 403, 405, 413, 415, 503],
      async handle({ services, caller, body }) {
        const issued = await services.users.create(caller, body)
        return { status: 201, body: issued, headers: { 'Cache-Control': 'no-store' } }
      },
    },
  },
})

export const userMe = endpoint({
  path: '/api/users/me/',
  name: 'Current User',
  description: 'Who your token says you are.',
  tag: 'users',
  actions: {
    GET: {
      summary: 'Who your token says you are',
      description: 'Your username, and whether you are an admin.',
      access: 'user',
      responses: { 200: json(User, 'The caller.') },
      errors: [401],
      handle: ({ caller }) => ({ status: 200, body: { username: caller.username, is_admin: caller.isAdmin } }),
    },
  },
})
