import { Elysia } from 'elysia'
import { requireUser } from '../caller'
import { readJsonBody } from '../http/body'
import type { Edge } from '../http/edge'
import { ENDPOINTS } from '../http/endpoints'
import { exchange } from '../http/exchange'
import { replyJson } from '../http/respond'
import { otherMethods, read, write } from '../http/route'
import { OPERATIONS } from '../docs/operations'
import type { UserService } from './service'

/** `POST /api/users/` (admins issue tokens) and `GET /api/users/me/`. */
export function userRoutes(edge: Edge, users: UserService) {
  return new Elysia({ name: 'users' })
    .post(
      '/api/users/',
      async ({ request }) => {
        const ex = exchange(request)
        edge.guardWrite(ENDPOINTS.userList)
        const issued = await users.create(edge.callerOf(request), await readJsonBody(request))
        return replyJson(ex, 201, issued, { 'Cache-Control': 'no-store' })
      },
      write(OPERATIONS.createUser),
    )
    .use(otherMethods('/api/users/', ENDPOINTS.userList))
    .get(
      '/api/users/me/',
      ({ request }) => {
        const caller = requireUser(edge.callerOf(request))
        return replyJson(exchange(request), 200, { username: caller.username, is_admin: caller.isAdmin })
      },
      read(OPERATIONS.me),
    )
    .use(otherMethods('/api/users/me/', ENDPOINTS.userMe))
}
