/** @jsxImportSource preact */
import type { FieldErrors } from '../domain/check'
import type { UserSummary } from '../domain/users'
import { CheckField, ErrorSummary, TextField } from './fields'
import { CsrfField, type Viewer } from './layout'
import { Table } from './table'

/** The add form as sent, with what the domain said of it. */
export interface AddForm {
  readonly username: string
  readonly isAdmin: boolean
  readonly errors: FieldErrors
}

export interface UsersState {
  /** The users of this page of the list. */
  readonly users: readonly UserSummary[]
  /** How many users the search found, on every page. */
  readonly total: number
  readonly search: string
  readonly page: number
  readonly lastPage: number
  readonly add: AddForm
}

export const usersHref = (search: string, page = 1) => {
  const query = new URLSearchParams()
  if (search) query.set('search', search)
  if (page > 1) query.set('page', String(page))
  const text = query.toString()
  return text ? `/admin/users?${text}` : '/admin/users'
}

export const userHref = (username: string) => `/admin/users/${encodeURIComponent(username)}`

const ADD_FIELDS = {
  username: { id: 'new-username', label: 'Username' },
  is_admin: { id: 'new-is-admin', label: 'Make them an admin' },
}

function Notice({ text }: { text: string | null }) {
  return text ? (
    <p class="notice saved" role="status">
      {text}
    </p>
  ) : null
}

function Paging({ state }: { state: UsersState }) {
  if (state.lastPage <= 1) return null
  return (
    <nav aria-label="Pages" class="paging">
      {state.page > 1 ? <a href={usersHref(state.search, state.page - 1)}>Previous page</a> : <span />}
      <span>
        Page {state.page} of {state.lastPage}
      </span>
      {state.page < state.lastPage ? <a href={usersHref(state.search, state.page + 1)}>Next page</a> : <span />}
    </nav>
  )
}

function AddUser({ add, viewer }: { add: AddForm; viewer: Viewer }) {
  return (
    <section aria-labelledby="add-user" class="edit-section">
      <h2 id="add-user">Add a user</h2>
      <ErrorSummary errors={add.errors} fields={ADD_FIELDS} />
      <form method="post" action="/admin/users" class="narrow" noValidate>
        <CsrfField viewer={viewer} />
        <TextField
          {...ADD_FIELDS.username}
          name="username"
          value={add.username}
          maxLength={64}
          autocomplete="off"
          errors={add.errors.username}
          help="1 to 64 lowercase letters, digits, “.”, “_” or “-”. Their token is shown once, on the next page."
        />
        <CheckField {...ADD_FIELDS.is_admin} name="is_admin" checked={add.isAdmin} errors={add.errors.is_admin} />
        <button type="submit">Add user</button>
      </form>
    </section>
  )
}

/** The office's list of users (docs/reference.md §22): found by username, a page at a time, and a form to add one. */
export function UsersPage({ state, viewer }: { state: UsersState; viewer: Viewer }) {
  const found = `${state.total} user${state.total === 1 ? '' : 's'}${state.search ? ' found' : ''}`
  return (
    <>
      <h1>Users</h1>
      <form method="get" action="/admin/users" class="search" role="search">
        <p class="field">
          <label for="search">Search by username</label>
          <input id="search" name="search" type="search" value={state.search} maxLength={100} />
        </p>
        <p class="actions">
          <button type="submit">Search</button>
          {state.search && <a href="/admin/users">Clear the search</a>}
        </p>
      </form>
      <p class="count">{found}</p>
      {state.users.length > 0 && (
        <Table
          head={['Username', 'Admin', 'Account']}
          rows={state.users.map((user) => [
            <a href={userHref(user.username)}>{user.username}</a>,
            user.is_admin ? 'Admin' : '—',
            user.is_active ? 'Active' : 'Disabled',
          ])}
        />
      )}
      <Paging state={state} />
      <AddUser add={state.add} viewer={viewer} />
    </>
  )
}

export interface UserState {
  readonly user: UserSummary
  readonly notice: string | null
  /** Why the last change was refused (a 400 from the domain), said once. */
  readonly refused: string | null
}

/** A one-button form that changes something of the user. */
function Act({
  viewer,
  action,
  name,
  value,
  label,
  kind,
  seen,
}: {
  viewer: Viewer
  action: string
  name?: string
  value?: string
  label: string
  kind?: 'secondary' | 'danger'
  /** What the page showed of the state the form changes, for the server to tell a form sent twice. */
  seen?: string
}) {
  return (
    <form method="post" action={action} class="inline">
      <CsrfField viewer={viewer} />
      {seen !== undefined && <input type="hidden" name="seen" value={seen} />}
      <button type="submit" name={name} value={value} class={kind}>
        {label}
      </button>
    </form>
  )
}

/** One user: what they are, and what the office may do to them. */
export function UserPage({ state, viewer }: { state: UserState; viewer: Viewer }) {
  const { user } = state
  const href = userHref(user.username)
  return (
    <>
      <h1>{user.username}</h1>
      <Notice text={state.notice} />
      {state.refused && (
        <p class="notice refused" role="alert">
          {state.refused}
        </p>
      )}
      <p class="edit-links">
        <a href="/admin/users">All users</a>
      </p>
      <dl class="case">
        <dt>Account</dt>
        <dd>{user.is_active ? 'Active' : 'Disabled: refused on every request, whatever the credential'}</dd>
        <dt>Admin</dt>
        <dd>{user.is_admin ? 'Yes' : 'No'}</dd>
      </dl>
      <h2>Account</h2>
      <p class="help">A disabled user keeps their clubs, memberships and favorites; enabling them lets them back.</p>
      <p class="actions">
        {user.is_active ? (
          <Act viewer={viewer} action={href} name="is_active" value="false" label="Disable" kind="danger" />
        ) : (
          <Act viewer={viewer} action={href} name="is_active" value="true" label="Enable" />
        )}
        {user.is_admin ? (
          <Act viewer={viewer} action={href} name="is_admin" value="false" label="Unmake admin" kind="secondary" />
        ) : (
          <Act viewer={viewer} action={href} name="is_admin" value="true" label="Make admin" kind="secondary" />
        )}
      </p>
      <h2>Token and sessions</h2>
      <p class="help">
        A new token ends the old one at once, and every site session it started. Ending the sessions signs them out on
        every browser; their token stays as it is.
      </p>
      <p class="actions">
        <a class="button secondary" href={`${href}/token`}>
          Issue a new token
        </a>
        <Act viewer={viewer} action={`${href}/sessions`} label="End sessions" kind="secondary" />
      </p>
    </>
  )
}

/**
 * Before a new token is issued: what it ends, and the button that does it. The form carries the
 * mark of the token it replaces (`seen`): sent again, it issues no other.
 */
export function NewTokenPage({ username, seen, viewer }: { username: string; seen: string; viewer: Viewer }) {
  return (
    <>
      <h1>Issue a new token for {username}?</h1>
      <p>
        Their present token stops working at once, and so does every site session it started: wherever they signed in
        with it, they sign in again with the new one. The new token is shown once, on the next page.
      </p>
      <p class="actions">
        <Act
          viewer={viewer}
          action={`${userHref(username)}/token`}
          label="Issue a new token"
          kind="danger"
          seen={seen}
        />
        <a href={userHref(username)}>Cancel</a>
      </p>
    </>
  )
}

/** A token just issued: shown on this page once, never again (only its hash is kept). */
export function TokenPage({ username, token, added }: { username: string; token: string; added: boolean }) {
  return (
    <>
      <h1>{added ? `Added ${username}` : `A new token for ${username}`}</h1>
      <p class="notice" role="status">
        Copy the token now and give it to {username}: it is shown this once, and the service keeps only its hash.
      </p>
      <p class="field">
        <label for="token">Token for {username}</label>
        <input id="token" type="text" value={token} readOnly autocomplete="off" spellcheck={false} />
      </p>
      <p class="edit-links">
        <a href={userHref(username)}>{username}’s page</a> · <a href="/admin/users">All users</a>
      </p>
    </>
  )
}
