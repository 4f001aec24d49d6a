/** @jsxImportSource preact */
import { Elysia } from 'elysia'
import type { FieldErrors } from '../domain/check'
import { ApiError, BadRequest, NotFound, ValidationFailed } from '../domain/errors'
import type { UserSummary } from '../domain/users'
import { reasonOf } from '../edge/error-answer'
import { field } from './forms'
import { callerOf, seeOther, type FormPost, type Shown, type SiteKit } from './kit'
import type { Viewer } from './layout'
import { NewTokenPage, TokenPage, UserPage, UsersPage, userHref, type AddForm } from './users-page'

/** Users on one page of the office's list. */
export const USERS_PAGE_SIZE = 50
const HIDE = { detail: { hide: true } }
const NO_ADD: AddForm = { username: '', isAdmin: false, errors: {} }

/** What a change to a user did (`?done=`), said on their page. */
const DONE: Record<string, (username: string) => string> = {
  disabled: (who) => `${who} is disabled: every request of theirs is refused.`,
  enabled: (who) => `${who} is enabled again.`,
  admin: (who) => `${who} is an admin now.`,
  'not-admin': (who) => `${who} is no longer an admin.`,
  sessions: (who) => `Every site session of ${who} has ended.`,
}

/** The office's pages are for admins: to anyone else they are the 404 of a page that does not exist. */
function admin(viewer: Viewer | null): Viewer {
  if (!viewer?.isAdmin) throw new NotFound()
  return viewer
}

/** A form's "true" or "false" as a boolean; anything else as sent, for the domain to refuse. */
const flag = (value: string) => (value === 'true' ? true : value === 'false' ? false : value)

/**
 * The office (docs/reference.md §22): `/admin/users` finds users and adds one (its token shown once), and
 * each user's page disables and enables them, makes or unmakes an admin, issues a new token (after
 * a confirmation) and ends their sessions — through the domain's services, as `/api/users/` does.
 */
export function officeRoutes(kit: SiteKit) {
  const { users, sessions } = kit.deps

  function listed(viewer: Viewer, url: URL, add: AddForm = NO_ADD): Shown {
    const search = field(url.searchParams, 'search', 100).trim().toLowerCase()
    const pageText = url.searchParams.get('page') ?? '1'
    if (!/^[1-9][0-9]{0,8}$/.test(pageText)) throw new BadRequest('The page must be a whole number from 1 on.')
    const found = users.list(callerOf(viewer)).filter((user) => user.username.includes(search))
    const lastPage = Math.max(1, Math.ceil(found.length / USERS_PAGE_SIZE))
    const page = Number(pageText)
    if (page > lastPage) throw new NotFound(`There is no page ${page}; the last one is ${lastPage}.`)
    const state = {
      users: found.slice((page - 1) * USERS_PAGE_SIZE, page * USERS_PAGE_SIZE),
      total: found.length,
      search,
      page,
      lastPage,
      add,
    }
    const errors = Object.keys(add.errors).length > 0
    return { title: 'Users', content: <UsersPage state={state} viewer={viewer} />, status: errors ? 400 : 200 }
  }

  function userOf(viewer: Viewer, username: string): UserSummary {
    const user = users.list(callerOf(viewer)).find((one) => one.username === username)
    if (!user) throw new NotFound(`No user is called “${username}”.`)
    return user
  }

  function userShown(viewer: Viewer, username: string, notice: string | null, refused: string | null = null): Shown {
    const user = userOf(viewer, username)
    const content = <UserPage state={{ user, notice, refused }} viewer={viewer} />
    return { title: user.username, content, status: refused ? 400 : 200 }
  }

  /** A change to one user; the domain's 400 (the bootstrap admin's refusals) is said on their page. */
  const change = (work: (viewer: Viewer, username: string, post: FormPost) => Promise<Response | Shown>) =>
    kit.action(async (post) => {
      const viewer = admin(post.viewer)
      const username = post.params.username!
      try {
        return await work(viewer, username, post)
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 400) throw error
        return userShown(viewer, username, null, reasonOf(error))
      }
    })

  const addUser = kit.action(async ({ url, viewer, form }) => {
    const office = admin(viewer)
    const username = field(form, 'username', 200).trim()
    const isAdmin = form.get('is_admin')
    try {
      const issued = await users.create(callerOf(office), {
        username,
        is_admin: isAdmin === null ? false : flag(isAdmin),
      })
      return { title: `Added ${issued.username}`, content: <TokenPage {...issued} added /> }
    } catch (error) {
      if (!(error instanceof ValidationFailed)) throw error
      const add = { username, isAdmin: isAdmin !== null, errors: error.body as FieldErrors }
      return listed(office, new URL('/admin/users', url), add)
    }
  })

  const updateUser = change(async (viewer, username, { form }) => {
    const patch: Record<string, unknown> = {}
    for (const name of ['is_active', 'is_admin']) if (form.has(name)) patch[name] = flag(form.get(name)!)
    if (Object.keys(patch).length === 0) throw new BadRequest('Choose Disable, Enable, Make admin or Unmake admin.')
    const user = await users.update(callerOf(viewer), username, patch)
    const done =
      'is_active' in patch ? (user.is_active ? 'enabled' : 'disabled') : user.is_admin ? 'admin' : 'not-admin'
    return seeOther(`${userHref(username)}?done=${done}`)
  })

  const newToken = change(async (viewer, username, { form }) => {
    const issued = await users.reissue(callerOf(viewer), username, form.get('seen') ?? '')
    return { title: `A new token for ${username}`, content: <TokenPage {...issued} added={false} /> }
  })

  const endSessions = change(async (viewer, username) => {
    await sessions.endAll(callerOf(viewer), username)
    return seeOther(`${userHref(username)}?done=sessions`)
  })

  return new Elysia({ name: 'site-office' })
    .get(
      '/admin/users',
      kit.page(({ url, viewer }) => listed(admin(viewer), url)),
      HIDE,
    )
    .post('/admin/users', addUser, HIDE)
    .get(
      '/admin/users/:username',
      kit.page(({ url, viewer, params }) => {
        const done = DONE[url.searchParams.get('done') ?? '']
        return userShown(admin(viewer), params.username!, done ? done(params.username!) : null)
      }),
      HIDE,
    )
    .post('/admin/users/:username', updateUser, HIDE)
    .get(
      '/admin/users/:username/token',
      kit.page(({ viewer, params }) => {
        const user = userOf(admin(viewer), params.username!)
        const seen = users.tokenMark(callerOf(viewer), user.username)
        return {
          title: `A new token for ${user.username}?`,
          content: <NewTokenPage username={user.username} seen={seen} viewer={viewer!} />,
        }
      }),
      HIDE,
    )
    .post('/admin/users/:username/token', newToken, HIDE)
    .post('/admin/users/:username/sessions', endSessions, HIDE)
}
