import { Elysia } from 'elysia'
import type { Caller } from '../caller'
import { NotFound } from '../errors'
import { readJsonBody } from '../http/body'
import type { Edge } from '../http/edge'
import { ENDPOINTS } from '../http/endpoints'
import { exchange } from '../http/exchange'
import { Prepared } from '../http/prepared'
import { reply, type Exchange } from '../http/respond'
import { otherMethods, read, write } from '../http/route'
import { OPERATIONS } from '../docs/operations'
import { ClubWrite, type ClubRecord } from './model'
import { parseFieldSelection, parseListQuery, type ListQuery } from './query'
import { detail, isPlain, listItem, listItemJson, select } from './represent'
import type { ClubService } from './service'

export interface ClubRouteDeps {
  readonly clubs: ClubService
  readonly edge: Edge
}

const CACHE_LIMIT = 512
const BIG_ANSWER = 1 << 20
const clubUrl = (ex: Exchange, code: string) => `${ex.url.origin}/api/clubs/${code}/`

/** List answers, serialised once per data version, caller and query. */
class ListAnswerCache {
  #version = ''
  #answers = new Map<string, Prepared>()

  get(version: string, key: string): Prepared | undefined {
    if (version !== this.#version) {
      this.#version = version
      this.#answers.clear()
    }
    return this.#answers.get(key)
  }

  set(key: string, answer: Prepared): void {
    if (this.#answers.size >= CACHE_LIMIT) this.#answers.clear()
    this.#answers.set(key, answer)
  }
}

/** `/api/clubs/` and `/api/clubs/{code}/`: destructure, call the service, reply. */
export function clubRoutes({ clubs, edge }: ClubRouteDeps) {
  const cache = new ListAnswerCache()
  const publicDetails = new WeakMap<ClubRecord, Prepared>()
  /** A club's detail answer; as the public sees it, made once per record. */
  const detailOf = (caller: Caller, record: ClubRecord, ex: Exchange): Prepared => {
    const fields = parseFieldSelection(ex.url.searchParams)
    const view = clubs.viewOf(caller, record)
    if (fields || !isPlain(view)) return Prepared.of(select(detail(record, view, clubs.catalog), fields))
    let answer = publicDetails.get(record)
    if (!answer) publicDetails.set(record, (answer = Prepared.of(detail(record, view, clubs.catalog))))
    return answer
  }

  function listAnswer(caller: Caller, ex: Exchange): Prepared {
    const query = parseListQuery(ex.url.searchParams, clubs.catalog)
    const entries = clubs.list(caller, query)
    const viewOf = (record: ClubRecord) => clubs.viewOf(caller, record)
    if (query.fields) {
      const items = entries.map(({ record }) => select(listItem(record, viewOf(record), clubs.catalog), query.fields))
      return Prepared.of(query.page ? paginate(items, query.page, ex) : items)
    }
    const page = query.page ? paginate(entries, query.page, ex) : null
    const items = (page ? page.results : entries).map(({ record }) =>
      listItemJson(record, viewOf(record), clubs.catalog),
    )
    const array = `[${items.join(',')}]`
    if (!page) return Prepared.fromJson(array)
    const { results: _, ...links } = page
    return Prepared.fromJson(`${JSON.stringify(links).slice(0, -1)},"results":${array}}`)
  }

  return new Elysia({ name: 'clubs' })
    .get(
      '/api/clubs/',
      ({ request }) => {
        const ex = exchange(request)
        const caller = edge.callerOf(request)
        // Keyed by origin too: paging links are absolute URLs built from the request's host.
        const key = `${caller.username ?? ''} ${ex.url.origin}${ex.url.search}`
        let answer = cache.get(clubs.dataVersion, key)
        if (!answer) {
          answer = listAnswer(caller, ex)
          cache.set(key, answer)
          // Building a multi-megabyte answer leaves as much garbage: ask for a collection now
          // (without waiting for it), rather than let the heap grow under load.
          if (answer.body.size > BIG_ANSWER) Bun.gc(false)
        }
        return reply(ex, 200, answer)
      },
      read(OPERATIONS.listClubs),
    )
    .post(
      '/api/clubs/',
      async ({ request }) => {
        const ex = exchange(request)
        edge.guardWrite(ENDPOINTS.clubList)
        const caller = edge.callerOf(request)
        const club = await clubs.create(caller, await readJsonBody(request))
        return reply(ex, 201, detailOf(caller, club, ex), { Location: clubUrl(ex, club.code) })
      },
      write(OPERATIONS.createClub),
    )
    .use(otherMethods('/api/clubs/', ENDPOINTS.clubList, { POST: ClubWrite }))
    .get(
      '/api/clubs/:code/',
      ({ request, params }) => {
        const ex = exchange(request)
        const caller = edge.callerOf(request)
        return reply(ex, 200, detailOf(caller, clubs.retrieve(caller, params.code), ex))
      },
      read(OPERATIONS.retrieveClub),
    )
    .put(
      '/api/clubs/:code/',
      ({ request, params }) => update(request, params.code, false),
      write(OPERATIONS.updateClub),
    )
    .patch(
      '/api/clubs/:code/',
      ({ request, params }) => update(request, params.code, true),
      write(OPERATIONS.partialUpdateClub),
    )
    .delete(
      '/api/clubs/:code/',
      async ({ request, params }) => {
        const ex = exchange(request)
        edge.guardWrite(ENDPOINTS.clubDetail)
        await clubs.destroy(edge.callerOf(request), params.code)
        return reply(ex, 204, null)
      },
      write(OPERATIONS.destroyClub),
    )
    .use(otherMethods('/api/clubs/:code/', ENDPOINTS.clubDetail, { PUT: ClubWrite }))

  async function update(request: Request, code: string, partial: boolean) {
    const ex = exchange(request)
    edge.guardWrite(ENDPOINTS.clubDetail)
    const caller = edge.callerOf(request)
    const body = await readJsonBody(request)
    const club = await clubs.update(caller, code, body, partial)
    return reply(ex, 200, detailOf(caller, club, ex))
  }
}

function paginate<T>(items: T[], page: NonNullable<ListQuery['page']>, ex: Exchange) {
  const pages = Math.max(1, Math.ceil(items.length / page.size))
  if (page.number > pages) throw new NotFound('Invalid page.')
  const link = (n: number) => {
    const url = new URL(ex.url)
    url.searchParams.set('page', String(n))
    return url.toString()
  }
  const start = (page.number - 1) * page.size
  return {
    count: items.length,
    next: page.number < pages ? link(page.number + 1) : null,
    previous: page.number > 1 ? link(page.number - 1) : null,
    results: items.slice(start, start + page.size),
  }
}
