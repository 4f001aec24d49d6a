import { Elysia } from 'elysia'
import type { Catalog } from '../clubs/catalog'
import type { Edge } from '../http/edge'
import { ENDPOINTS } from '../http/endpoints'
import { exchange } from '../http/exchange'
import { replyJson } from '../http/respond'
import { otherMethods, read } from '../http/route'
import { OPERATIONS } from '../docs/operations'

/** `GET /api/tags/`: every tag with the number of visible clubs that carry it. */
export function tagRoutes(catalog: Catalog, edge: Edge) {
  return new Elysia({ name: 'tags' })
    .get(
      '/api/tags/',
      ({ request }) => {
        edge.callerOf(request) // a wrong token is a 401 here as everywhere
        const counts = new Map<number, number>()
        for (const { record } of catalog.live()) {
          if (!record.approved || !record.active) continue
          for (const id of record.tags) counts.set(id, (counts.get(id) ?? 0) + 1)
        }
        const tags = catalog
          .tags()
          .sort((a, b) => a.id - b.id)
          .map((tag) => ({ id: tag.id, name: tag.name, clubs: counts.get(tag.id) ?? 0 }))
        return replyJson(exchange(request), 200, tags)
      },
      read(OPERATIONS.listTags),
    )
    .use(otherMethods('/api/tags/', ENDPOINTS.tagList))
}
