import { Elysia } from 'elysia'
import { requireUser } from '../caller'
import { readJsonBody } from '../http/body'
import type { Edge } from '../http/edge'
import { ENDPOINTS } from '../http/endpoints'
import { exchange } from '../http/exchange'
import { options } from '../http/options'
import { replyJson } from '../http/respond'
import { refuseOtherMethods } from '../http/route'
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
      { parse: 'none' },
    )
    .options('/api/users/', ({ request }) => options(exchange(request), ENDPOINTS.userList))
    .all('/api/users/', refuseOtherMethods(ENDPOINTS.userList))
    .get('/api/users/me/', ({ request }) => {
      const caller = requireUser(edge.callerOf(request))
      return replyJson(exchange(request), 200, { username: caller.username, is_admin: caller.isAdmin })
    })
    .options('/api/users/me/', ({ request }) => options(exchange(request), ENDPOINTS.userMe))
    .all('/api/users/me/', refuseOtherMethods(ENDPOINTS.userMe))
}
