import { t } from 'elysia'
import { MemberWrite, ROLES, USERNAME_PATTERN } from '../../model/user'
import { choice, json, WRITE_ERRORS } from '../docs/openapi'
import { endpoint } from '../endpoint'

const Member = t.Object({
  username: t.String({ pattern: USERNAME_PATTERN, examples: ['alice'] }),
  role: choice(ROLES),
})

export const memberList = endpoint({
  path: '/api/clubs/:code/members/',
  name: 'Club Members',
  description:
    "A club's people and their roles (owner, officer, member). Owners, officers and admins may see and add them; only owners and admins may add owners.",
  tag: 'members',
  template: () => ({ username: '', role: 'member' }),
  actions: {
    GET: {
      summary: "List a club's members",
      description: 'Owners first, then officers, then members, each by username. Owners, officers and admins.',
      access: 'user',
      responses: { 200: json(t.Array(Member), 'Owners first, then officers, then members.') },
      errors: [401, 403, 404],
      handle: ({ services, caller, params }) => ({ status: 200, body: services.members.list(caller, params.code) }),
    },
    POST: {
      summary: 'Add a member, or change their role',
      description: 'Only owners and admins may add or change owners.',
      access: 'user',
      body: { schema: MemberWrite, example: { username: 'alice', role: 'officer' } },
      responses: { 200: json(Member, 'The role of an existing member changed.'), 201: json(Member, 'Added.') },
      errors: WRITE_ERRORS,
      async handle({ services, caller, params, body }) {
        const { member, created } = await services.members.add(caller, params.code, body)
        return { status: created ? 201 : 200, body: member }
      },
    },
  },
})

export const memberDetail = endpoint({
  path: '/api/clubs/:code/members/:username/',
  name: 'Club Member',
  description:
    'DELETE removes the member (owners and admins may remove anyone; anyone may leave). A club keeps at least one owner.',
  tag: 'members',
  actions: {
    DELETE: {
      summary: 'Remove a member',
      description: 'Owners and admins remove anyone; anyone may leave. A club keeps at least one owner (400).',
      access: 'user',
      responses: { 204: { description: 'Removed.' } },
      errors: [400, 401, 403, 404, 405, 503],
      async handle({ services, caller, params }) {
        await services.members.remove(caller, params.code, params.username)
        return { status: 204 }
      },
    },
  },
})
