import { TypeCompiler } from '@sinclair/typebox/compiler'
import { requireUser, type Caller } from './caller'
import { BodyCheck, fieldsOrRefuse } from './check'
import type { Commit } from './journal'
import { PermissionDenied } from './errors'
import { newToken, sha256, type UserDirectory } from './user-directory'
import { UserCreate, type UserRecord } from '../model/user'

export const ADMIN_USERNAME = 'admin'
const USERNAME_RULE = 'Use 1 to 64 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit.'
const USERNAME = TypeCompiler.Compile(UserCreate.properties.username)
/** The body of POST /api/users/, with this service's words. */
export const USER_BODY = new BodyCheck(UserCreate, {
  notAnObject: 'Send an object: {"username": "...", "is_admin": false}.',
  fields: { username: { invalid: USERNAME_RULE }, is_admin: { invalid: 'Must be a valid boolean.' } },
})

export interface IssuedUser {
  readonly username: string
  readonly is_admin: boolean
  /** Shown this once; only its hash is kept. */
  readonly token: string
}

/** Issues users and their tokens; only an admin may (CONTRACT §5). */
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
    const token = newToken()
    const record: UserRecord = {
      username,
      is_admin: isAdmin,
      token_sha256: sha256(token),
      created_at: this.now().toISOString(),
    }
    await this.commit(() => {
      this.directory.put(record)
      return () => this.directory.remove(username)
    })
    return { username, is_admin: isAdmin, token }
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
