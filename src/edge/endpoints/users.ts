import { t } from 'elysia'
import { UserCreate, UserPatch } from '../../model/user'
import { json } from '../docs/openapi'
import { endpoint } from '../endpoint'

const User = t.Object({ username: t.String(), is_admin: t.Boolean() })
const ListedUser = t.Object({ ...User.properties, is_active: t.Boolean() })
/** Answers that show a token are never kept by a cache. */
const NO_STORE = { 'Cache-Control': 'no-store' }

export const userList = endpoint({
  path: '/api/users/',
  name: 'Users',
  description: 'Admins list the users, and issue users and their tokens here; a token is shown once.',
  tag: 'users',
  actions: {
    GET: {
      summary: 'List users (admins)',
      description:
        'Every user, ordered by username: those issued here, campus users from their first request on, and the bootstrap admin.',
      access: 'user',
      responses: { 200: json(t.Array(ListedUser), 'The users.') },
      errors: [401, 403],
      handle: ({ services, caller }) => ({ status: 200, body: services.users.list(caller) }),
    },
    POST: {
      summary: 'Issue a user and their token (admins)',
      description: 'Adds a user and answers their bearer token, which is shown this once: only its hash is kept.',
      access: 'user',
      body: { schema: UserCreate, example: { username: 'alice', is_admin: false } },
      responses: { 201: json(t.Object({ ...User.properties, token: t.String() }), 'The token is shown this once.') },
      errors: [400, 401, 403, 405, 413, 415, 503],
      async handle({ services, caller, body }) {
        const issued = await services.users.create(caller, body)
        return { status: 201, body: issued, headers: NO_STORE }
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

export const userDetail = endpoint({
  path: '/api/users/:username/',
  name: 'User',
  description: 'Admins disable or enable a user, and make or unmake admins.',
  tag: 'users',
  actions: {
    PATCH: {
      summary: 'Disable, enable, promote or demote a user (admins)',
      description:
        'is_active false refuses the user on every request, whatever the credential (service token, campus sign-in, site session): 403 "This account is disabled."; their clubs, memberships and favorites stay, and is_active true lets them back. is_admin makes or unmakes an admin at once. The bootstrap admin cannot be disabled or demoted (400).',
      access: 'user',
      body: { schema: UserPatch, example: { is_active: false } },
      responses: { 200: json(ListedUser, 'The user as changed.') },
      errors: [400, 401, 403, 404, 405, 413, 415, 503],
      async handle({ services, caller, params, body }) {
        return { status: 200, body: await services.users.update(caller, params.username, body) }
      },
    },
  },
})

export const userToken = endpoint({
  path: '/api/users/:username/token/',
  name: 'User Token',
  description:
    "A user's bearer token: POST issues a new one (shown once), DELETE revokes it. The previous token answers 401 at once. Admins, or that user.",
  tag: 'users',
  actions: {
    POST: {
      summary: 'Issue a new token (admins, or that user)',
      description:
        "Answers a new bearer token, shown this once; the previous one answers 401 from now on. The bootstrap admin's token is CLUBS_ADMIN_TOKEN: a 400 here.",
      access: 'user',
      responses: {
        201: json(t.Object({ username: t.String(), token: t.String() }), 'The new token is shown this once.'),
      },
      errors: [400, 401, 403, 404, 405, 503],
      async handle({ services, caller, params }) {
        return { status: 201, body: await services.users.reissue(caller, params.username), headers: NO_STORE }
      },
    },
    DELETE: {
      summary: 'Revoke the token (admins, or that user)',
      description:
        'The token answers 401 from now on; the user keeps their clubs, memberships, favorites and subscriptions, and an admin can issue a new token with POST.',
      access: 'user',
      responses: { 204: { description: 'Revoked.' } },
      errors: [400, 401, 403, 404, 405, 503],
      async handle({ services, caller, params }) {
        await services.users.revoke(caller, params.username)
        return { status: 204 }
      },
    },
  },
})

export const userSessions = endpoint({
  path: '/api/users/:username/sessions/',
  name: 'User Sessions',
  description: "The user's sessions on the site: DELETE ends every one of them at once (admins).",
  tag: 'users',
  actions: {
    DELETE: {
      summary: "End the user's site sessions (admins)",
      description:
        'Every site session of the user ends at once, whatever started it (a service token or campus sign-in): each browser they were signed in on must sign in again. Their token and account are left as they are; 204 also when they had none.',
      access: 'user',
      responses: { 204: { description: 'Ended.' } },
      errors: [401, 403, 404, 405, 503],
      async handle({ services, caller, params }) {
        await services.sessions.endAll(caller, params.username)
        return { status: 204 }
      },
    },
  },
})
