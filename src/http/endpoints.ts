import { ClubWrite } from '../clubs/model'

/** What the browsable view, OPTIONS and the Allow header say about one endpoint. */
export interface PageInfo {
  readonly name: string
  readonly description: string
  readonly allow: string
  /** The JSON a write form starts from, given the body the page shows. */
  readonly template?: (shown: unknown) => Record<string, unknown>
}

const CREATE_TEMPLATE = Object.fromEntries(
  Object.entries(ClubWrite.properties)
    .filter(([field]) => field !== 'code')
    .map(([field, schema]) => [field, field === 'name' ? '' : schema.default]),
)

/** A club's writable fields as the detail shows them: the start of a PUT or PATCH. */
function clubTemplate(shown: unknown): Record<string, unknown> {
  const club = (shown ?? {}) as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const field of Object.keys(ClubWrite.properties)) {
    if (field === 'code' || !(field in club)) continue
    out[field] = field === 'tags' ? (club.tags as { id: number }[]).map(({ id }) => ({ id })) : club[field]
  }
  return out
}

/** The API's endpoints as the browsable view, OPTIONS and the Allow header describe them. */
export const ENDPOINTS = {
  clubList: {
    name: 'Club List',
    description:
      'Student clubs, with partial information for each. Sort with ?ordering=, narrow with ?search= and filters, page with ?page=. POST creates a club, which then awaits approval.',
    allow: 'GET, POST',
    template: () => CREATE_TEMPLATE,
  },
  clubDetail: {
    name: 'Club Instance',
    description:
      'One club with every field. PUT replaces every writable field, PATCH changes the fields sent, DELETE archives the club (setting active to false is the gentler choice).',
    allow: 'GET, PUT, PATCH, DELETE',
    template: clubTemplate,
  },
  tagList: { name: 'Tag List', description: 'Every tag, with the number of clubs that carry it.', allow: 'GET' },
  memberList: {
    name: 'Club Members',
    description:
      "A club's people and their roles (owner, officer, member). Owners, officers and admins may see and add them; only owners and admins may add owners.",
    allow: 'GET, POST',
    template: () => ({ username: '', role: 'member' }),
  },
  memberDetail: {
    name: 'Club Member',
    description:
      'DELETE removes the member (owners and admins may remove anyone; anyone may leave). A club keeps at least one owner.',
    allow: 'DELETE',
  },
  favoriteList: {
    name: 'Favorites',
    description: 'Your favorite clubs. POST {"club": "<code>"} adds one.',
    allow: 'GET, POST',
    template: () => ({ club: '' }),
  },
  favoriteDetail: { name: 'Favorite', description: 'DELETE removes the club from your favorites.', allow: 'DELETE' },
  subscriptionList: {
    name: 'Subscriptions',
    description: 'The clubs whose news you subscribe to. POST {"club": "<code>"} subscribes.',
    allow: 'GET, POST',
    template: () => ({ club: '' }),
  },
  subscriptionDetail: { name: 'Subscription', description: 'DELETE unsubscribes.', allow: 'DELETE' },
  userList: {
    name: 'Users',
    description: 'Admins issue users and their tokens here; the token is shown once.',
    allow: 'POST',
  },
  userMe: { name: 'Current User', description: 'Who your token says you are.', allow: 'GET' },
} as const satisfies Record<string, PageInfo>

const ROUTES: [RegExp, PageInfo][] = [
  [/^\/api\/clubs\/?$/, ENDPOINTS.clubList],
  [/^\/api\/clubs\/[^/]+\/?$/, ENDPOINTS.clubDetail],
  [/^\/api\/clubs\/[^/]+\/members\/?$/, ENDPOINTS.memberList],
  [/^\/api\/clubs\/[^/]+\/members\/[^/]+\/?$/, ENDPOINTS.memberDetail],
  [/^\/api\/tags\/?$/, ENDPOINTS.tagList],
  [/^\/api\/favorites\/?$/, ENDPOINTS.favoriteList],
  [/^\/api\/favorites\/[^/]+\/?$/, ENDPOINTS.favoriteDetail],
  [/^\/api\/subscriptions\/?$/, ENDPOINTS.subscriptionList],
  [/^\/api\/subscriptions\/[^/]+\/?$/, ENDPOINTS.subscriptionDetail],
  [/^\/api\/users\/?$/, ENDPOINTS.userList],
  [/^\/api\/users\/me\/?$/, ENDPOINTS.userMe],
]

export function endpointFor(pathname: string): PageInfo | null {
  for (const [pattern, page] of ROUTES) if (pattern.test(pathname)) return page
  return null
}
