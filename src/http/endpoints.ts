import type { PageInfo } from './browsable'

/** The API's endpoints as the browsable view, OPTIONS and the Allow header describe them. */
export const ENDPOINTS = {
  clubList: {
    name: 'Club List',
    description:
      'Student clubs, with partial information for each. Sort with ?ordering=, narrow with ?search= and filters, page with ?page=. POST creates a club, which then awaits approval.',
    allow: 'GET, POST',
  },
  clubDetail: {
    name: 'Club Instance',
    description:
      'One club with every field. PUT replaces every writable field, PATCH changes the fields sent, DELETE archives the club (setting active to false is the gentler choice).',
    allow: 'GET, PUT, PATCH, DELETE',
  },
  tagList: { name: 'Tag List', description: 'Every tag, with the number of clubs that carry it.', allow: 'GET' },
} as const satisfies Record<string, PageInfo>

const ROUTES: [RegExp, PageInfo][] = [
  [/^\/api\/clubs\/?$/, ENDPOINTS.clubList],
  [/^\/api\/clubs\/[^/]+\/?$/, ENDPOINTS.clubDetail],
  [/^\/api\/tags\/?$/, ENDPOINTS.tagList],
]

export function endpointFor(pathname: string): PageInfo | null {
  for (const [pattern, page] of ROUTES) if (pattern.test(pathname)) return page
  return null
}
