/** @jsxImportSource preact */
import { Elysia } from 'elysia'
import type { Caller } from '../domain/caller'
import { ValidationFailed } from '../domain/errors'
import { calendarAddress } from '../edge/endpoints/calendars'
import type { LastDecision } from '../model/club'
import { callerOf, seeOther, signInFirst, type Shown, type SiteKit } from './kit'
import type { Viewer } from './layout'
import { MY_CLUBS_DONE, MyClubsPage, type MyClubsState, type Problem } from './my-clubs'
import { clubStanding } from './run-clubs'
import { roundNote } from './re-registration'

const HIDE = { detail: { hide: true } }
const MY_CLUBS = '/my-clubs'

/**
 * My clubs (docs/reference.md §20, §22): every signed-in person's own page, and its buttons. Each button
 * goes through the domain service the API's endpoint uses, so the rules (the last owner stays,
 * only one's own request is withdrawn) are the API's; a refusal is shown beside the button.
 */
export function myClubsRoutes(kit: SiteKit) {
  const { clubs, members, requests, favorites, subscriptions, calendars, rounds } = kit.deps

  /** The office's latest decision on a club the caller runs, when it went against the club. */
  function refusalOf(code: string): LastDecision | null {
    const latest = clubs.lastDecision(code)
    return latest?.action === 'approved' ? null : latest
  }

  const nameOf = (caller: Caller, code: string) => clubs.shownTo(caller, code)?.name ?? code
  const saved = (records: readonly { code: string; name: string }[]) =>
    records.map(({ code, name }) => ({ code, name }))

  function stateOf(caller: Caller, origin: string, notice: string | null, problem: Problem | null): MyClubsState {
    const token = calendars.current(caller)
    return {
      run: clubs.runBy(caller.username!).map(({ record, role }) => ({
        code: record.code,
        name: record.name,
        role,
        standing: clubStanding(clubs, record),
        active: record.active,
        pendingRequests: requests.list(caller, record.code).length,
        refusal: refusalOf(record.code),
        // Only an active club is asked to re-register: an inactive one does not lapse.
        round: record.active ? roundNote(rounds.openRound(), rounds.confirmationOf(record.code)) : null,
      })),
      memberships: members.mine(caller).map(({ club, role, title, lastOwner }) => ({
        code: club.code,
        name: club.name,
        role,
        title,
        lastOwner,
      })),
      favorites: saved(favorites.list(caller)),
      subscriptions: saved(subscriptions.list(caller)),
      requests: requests.mine(caller).map(({ club, message, created_at }) => ({
        code: club,
        name: nameOf(caller, club),
        message,
        at: created_at,
      })),
      calendar: token === null ? null : calendarAddress(origin, token),
      notice,
      problem,
    }
  }

  const shown = (viewer: Viewer, state: MyClubsState, status = 200): Shown => ({
    title: 'My clubs',
    content: <MyClubsPage state={state} viewer={viewer} />,
    status,
  })

  /** Everything the page is made from: clubs and people's links, join requests, calendar addresses. */
  const version = () => `${clubs.dataVersion}.${requests.version}.${calendars.version}.${rounds.version}`

  const page = kit.page(
    ({ url, viewer }) => {
      if (!viewer) return signInFirst(url)
      const done = url.searchParams.get('done')
      const notice = done && Object.hasOwn(MY_CLUBS_DONE, done) ? MY_CLUBS_DONE[done]! : null
      return shown(viewer, stateOf(callerOf(viewer), url.origin, notice, null))
    },
    { personal: version },
  )

  /**
   * A button about club `:code`: does `work`, then back to My clubs saying what it did; a refusal
   * the domain words by field (a 400) is the page again, with the words beside the button.
   */
  const button = (id: string, label: string, work: (caller: Caller, code: string) => Promise<unknown>, done: string) =>
    kit.action(async ({ url, viewer, params }) => {
      if (!viewer) return signInFirst(new URL(MY_CLUBS, url))
      const caller = callerOf(viewer)
      const code = params.code!
      try {
        await work(caller, code)
      } catch (error) {
        if (!(error instanceof ValidationFailed)) throw error
        const messages = Object.values(error.body).flatMap((value) => (Array.isArray(value) ? value.map(String) : []))
        const problem = { at: `${id}-${code}`, label: `${label} ${nameOf(caller, code)}`, messages }
        return shown(viewer, stateOf(caller, url.origin, null, problem), 400)
      }
      return seeOther(`${MY_CLUBS}?done=${done}`)
    })

  const replaceCalendar = kit.action(async ({ url, viewer }) => {
    if (!viewer) return signInFirst(new URL(MY_CLUBS, url))
    const caller = callerOf(viewer)
    const had = calendars.current(caller) !== null
    await calendars.replace(caller)
    return seeOther(`${MY_CLUBS}?done=${had ? 'calendar-replaced' : 'calendar-made'}#calendar-heading`)
  })

  return new Elysia({ name: 'site-my-clubs' })
    .get(MY_CLUBS, page, HIDE)
    .post(
      '/my-clubs/memberships/:code/leave',
      button('leave', 'Leave', (caller, code) => members.remove(caller, code, caller.username!), 'left'),
      HIDE,
    )
    .post(
      '/my-clubs/requests/:code/withdraw',
      button('withdraw', 'Withdraw', (caller, code) => requests.remove(caller, code, caller.username!), 'withdrawn'),
      HIDE,
    )
    .post(
      '/my-clubs/favorites/:code/remove',
      button('favorites', 'Unfavorite', (caller, code) => favorites.remove(caller, code), 'unfavorited'),
      HIDE,
    )
    .post(
      '/my-clubs/subscriptions/:code/remove',
      button('subscriptions', 'Unsubscribe', (caller, code) => subscriptions.remove(caller, code), 'unsubscribed'),
      HIDE,
    )
    .post('/my-clubs/calendar', replaceCalendar, HIDE)
}
