import { t } from 'elysia'
import { SUBSCRIBER_COLUMNS, subscriberTable } from '../../domain/cells'
import { MAX_TITLE_LENGTH, MemberPatch, MemberWrite, ROLES, USERNAME_PATTERN } from '../../model/user'
import { choice, json, WRITE_ERRORS } from '../docs/openapi'
import { endpoint } from '../endpoint'
import { csvListAnswer, csvListDoc } from './csv-lists'

const Username = t.String({ pattern: USERNAME_PATTERN, examples: ['alice'] })
const Title = t.String({ maxLength: MAX_TITLE_LENGTH, examples: ['President'] })

const Member = t.Object({
  username: Username,
  role: choice(ROLES),
  title: Title,
  public: t.Boolean({ description: 'Listed among the officers people can contact (owners and officers only).' }),
})

const Officer = t.Object({ username: Username, title: Title, role: choice(['owner', 'officer']) })

const SubscriberSchema = t.Object({
  username: Username,
  email: t.Union([t.String({ examples: ['alice@campus.example.edu'] }), t.Null()], {
    description: "The `email` claim of the user's last campus sign-in that carried one; null when none did.",
  }),
  subscribed_at: t.Union([t.String({ format: 'date-time' }), t.Null()], {
    description: 'When they subscribed; null for a subscription made before the service kept the time.',
  }),
})

export const memberList = endpoint({
  path: '/api/clubs/:code/members/',
  name: 'Club Members',
  description:
    "A club's people, their roles (owner, officer, member) and titles. Owners, officers and admins may see and add them; only owners and admins may add owners.",
  tag: 'members',
  template: () => ({ username: '', role: 'member', title: '', public: false }),
  actions: {
    GET: {
      summary: "List a club's members",
      description:
        'Owners first, then officers, then members, each by username, with their title and whether they are listed as a contact. Owners, officers and admins.',
      access: 'user',
      responses: { 200: json(t.Array(Member), 'Owners first, then officers, then members.') },
      errors: [401, 403, 404],
      handle: ({ services, caller, params }) => ({ status: 200, body: services.members.list(caller, params.code) }),
    },
    POST: {
      summary: 'Add a member, or change their role',
      description:
        'Only owners and admins may add or change owners. A new member\'s title is "" and public false unless sent; for an existing member, a title or public that would change them follows the rule of PATCH (owners, admins, or that member).',
      access: 'user',
      body: { schema: MemberWrite, example: { username: 'alice', role: 'officer', title: 'Treasurer', public: true } },
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
    'PATCH changes the role (owners and admins), the title and whether the member is listed as a contact (owners, admins, or that member). DELETE removes the member (owners and admins may remove anyone; anyone may leave). A club keeps at least one owner.',
  tag: 'members',
  template: () => ({ title: '', public: false }),
  actions: {
    PATCH: {
      summary: "Change a member's role, title or listing",
      description:
        'Only the fields sent change. Owners and admins for any member; a member for their own title and public only (a role they send that differs is a 403). 404 for someone who is not a member. A club keeps at least one owner: a 400 on role.',
      access: 'user',
      body: { schema: MemberPatch, example: { title: 'President', public: true } },
      responses: { 200: json(Member, 'The member as they are now.') },
      errors: WRITE_ERRORS,
      handle: async ({ services, caller, params, body }) => ({
        status: 200,
        body: await services.members.update(caller, params.code, params.username, body),
      }),
    },
    DELETE: {
      summary: 'Remove a member',
      description: 'Owners and admins remove anyone; anyone may leave. A club keeps at least one owner: a 400 on role.',
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

export const officerList = endpoint({
  path: '/api/clubs/:code/officers/',
  name: 'Club Officers',
  description:
    "The club's owners and officers who chose to be listed (public true), with their titles: whom people can contact.",
  tag: 'members',
  actions: {
    GET: {
      summary: "List a club's officers people can contact",
      description:
        'Anyone who may see the club, anonymous callers too (404 otherwise): the owners and officers whose membership has public true, owners first, then by username. Members are never listed.',
      access: 'anyone',
      responses: { 200: json(t.Array(Officer), 'Owners first, then officers, each by username.') },
      errors: [401, 404],
      handle: ({ services, caller, params }) => ({ status: 200, body: services.members.officers(caller, params.code) }),
    },
  },
})

export const subscriberList = endpoint({
  path: '/api/clubs/:code/subscribers/',
  name: 'Club Subscribers',
  description: "Who subscribed to the club's news, with the e-mail address campus sign-in gave each: for its officers.",
  tag: 'members',
  actions: {
    GET: {
      summary: "List a club's subscribers",
      description:
        "Owners, officers and admins. By username; ?format=csv gives the same as a CSV file (username, email, subscribed_at; text cells that a spreadsheet would take for a formula get a leading ').",
      access: 'user',
      ...csvListDoc(SubscriberSchema, {
        description: 'The subscribers, by username; a CSV file with ?format=csv.',
        noun: 'subscriber',
        nouns: 'subscribers',
        columns: SUBSCRIBER_COLUMNS,
        file: 'subscribers',
      }),
      errors: [401, 403, 404],
      handle({ ex, services, caller, params }) {
        const subscribers = services.members.subscribers(caller, params.code)
        return csvListAnswer(ex, subscribers, () => subscriberTable(subscribers), params.code, 'subscribers')
      },
    },
  },
})
