import { Elysia } from 'elysia'
import type { Caller } from '../caller'
import { readJsonBody } from '../http/body'
import type { PageInfo } from '../http/endpoints'
import type { Edge } from '../http/edge'
import { ENDPOINTS } from '../http/endpoints'
import { exchange } from '../http/exchange'
import { reply, replyJson } from '../http/respond'
import { otherMethods, read, write } from '../http/route'
import { OPERATIONS } from '../docs/operations'
import type { LinkService } from './links'
import type { MemberService } from './members'
import type { ClubRecord } from './model'
import type { ClubService } from './service'
import { listItem } from './represent'

export interface PeopleRouteDeps {
  readonly edge: Edge
  readonly clubs: ClubService
  readonly members: MemberService
  readonly favorites: LinkService
  readonly subscriptions: LinkService
}

/** A club's members, and each caller's favorites and subscriptions. */
export function peopleRoutes({ edge, clubs, members, favorites, subscriptions }: PeopleRouteDeps) {
  const linkOf = (caller: Caller, club: ClubRecord) => ({
    club: listItem(club, clubs.viewOf(caller, club), clubs.catalog),
  })
  const linkRoutes = (
    path: string,
    service: LinkService,
    list: PageInfo,
    detail: PageInfo,
    docs: { list: object; add: object; remove: object },
  ) =>
    new Elysia()
      .get(
        path,
        ({ request }) => {
          const caller = edge.callerOf(request)
          return replyJson(
            exchange(request),
            200,
            service.list(caller).map((club) => linkOf(caller, club)),
          )
        },
        read(docs.list),
      )
      .post(
        path,
        async ({ request }) => {
          const ex = exchange(request)
          edge.guardWrite(list)
          const caller = edge.callerOf(request)
          const club = await service.add(caller, await readJsonBody(request))
          return replyJson(ex, 201, linkOf(caller, club))
        },
        write(docs.add),
      )
      .use(otherMethods(path, list))
      .delete(
        `${path}:code/`,
        async ({ request, params }) => {
          const ex = exchange(request)
          edge.guardWrite(detail)
          // The path is built from `path`, so Elysia cannot infer its parameter's name.
          await service.remove(edge.callerOf(request), (params as { code: string }).code)
          return reply(ex, 204, null)
        },
        write(docs.remove),
      )
      .use(otherMethods(`${path}:code/`, detail))

  return new Elysia({ name: 'people' })
    .get(
      '/api/clubs/:code/members/',
      ({ request, params }) => replyJson(exchange(request), 200, members.list(edge.callerOf(request), params.code)),
      read(OPERATIONS.listMembers),
    )
    .post(
      '/api/clubs/:code/members/',
      async ({ request, params }) => {
        const ex = exchange(request)
        edge.guardWrite(ENDPOINTS.memberList)
        const { member, created } = await members.add(edge.callerOf(request), params.code, await readJsonBody(request))
        return replyJson(ex, created ? 201 : 200, member)
      },
      write(OPERATIONS.addMember),
    )
    .use(otherMethods('/api/clubs/:code/members/', ENDPOINTS.memberList))
    .delete(
      '/api/clubs/:code/members/:username/',
      async ({ request, params }) => {
        const ex = exchange(request)
        edge.guardWrite(ENDPOINTS.memberDetail)
        await members.remove(edge.callerOf(request), params.code, params.username)
        return reply(ex, 204, null)
      },
      write(OPERATIONS.removeMember),
    )
    .use(otherMethods('/api/clubs/:code/members/:username/', ENDPOINTS.memberDetail))
    .use(
      linkRoutes('/api/favorites/', favorites, ENDPOINTS.favoriteList, ENDPOINTS.favoriteDetail, OPERATIONS.favorites),
    )
    .use(
      linkRoutes(
        '/api/subscriptions/',
        subscriptions,
        ENDPOINTS.subscriptionList,
        ENDPOINTS.subscriptionDetail,
        OPERATIONS.subscriptions,
      ),
    )
}
