/** @jsxImportSource preact */
import type { ComponentChildren } from 'preact'
import { ANONYMOUS, type Caller } from '../domain/caller'
import type { CalendarService } from '../domain/calendars'
import type { ChangeLog } from '../domain/change-log'
import type { ClubService } from '../domain/clubs'
import type { FittingService } from '../domain/fitting'
import { AccountDisabled } from '../domain/errors'
import type { InterestService } from '../domain/interests'
import type { InviteService } from '../domain/invites'
import type { JoinRequestService } from '../domain/join-requests'
import type { SavedClubs } from '../domain/saved-clubs'
import type { LogoService } from '../domain/logos'
import type { MemberService } from '../domain/members'
import type { RegistrationRounds } from '../domain/registration-rounds'
import type { ReviewDesk } from '../domain/review'
import type { SessionService } from '../domain/sessions'
import type { TagService } from '../domain/tags'
import type { UserService } from '../domain/users'
import { errorAnswer, pageTitle, reasonOf } from '../edge/error-answer'
import { urlOf } from '../edge/request-facts'
import { NOSNIFF } from '../edge/respond'
import { ErrorPage } from './error-page'
import { checkCsrf, checkOrigin, readForm, readUpload } from './forms'
import type { Viewer } from './layout'
import { contentHtml, framedHtml, pageAnswer, pageHtml, preparedPage } from './page'
import type { CampusFlow } from './campus-flow'
import { PersonalPages, RenderedPages } from './rendered-pages'
import { sessionIdOf } from './session-cookie'

/** What the site is built on: the domain's services, and the campus's name. */
export interface SiteDeps {
  readonly clubs: ClubService
  readonly tags: TagService
  readonly favorites: SavedClubs
  readonly subscriptions: SavedClubs
  readonly members: MemberService
  /** Club logos; null for a directory that keeps none. */
  readonly logos: LogoService | null
  readonly requests: JoinRequestService
  /** Students interested in a club without an account (docs/reference.md §23). */
  readonly interests: InterestService
  /** Clubs' invite links (docs/reference.md §23). */
  readonly invites: InviteService
  readonly review: ReviewDesk
  /** Re-registration rounds (docs/reference.md §23): the office's page, the notices and Confirm of owners and officers. */
  readonly rounds: RegistrationRounds
  /** Each person's secret calendar address (docs/reference.md §21). */
  readonly calendars: CalendarService
  /** The change log (docs/reference.md §18), which the Atom feed shows the newest of (docs/reference.md §24). */
  readonly changes: ChangeLog
  /** Timetables against the clubs' meetings (docs/reference.md §24). */
  readonly fitting: FittingService
  readonly sessions: SessionService
  /** The users and their tokens, for the office's pages. */
  readonly users: UserService
  /** Resolves a service token (as `Authorization: Bearer` would) to its holder; throws a 401 for a wrong one. */
  readonly authenticate: (token: string) => Caller | Promise<Caller>
  readonly title: string
  /** The campus time zone (CLUBS_TIMEZONE), an IANA name: the clock of meeting times. */
  readonly timeZone: string
  /** Runs a form's work as one write, ordered with every other instance's (docs/reference.md §19). */
  readonly exclusive: <T>(work: () => Promise<T>) => Promise<T>
  /** The service's clock (tests set it); the real one when absent. */
  readonly now?: () => Date
  /** Campus sign-in with OpenID Connect (CLUBS_OIDC_*); absent or null, the token form alone. */
  readonly campus?: CampusFlow | null
}

/** A page's title and content, before the layout frames it; `status` when it is not 200. */
export interface Shown {
  readonly title: string
  readonly content: ComponentChildren
  readonly status?: number
}

/** One request to a page: its URL as the client sent it, who is signed in, the route's parameters. */
export interface Visit {
  readonly request: Request
  readonly url: URL
  readonly viewer: Viewer | null
  readonly params: Record<string, string>
}

/** One POST of a form: a visit with its checked fields (Origin and CSRF token already checked). */
export interface FormPost extends Visit {
  readonly form: URLSearchParams
}

type Handled = Response | Promise<Response>
type Show = (visit: Visit) => Shown | Response
type Context = { request: Request; params: Record<string, string> }

/** The content of a page the same for every viewer, rendered once, to be framed for each. */
interface SharedContent {
  readonly title: string
  readonly html: string
}

export const callerOf = (viewer: Viewer | null): Caller =>
  viewer ? { username: viewer.username, isAdmin: viewer.isAdmin } : ANONYMOUS

/** A "see other" redirect, after a form has done its work (so reloading does not send it again). */
export const seeOther = (location: string, headers: Record<string, string> = {}) =>
  new Response(null, {
    status: 303,
    headers: { Location: location, 'Cache-Control': 'no-store', ...NOSNIFF, ...headers },
  })

/** The sign-in page, coming back to `url` afterwards. */
export const signInFirst = (url: URL) => seeOther(`/sign-in?next=${encodeURIComponent(url.pathname + url.search)}`)

/**
 * The plumbing every page and form of the site shares: who is signed in, rendering in the
 * layout, the cache of anonymous pages, error pages for domain errors, and the checks every POST
 * passes (Origin, then the session's CSRF token).
 */
export function siteKit(deps: SiteDeps) {
  const anonymousPages = new RenderedPages(() => deps.clubs.dataVersion)
  const sharedContents = new RenderedPages<SharedContent>(() => deps.clubs.dataVersion)
  const personalPages = new PersonalPages()

  /** Who is signed in; a 403 while their account is disabled, unless `evenDisabled` (signing out). */
  const viewerOf = (request: Request, { evenDisabled = false } = {}): Viewer | null => {
    const id = sessionIdOf(request)
    return id === null ? null : deps.sessions.holder(id, { evenDisabled })
  }

  const render = (url: URL, viewer: Viewer | null, shown: Shown) =>
    preparedPage(pageHtml({ title: shown.title, site: deps.title, viewer, path: url.pathname }, shown.content))

  const answer = (visit: Omit<Visit, 'params'>, shown: Shown) =>
    pageAnswer(visit.request, render(visit.url, visit.viewer, shown), shown.status ?? 200, visit.viewer !== null)

  function failed(visit: Omit<Visit, 'params'>, error: unknown): Handled {
    const known = errorAnswer(error)
    if (!known) throw error
    // A disabled account's page still offers Sign out, and nothing else of a signed-in person's.
    const holder = error instanceof AccountDisabled ? viewerOf(visit.request, { evenDisabled: true }) : null
    const viewer = holder ? { ...holder, isAdmin: false, disabled: true } : visit.viewer
    const title = pageTitle(known.status)
    const shown = { title, content: <ErrorPage title={title} reason={reasonOf(known)} />, status: known.status }
    return answer({ ...visit, viewer }, shown)
  }

  /** A signed-in person's page, kept for their session while `version` (of all it shows) stands. */
  function personalPage(visit: Visit & { viewer: Viewer }, show: Show, version: string) {
    const { request, url, viewer } = visit
    const key = personalKey(viewer, url)
    const kept = personalPages.kept(key, version)
    if (kept) return pageAnswer(request, kept, 200, true)
    const shown = show(visit)
    if (shown instanceof Response) return shown
    const made = render(url, viewer, shown)
    if ((shown.status ?? 200) === 200) personalPages.keep(key, version, made)
    return pageAnswer(request, made, shown.status ?? 200, true)
  }

  /**
   * The content of a `shared` page at this URL, shown to nobody in particular: made once per data
   * version and URL, for anonymous and signed-in viewers alike.
   */
  const sharedContent = (visit: Visit, show: Show) =>
    sharedContents.get(visit.url.href, () => {
      const shown = show({ ...visit, viewer: null })
      if (shown instanceof Response) throw new Redirected(shown)
      return { title: shown.title, html: contentHtml(shown.content) }
    })

  const frameOf = (url: URL, viewer: Viewer | null, title: string) =>
    ({ title, site: deps.title, viewer, path: url.pathname }) as const

  /**
   * A signed-in person's copy of a `shared` page: the content everyone gets in their own frame (the
   * navigation, Sign out with their CSRF token), kept for their session while the data version stands.
   */
  function sharedPage(visit: Visit & { viewer: Viewer }, show: Show) {
    const { request, url, viewer } = visit
    const key = personalKey(viewer, url)
    const version = deps.clubs.dataVersion
    const kept = personalPages.kept(key, version)
    if (kept) return pageAnswer(request, kept, 200, true)
    const content = sharedContent(visit, show)
    const made = preparedPage(framedHtml(frameOf(url, viewer, content.title), content.html))
    personalPages.keep(key, version, made)
    return pageAnswer(request, made, 200, true)
  }

  /**
   * A GET page. A page for nobody in particular is rendered once per data version and URL; a
   * signed-in person's, once per `personal` version (of everything it shows) when it names one.
   * A `shared` page shows everyone the same content (`show` is given no viewer): it is rendered
   * once per data version and URL, and each signed-in person gets it in their own frame.
   */
  const page =
    (show: Show, { personal, shared = false }: { personal?: () => string; shared?: boolean } = {}) =>
    ({ request, params }: Context): Handled => {
      const url = new URL(urlOf(request))
      let viewer: Viewer | null = null
      try {
        viewer = viewerOf(request)
        const visit = { request, url, viewer, params }
        if (viewer && shared) return sharedPage({ ...visit, viewer }, show)
        if (viewer && personal) return personalPage({ ...visit, viewer }, show, personal())
        if (viewer) {
          const shown = show(visit)
          return shown instanceof Response ? shown : answer(visit, shown)
        }
        // The host is part of the page (its absolute links, whether a logo is this service's own).
        const prepared = anonymousPages.get(url.href, () => {
          if (shared) {
            const content = sharedContent(visit, show)
            return preparedPage(framedHtml(frameOf(url, null, content.title), content.html))
          }
          const shown = show(visit)
          if (shown instanceof Response) throw new Redirected(shown)
          return render(url, null, shown)
        })
        return pageAnswer(request, prepared, 200, false)
      } catch (error) {
        if (error instanceof Redirected) return error.response
        return failed({ request, url, viewer }, error)
      }
    }

  /**
   * A request that does its work before it answers (a POST, a step of signing in): never cached.
   * `evenDisabled`: a disabled account's session may take it (signing out).
   */
  const step =
    (handle: (visit: Visit) => Promise<Response | Shown>, { evenDisabled = false } = {}) =>
    async ({ request, params }: Context): Promise<Response> => {
      const url = new URL(urlOf(request))
      let viewer: Viewer | null = null
      try {
        viewer = viewerOf(request, { evenDisabled })
        const visit = { request, url, viewer, params }
        const done = await handle(visit)
        return done instanceof Response ? done : await answer(visit, done)
      } catch (error) {
        return failed({ request, url, viewer }, error)
      }
    }

  /** A POST from a form of the site: refused from another origin, or without the session's CSRF token. */
  const action = (handle: (post: FormPost) => Promise<Response | Shown>, options: { evenDisabled?: boolean } = {}) =>
    step(async (visit) => {
      checkOrigin(visit.request, visit.url.origin)
      const form = await readForm(visit.request)
      if (visit.viewer) checkCsrf(form, visit.viewer.csrf)
      return deps.exclusive(() => handle({ ...visit, form }))
    }, options)

  /**
   * A POST of a form with a file (`name`, at most `limit` bytes): checked as every form is. The
   * file is `prepare`d before the write takes its turn among the others (an image made: no other
   * write waits for that), and `handle` gets what it answered.
   */
  const upload = <P,>(
    name: string,
    limit: number,
    prepare: (post: FormPost & { file: Uint8Array | null }) => Promise<P>,
    handle: (post: FormPost & { prepared: P }) => Promise<Response | Shown>,
  ) =>
    step(async (visit) => {
      checkOrigin(visit.request, visit.url.origin)
      const { form, file } = await readUpload(visit.request, name, limit)
      if (visit.viewer) checkCsrf(form, visit.viewer.csrf)
      const prepared = await prepare({ ...visit, form, file })
      return deps.exclusive(() => handle({ ...visit, form, prepared }))
    })

  return { deps, viewerOf, page, step, action, upload, answer }
}

export type SiteKit = ReturnType<typeof siteKit>

/** What a signed-in person's kept pages are kept under: their session, whether they are an admin, the URL. */
const personalKey = (viewer: Viewer, url: URL) => `${viewer.csrf} ${viewer.isAdmin} ${url.href}`

/** A page that answered with a redirect instead of content: never cached. */
class Redirected extends Error {
  constructor(readonly response: Response) {
    super('redirected')
  }
}
