import { t } from 'elysia'
import { JoinRequest, JoinRequestWrite, OwnJoinRequest } from '../../model/join-request'
import { USERNAME_PATTERN } from '../../model/user'
import { json, WRITE_ERRORS } from '../docs/openapi'
import { endpoint } from '../endpoint'

const Admitted = t.Object({
  username: t.String({ pattern: USERNAME_PATTERN, examples: ['bob'] }),
  role: t.Literal('member'),
})

export const requestList = endpoint({
  path: '/api/clubs/:code/requests/',
  name: 'Join Requests',
  description:
    'Requests to join a club. Any user who may see the club asks with POST (when it accepts members); its owners, officers and admins see the pending requests, oldest first. Your own pending requests are at /api/users/me/requests/.',
  tag: 'requests',
  template: () => ({ message: '' }),
  actions: {
    GET: {
      summary: "List a club's pending join requests",
      description: 'Oldest first. Owners, officers and admins.',
      access: 'user',
      responses: { 200: json(t.Array(JoinRequest), 'The pending requests, oldest first.') },
      errors: [401, 403, 404],
      handle: ({ services, caller, params }) => ({ status: 200, body: services.requests.list(caller, params.code) }),
    },
    POST: {
      summary: 'Ask to join a club',
      description:
        'With an optional message to the officers (at most 1,000 characters). Refused (400) when the club does not accept members, you are a member or have asked already, or you have 50 requests pending.',
      access: 'user',
      body: { schema: JoinRequestWrite, example: { message: 'I played in my school team for four years.' } },
      responses: { 201: json(JoinRequest, 'Your request, pending.') },
      errors: WRITE_ERRORS,
      async handle({ services, caller, params, body }) {
        return { status: 201, body: await services.requests.ask(caller, params.code, body) }
      },
    },
  },
})

export const requestDetail = endpoint({
  path: '/api/clubs/:code/requests/:username/',
  name: 'Join Request',
  description:
    'DELETE withdraws the request (its requester) or declines it (owners, officers, admins). To accept it, POST to accept/ below it.',
  tag: 'requests',
  actions: {
    DELETE: {
      summary: 'Withdraw or decline a join request',
      description: 'The requester withdraws; owners, officers and admins decline. 404 when there is no such request.',
      access: 'user',
      responses: { 204: { description: 'The request is gone.' } },
      errors: [401, 403, 404, 405, 503],
      async handle({ services, caller, params }) {
        await services.requests.remove(caller, params.code, params.username)
        return { status: 204 }
      },
    },
  },
})

export const requestAccept = endpoint({
  path: '/api/clubs/:code/requests/:username/accept/',
  name: 'Accept Join Request',
  description: 'POST accepts the request: the requester becomes a member of the club. Owners, officers and admins.',
  tag: 'requests',
  actions: {
    POST: {
      summary: 'Accept a join request',
      description:
        'The requester becomes a member (membership_count +1) and the request is gone. 404 when there is no such request.',
      access: 'user',
      responses: { 201: json(Admitted, 'The new member.') },
      errors: [401, 403, 404, 405, 503],
      async handle({ services, caller, params }) {
        return { status: 201, body: await services.requests.accept(caller, params.code, params.username) }
      },
    },
  },
})

export const myRequests = endpoint({
  path: '/api/users/me/requests/',
  name: 'My Join Requests',
  description:
    'Your pending requests to join clubs, oldest first. Withdraw one with DELETE /api/clubs/{code}/requests/{your username}/.',
  tag: 'requests',
  actions: {
    GET: {
      summary: 'Your pending join requests',
      description: 'Oldest first, by club code; a request is gone once accepted, declined or withdrawn.',
      access: 'user',
      responses: { 200: json(t.Array(OwnJoinRequest), 'Your pending requests.') },
      errors: [401],
      handle: ({ services, caller }) => ({ status: 200, body: services.requests.mine(caller) }),
    },
  },
})
