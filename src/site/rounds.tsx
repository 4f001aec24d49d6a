/** @jsxImportSource preact */
import { Elysia } from 'elysia'
import type { Caller } from '../domain/caller'
import { roundClubTable } from '../domain/cells'
import type { FieldErrors } from '../domain/check'
import { Conflict, NotFound, ValidationFailed } from '../domain/errors'
import { NOSNIFF } from '../edge/respond'
import { spreadsheet } from '../edge/spreadsheets'
import { field } from './forms'
import { callerOf, seeOther, signInFirst, type Shown, type SiteKit } from './kit'
import type { Viewer } from './layout'
import { CloseRoundPage, RoundsPage, type OpenRound, type RoundsState } from './rounds-page'

const HIDE = { detail: { hide: true } }
const ROUNDS = '/admin/rounds'

/** What the last button did (`?done=`), said once. */
const DONE: Record<string, string> = {
  opened: 'The round is open: owners and officers see its deadline and confirm their clubs.',
  closed: 'The round is closed: the clubs not confirmed are inactive now.',
  reactivated: 'The club is active again, and back in the public directory if it is approved.',
}

const NO_FORM = { deadline: '', message: '', errors: {} }

/** The office's pages are for admins: to anyone else they are the 404 of a page that does not exist. */
function admin(viewer: Viewer | null): Viewer {
  if (!viewer?.isAdmin) throw new NotFound()
  return viewer
}

/**
 * Re-registration on the site (docs/reference.md §23): the office's page (`/admin/rounds`) opens a round,
 * follows it, closes it after a confirmation naming what will lapse, and makes a lapsed club
 * active again; a club's owners and officers confirm it from its people page, beside the officer
 * list. Through the RegistrationRounds and ClubService the API's endpoints use.
 */
export function roundRoutes(kit: SiteKit) {
  const { rounds, clubs } = kit.deps

  function openRound(caller: Caller): OpenRound | null {
    if (!rounds.openRound()) return null
    return { round: rounds.current(caller), waiting: rounds.clubsOf(caller).filter((club) => !club.confirmed_at) }
  }

  function roundsShown(viewer: Viewer, notice: string | null, form: RoundsState['form'] = NO_FORM): Shown {
    const caller = callerOf(viewer)
    const closed = rounds.lastClosed()
    const state: RoundsState = {
      open: openRound(caller),
      form,
      today: rounds.today(),
      lastClosed: closed && {
        round: closed,
        clubs: closed.lapsed.map((code) => {
          const record = clubs.shownTo(caller, code)
          return { code, name: record?.name ?? code, lapsed: record !== undefined && clubs.isLapsed(record) }
        }),
      },
      notice,
    }
    const refused = Object.keys(form.errors).length > 0
    return {
      title: 'Re-registration',
      content: <RoundsPage state={state} viewer={viewer} />,
      status: refused ? 400 : 200,
    }
  }

  const page = kit.page(({ url, viewer }) => {
    if (!viewer) return signInFirst(url)
    return roundsShown(admin(viewer), DONE[url.searchParams.get('done') ?? ''] ?? null)
  })

  const open = kit.action(async ({ url, viewer, form }) => {
    if (!viewer) return signInFirst(new URL(ROUNDS, url))
    const office = admin(viewer)
    const deadline = field(form, 'deadline', 100).trim()
    const message = field(form, 'message', 10_000)
    try {
      await rounds.open(callerOf(office), { deadline, ...(message.trim() ? { message: message.trim() } : {}) })
    } catch (error) {
      if (!(error instanceof ValidationFailed)) throw error
      return roundsShown(office, null, { deadline, message, errors: error.body as FieldErrors })
    }
    return seeOther(`${ROUNDS}?done=opened`)
  })

  const confirmClose = kit.page(({ url, viewer }) => {
    if (!viewer) return signInFirst(url)
    const office = admin(viewer)
    const open = openRound(callerOf(office))
    if (!open) throw new NotFound('No re-registration round is open.')
    return { title: 'Close the round?', content: <CloseRoundPage open={open} viewer={office} /> }
  })

  const close = kit.action(async ({ url, viewer, form }) => {
    if (!viewer) return signInFirst(new URL(ROUNDS, url))
    const office = admin(viewer)
    const shown = rounds.openRound()
    // A confirmation of an earlier round closes no later one.
    if (shown && form.get('round') !== String(shown.id))
      throw new Conflict('This round is not the one you were asked to close: look at it again.')
    await rounds.close(callerOf(office))
    return seeOther(`${ROUNDS}?done=closed`)
  })

  const reactivate = kit.action(async ({ url, viewer, params, form }) => {
    if (!viewer) return signInFirst(new URL(ROUNDS, url))
    const code = params.code!
    await clubs.update(callerOf(admin(viewer)), code, { active: true }, true)
    if (form.get('back') === 'club') return seeOther(`/clubs/${encodeURIComponent(code)}`)
    return seeOther(`${ROUNDS}?done=reactivated`)
  })

  /** The open round's clubs as a CSV file, for the office signed in on the site (the API's needs a token). */
  const clubsFile = kit.step(async ({ url, viewer }) => {
    if (!viewer) return signInFirst(url)
    const file = await spreadsheet('csv', roundClubTable(rounds.clubsOf(callerOf(admin(viewer)))), 're-registration')
    return new Response(file.body.body, {
      headers: { 'Content-Type': file.body.type, 'Cache-Control': 'no-store', ...NOSNIFF, ...file.headers },
    })
  })

  /** Its owners, officers or an admin confirm a club, from its people page: back there, saying so. */
  const confirm = kit.action(async ({ url, viewer, params }) => {
    const code = params.code!
    if (!viewer) return signInFirst(new URL(`/clubs/${code}/requests`, url))
    await rounds.confirm(callerOf(viewer), code)
    return seeOther(`/clubs/${encodeURIComponent(code)}/requests?reregistered=${encodeURIComponent(viewer.username)}`)
  })

  return new Elysia({ name: 'site-rounds' })
    .get(ROUNDS, page, HIDE)
    .post(ROUNDS, open, HIDE)
    .get(`${ROUNDS}/close`, confirmClose, HIDE)
    .post(`${ROUNDS}/close`, close, HIDE)
    .get(`${ROUNDS}/clubs.csv`, clubsFile, HIDE)
    .post(`${ROUNDS}/reactivate/:code`, reactivate, HIDE)
    .post('/clubs/:code/registration', confirm, HIDE)
}
