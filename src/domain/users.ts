import { TypeCompiler } from '@sinclair/typebox/compiler'
import { requireUser, type Caller } from './caller'
import { BodyCheck, fieldsOrRefuse } from './check'
import type { Commit } from './journal'
import { AccountDisabled, BadRequest, Conflict, NotFound, PermissionDenied, ValidationFailed } from './errors'
import { newToken, sha256, type UserDirectory } from './user-directory'
import { UserCreate, UserPatch, type UserRecord } from '../model/user'

export const ADMIN_USERNAME = 'admin'
const USERNAME_RULE = 'Use 1 to 64 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit.'
const USERNAME = TypeCompiler.Compile(UserCreate.properties.username)
/** The body of POST /api/users/, with this service's words. */
export const USER_BODY = new BodyCheck(UserCreate, {
  notAnObject: 'Send an object: {"username": "...", "is_admin": false}.',
  fields: { username: { invalid: USERNAME_RULE }, is_admin: { invalid: 'Must be a valid boolean.' } },
})

const USER_PATCH_BODY = new BodyCheck(UserPatch, {
  notAnObject: 'Send an object: {"is_active": false} or {"is_admin": true}.',
  fields: { is_active: { invalid: 'Must be a valid boolean.' }, is_admin: { invalid: 'Must be a valid boolean.' } },
})

/** A user as admins list them. */
export interface UserSummary {
  readonly username: string
  readonly is_admin: boolean
  readonly is_active: boolean
}

const summaryOf = ({ username, is_admin, is_active }: UserRecord): UserSummary => ({
  username,
  is_admin,
  is_active: is_active !== false,
})

/** What a user's present token is known by in a form: a digest of its hash, or of its absence. */
const markOf = (user: UserRecord) => sha256(`token-mark:${user.token_sha256 ?? ''}`).slice(0, 32)

/** A token issued again (POST /api/users/{username}/token/); shown this once. */
export interface IssuedToken {
  readonly username: string
  readonly token: string
}

/**
 * A name an identity provider gives, fitted to the username rule: accents dropped, lowercased,
 * each run of other characters made one "-", cut to 64; null when nothing is left of it.
 */
export function fitUsername(name: string): string | null {
  const fitted = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 64)
  return fitted === '' ? null : fitted
}

/** A user's record, which keeps only the SHA-256 of their new token, and that token. */
export function userWithToken(username: string, isAdmin: boolean, now: Date): { record: UserRecord; token: string } {
  const token = newToken()
  return {
    record: { username, is_admin: isAdmin, token_sha256: sha256(token), created_at: now.toISOString() },
    token,
  }
}

export interface IssuedUser {
  readonly username: string
  readonly is_admin: boolean
  /** Shown this once; only its hash is kept. */
  readonly token: string
}

/** Users and their tokens: issued by admins, issued again or revoked by admins or their holder (docs/reference.md §5, §13). */
export class UserService {
  constructor(
    readonly directory: UserDirectory,
    private readonly commit: Commit,
    private readonly now: () => Date,
  ) {}

  exists(username: string): boolean {
    return username === ADMIN_USERNAME || this.directory.get(username) !== undefined
  }

  async create(caller: Caller, body: unknown): Promise<IssuedUser> {
    if (!requireUser(caller).isAdmin) throw new PermissionDenied()
    const { username, isAdmin } = this.#validate(body)
    return this.issue(username, isAdmin)
  }

  /** Adds a user and answers their new token (the operator command uses this too). */
  async issue(username: string, isAdmin: boolean): Promise<IssuedUser> {
    const { record, token } = userWithToken(username, isAdmin, this.now())
    await this.commit(() => {
      this.directory.put(record)
      return () => this.directory.remove(username)
    })
    return { username, is_admin: isAdmin, token }
  }

  /** Every user, the bootstrap admin included, ordered by username (admins only). */
  list(caller: Caller): UserSummary[] {
    if (!requireUser(caller).isAdmin) throw new PermissionDenied()
    const users = this.directory.all().map(summaryOf)
    // The data file keeps a record of the bootstrap admin only when it holds a development token.
    if (!this.directory.get(ADMIN_USERNAME)) users.push({ username: ADMIN_USERNAME, is_admin: true, is_active: true })
    return users.sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0))
  }

  /** Refuses a disabled user, whatever credential brought them (docs/reference.md §13). */
  checkActive(username: string): void {
    if (this.directory.get(username)?.is_active === false) throw new AccountDisabled()
  }

  /** Disables or enables a user, makes or unmakes an admin (admins only); never the bootstrap admin. */
  async update(caller: Caller, username: string, body: unknown): Promise<UserSummary> {
    if (!requireUser(caller).isAdmin) throw new PermissionDenied()
    const patch = fieldsOrRefuse(USER_PATCH_BODY.check(body))
    const user = this.directory.get(username)
    if (username === ADMIN_USERNAME) {
      const errors: Record<string, string[]> = {}
      if (patch.is_active === false) errors.is_active = [`The "${ADMIN_USERNAME}" user cannot be disabled.`]
      if (patch.is_admin === false) errors.is_admin = [`The "${ADMIN_USERNAME}" user is always an admin.`]
      if (Object.keys(errors).length) throw new ValidationFailed(errors)
      return user ? summaryOf(user) : { username, is_admin: true, is_active: true }
    }
    if (!user) throw new NotFound()
    const next: UserRecord = {
      ...user,
      is_admin: patch.is_admin ?? user.is_admin,
      is_active: patch.is_active ?? user.is_active !== false,
    }
    await this.#replace(user, next)
    return summaryOf(next)
  }

  /**
   * A new token for `username` (admins, or that user); the previous one answers 401 from now on.
   * `seen`: the `tokenMark` of the token the caller knew of (a form sent again after it issued one
   * issues no other, which would end the one just shown): a 409 when it has changed since.
   */
  async reissue(caller: Caller, username: string, seen?: string): Promise<IssuedToken> {
    const user = this.#holder(caller, username)
    if (seen !== undefined && seen !== markOf(user))
      throw new Conflict(`A new token was issued for ${username} since this page was shown, so no other was.`)
    return this.reissueAs(user)
  }

  /** A mark of `username`'s present token, which tells whether it has changed and nothing about the token (admins, or that user). */
  tokenMark(caller: Caller, username: string): string {
    return markOf(this.#holder(caller, username))
  }

  /** A new token for an existing user (the operator command uses this too). */
  async reissueAs(user: UserRecord): Promise<IssuedToken> {
    const token = newToken()
    await this.#replace(user, { ...user, token_sha256: sha256(token) })
    return { username: user.username, token }
  }

  /**
   * A new development token for the bootstrap admin, kept like any user's (the operator command,
   * outside production and without CLUBS_ADMIN_TOKEN); a previous development token stops working.
   */
  async issueDevelopmentAdmin(): Promise<IssuedToken> {
    const known = this.directory.get(ADMIN_USERNAME)
    if (known) return this.reissueAs(known)
    const { username, token } = await this.issue(ADMIN_USERNAME, true)
    return { username, token }
  }

  /** `username` holds no token from now on (admins, or that user); their clubs and saved clubs stay. */
  async revoke(caller: Caller, username: string): Promise<void> {
    const user = this.#holder(caller, username)
    if (user.token_sha256 !== null) await this.#replace(user, { ...user, token_sha256: null })
  }

  /**
   * A user the campus identity provider vouches for, as of their first request: recorded once
   * (with no token of this service's), then only found — and their `email`, when the provider names
   * one, kept, and replaced when it changes (docs/reference.md §21).
   */
  signedIn(username: string, email: string | null = null): UserRecord | Promise<UserRecord> {
    const known = this.directory.get(username)
    if (known && (email === null || known.email === email)) return known
    if (known) {
      const next = { ...known, email: email! }
      return this.#replace(known, next).then(() => next)
    }
    const record: UserRecord = {
      username,
      is_admin: false,
      token_sha256: null,
      created_at: this.now().toISOString(),
      ...(email === null ? {} : { email }),
    }
    return this.commit(() => {
      this.directory.put(record)
      return () => this.directory.remove(username)
    }).then(() => record)
  }

  /** The e-mail address the user's campus sign-in last named, or null. */
  emailOf(username: string): string | null {
    return this.directory.get(username)?.email ?? null
  }

  /** Whose token a caller may reissue or revoke: their own, or anyone's for an admin; never the bootstrap admin's. */
  #holder(caller: Caller, username: string): UserRecord {
    const who = requireUser(caller)
    if (!who.isAdmin && who.username !== username) throw new PermissionDenied()
    if (username === ADMIN_USERNAME)
      throw new BadRequest(
        `The "${ADMIN_USERNAME}" user's token is CLUBS_ADMIN_TOKEN: change it in the service's environment and restart the service. (Without it, in development: stop the service and run npm run users:token -- ${ADMIN_USERNAME}.)`,
      )
    const user = this.directory.get(username)
    if (!user) throw new NotFound()
    return user
  }

  /** Records never change in place: a new object replaces the old, and the undo puts the old one back. */
  async #replace(previous: UserRecord, next: UserRecord): Promise<void> {
    await this.commit(() => {
      this.directory.put(next)
      return () => this.directory.put(previous)
    })
  }

  /** Why `username` cannot be issued, or null. */
  problemWith(username: unknown): string | null {
    if (!USERNAME.Check(username)) return USERNAME_RULE
    if (this.exists(username)) return 'A user with that username already exists.'
    return null
  }

  #validate(body: unknown): { username: string; isAdmin: boolean } {
    const checked = USER_BODY.check(body)
    const named = checked.fields.username
    if (named !== undefined && this.exists(named))
      checked.errors.username = ['A user with that username already exists.']
    const { username, is_admin: isAdmin = false } = fieldsOrRefuse(checked)
    return { username, isAdmin }
  }
}
