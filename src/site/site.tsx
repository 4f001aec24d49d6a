import { Elysia } from 'elysia'
import type { ComponentChildren } from 'preact'
import { ANONYMOUS, type Caller } from '../domain/caller'
import type { ClubService } from '../domain/clubs'
import type { TagService } from '../domain/tags'
import { urlOf } from '../edge/request-facts'
import { prefersHtml } from '../edge/negotiate'
import { NOSNIFF } from '../edge/respond'
import { ClubPage } from './club-page'
import { clubDetailView, clubView } from './club-view'
import { DirectoryPage, type DirectoryState } from './directory'
import { ErrorPage, errorOf, errorTitle } from './error-page'
import type { Viewer } from './layout'
import { pageAnswer, pageHtml, preparedPage } from './page'
import { siteAssets } from './assets'
import { RenderedPages } from './rendered-pages'

/** Clubs on one page of the directory. */
export const DIRECTORY_PAGE_SIZE = 24

export interface SiteDeps {
  readonly clubs: ClubService
  readonly tags: TagService
  readonly title: string
  /** The person signed in on this request, or null. */
  readonly viewerOf: (request: Request) => Viewer | null
}

/** A page's title and content, before the layout frames it. */
export interface Shown {
  readonly title: string
  readonly content: ComponentChildren
}

const callerOf = (viewer: Viewer | null): Caller =>
  viewer ? { username: viewer.username, isAdmin: viewer.isAdmin } : ANONYMOUS

/**
 * The campus site (CONTRACT §20): pages for people, rendered on the server from the same domain
 * services the API endpoints call. Another edge beside the API, not a second app.
 */
export function siteRoutes(deps: SiteDeps) {
  const { clubs, tags, title } = deps
  const anonymousPages = new RenderedPages(() => clubs.dataVersion)

  const render = (url: URL, viewer: Viewer | null, shown: Shown) =>
    preparedPage(pageHtml({ title: shown.title, site: title, viewer, path: url.pathname }, shown.content))

  /**
   * Answers with the page `show` makes for the signed-in person (if any). A page for nobody in
   * particular is rendered once per data version and URL; a domain error becomes an error page.
   */
  const pageOf =
    (show: (url: URL, viewer: Viewer | null, params: Record<string, string>) => Shown) =>
    ({ request, params }: { request: Request; params: Record<string, string> }) => {
      const viewer = deps.viewerOf(request)
      const url = new URL(urlOf(request))
      try {
        const prepared = viewer
          ? render(url, viewer, show(url, viewer, params))
          : anonymousPages.get(`${url.pathname}${url.search}`, () => render(url, null, show(url, null, params)))
        return pageAnswer(request, prepared, 200, viewer !== null)
      } catch (error) {
        const known = errorOf(error)
        if (!known) throw error
        const shown = { title: errorTitle(known.status), content: <ErrorPage {...known} /> }
        return pageAnswer(request, render(url, viewer, shown), known.status, viewer !== null)
      }
    }

  function directory(url: URL, viewer: Viewer | null): Shown {
    const caller = callerOf(viewer)
    const search = (url.searchParams.get('search') ?? '').trim()
    const chosenTags = url.searchParams.getAll('tags').filter((name) => name !== '')
    const query = new URLSearchParams({
      page: url.searchParams.get('page') ?? '1',
      page_size: String(DIRECTORY_PAGE_SIZE),
    })
    if (search) query.set('search', search)
    if (chosenTags.length) query.set('tags', chosenTags.join(','))
    const found = clubs.list(caller, clubs.parseQuery(query))
    const state: DirectoryState = {
      clubs: found.records.map((record) => clubView(clubs.listItem(caller, record))),
      total: found.total,
      page: found.page?.number ?? 1,
      lastPage: found.page?.last ?? 1,
      search,
      chosenTags,
      tags: tags.list(caller).filter((tag) => tag.clubs > 0 || chosenTags.includes(tag.name)),
      origin: url.origin,
    }
    return {
      title: search ? `Clubs matching “${search}”` : 'Student clubs',
      content: <DirectoryPage state={state} />,
    }
  }

  function club(url: URL, viewer: Viewer | null, code: string): Shown {
    const caller = callerOf(viewer)
    const view = clubDetailView(clubs.detail(caller, clubs.retrieve(caller, code)))
    return { title: view.name, content: <ClubPage club={view} origin={url.origin} /> }
  }

  const showDirectory = pageOf(directory)
  return new Elysia({ name: 'site' })
    .use(siteAssets())
    .get(
      '/',
      (context) => {
        const { request } = context
        if (prefersHtml(request.headers.get('accept') ?? '')) return showDirectory(context)
        return new Response(null, {
          status: 302,
          headers: { Location: `${new URL(urlOf(request)).origin}/api/`, Vary: 'Accept', ...NOSNIFF },
        })
      },
      { detail: { hide: true } },
    )
    .get(
      '/clubs/:code',
      pageOf((url, viewer, params) => club(url, viewer, params.code!)),
      { detail: { hide: true } },
    )
}
