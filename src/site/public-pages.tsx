/** @jsxImportSource preact */
import { Elysia } from 'elysia'
import { urlOf } from '../edge/request-facts'
import { prefersHtml } from '../edge/negotiate'
import { NOSNIFF } from '../edge/respond'
import { ClubActions, SignInToJoin } from './club-actions'
import { ClubPage } from './club-page'
import { InterestSection, interestPost, interestStateOf, type InterestState } from './interest-form'
import { OfficePanel } from './office-panel'
import { LapsedPanel } from './rounds-page'
import { DirectoryPage, freeTimesOf, SORTS, sortOf, type DirectoryState } from './directory'
import { ANONYMOUS } from '../domain/caller'
import { callerOf, type Shown, type SiteKit, type Visit } from './kit'

/** Clubs on one page of the directory. */
export const DIRECTORY_PAGE_SIZE = 24

/** The directory at `/` for browsers (programs keep the redirect to the API) and each club's page. */
export function publicPages(kit: SiteKit) {
  const { clubs, tags, requests, review, members } = kit.deps

  /** The public directory, the same for everyone: a person's own pending clubs are under My clubs. */
  function directory({ url }: Visit): Shown {
    const caller = ANONYMOUS
    const search = (url.searchParams.get('search') ?? '').trim()
    const chosenTags = url.searchParams.getAll('tags').filter((name) => name !== '')
    const query = new URLSearchParams({
      page: url.searchParams.get('page') ?? '1',
      page_size: String(DIRECTORY_PAGE_SIZE),
    })
    if (search) query.set('search', search)
    if (chosenTags.length) query.set('tags', chosenTags.join(','))
    const free = freeTimesOf(url.searchParams)
    if (!free.problem) {
      if (free.free) query.set('free', free.free)
      if (free.meetsOn) query.set('meets_on', free.meetsOn)
    }
    const sort = sortOf(url.searchParams.get('sort'), search)
    if (sort !== 'relevance') query.set('ordering', SORTS[sort].ordering)
    const found = clubs.list(caller, clubs.parseQuery(query))
    const state: DirectoryState = {
      clubs: found.records.map((record) => clubs.listItem(caller, record)),
      total: found.total,
      page: found.page?.number ?? 1,
      lastPage: found.page?.last ?? 1,
      search,
      chosenTags,
      sort,
      tags: tags.list(caller).filter((tag) => tag.clubs > 0 || chosenTags.includes(tag.name)),
      origin: url.origin,
      free,
    }
    return {
      title: search ? `Clubs matching “${search}”` : 'Student clubs',
      content: <DirectoryPage state={state} />,
    }
  }

  function club({ url, viewer, params }: Visit, interest: InterestState = interestStateOf(url)): Shown {
    const caller = callerOf(viewer)
    const view = clubs.detail(caller, clubs.retrieve(caller, params.code!))
    const actions = viewer ? (
      <ClubActions
        viewer={viewer}
        done={url.searchParams.get('done')}
        standing={{
          code: view.code,
          favorite: view.is_favorite,
          subscribed: view.is_subscribe,
          takesSubscriptions: view.enables_subscription,
          member: view.is_member,
          requested: requests.mine(caller).some((request) => request.club === view.code),
          acceptingMembers: view.accepting_members,
          runs: caller.isAdmin || clubs.runs(caller, view.code),
        }}
      />
    ) : (
      <SignInToJoin code={view.code} />
    )
    const officeCase = viewer?.isAdmin ? review.case(caller, view.code) : null
    const office = viewer && officeCase && (
      <>
        <OfficePanel review={officeCase} viewer={viewer} />
        {clubs.isLapsed(officeCase.club) && <LapsedPanel code={view.code} name={view.name} viewer={viewer} />}
      </>
    )
    return {
      title: view.name,
      content: (
        <ClubPage
          club={view}
          origin={url.origin}
          officers={members.officers(caller, view.code)}
          timeZone={kit.deps.timeZone}
          actions={
            <>
              {actions}
              {office}
            </>
          }
          interest={
            kit.deps.interests.accepts(view.code) && (
              <InterestSection code={view.code} club={view.name} viewer={viewer} state={interest} />
            )
          }
        />
      ),
    }
  }

  const showDirectory = kit.page(directory, { shared: true })
  return new Elysia({ name: 'site-public-pages' })
    .get(
      '/',
      // Only what the page needs, named: given the whole context, Elysia would parse the cookies
      // into a jar for every request and copy each answer to merge its headers (a third of the page's time).
      ({ request, params }) => {
        if (prefersHtml(request.headers.get('accept') ?? '')) return showDirectory({ request, params })
        return new Response(null, {
          status: 302,
          headers: { Location: `${new URL(urlOf(request)).origin}/api/`, Vary: 'Accept', ...NOSNIFF },
        })
      },
      { detail: { hide: true } },
    )
    .get(
      '/clubs/:code',
      kit.page((visit) => club(visit)),
      { detail: { hide: true } },
    )
    .post('/clubs/:code/interest', interestPost(kit, club), { detail: { hide: true } })
}
