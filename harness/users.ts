import { expect } from 'bun:test'

// Users the admin adds through the API (POST /api/users/, docs/reference.md §13), for the tests
// that need people holding tokens and are not about adding them: the suites that are keep their
// own requests.

/** A user to add: a username, or the whole body of the POST (`is_admin: true` for an admin). */
export type NewUser = string | { username: string; is_admin?: boolean }

type NameOf<U> = U extends string ? U : U extends { username: infer N extends string } ? N : never

/**
 * Whoever adds the users: an app of harness/app.ts (its `admin.post` sends the admin token), or, for
 * a service running as a process, a sender such as harness/service.ts's `adminSender(base, token)`.
 */
export type Issuer =
  | { admin: { post(path: string, json: unknown): Promise<Response> } }
  | ((method: string, path: string, json?: unknown) => Promise<Response>)

/**
 * Adds each user with POST /api/users/ as the admin, one after another in the order given (on either
 * store: it is the API), expects each a 201, and answers their tokens by username.
 */
export async function users<const U extends readonly NewUser[]>(
  issuer: Issuer,
  ...people: U
): Promise<Record<NameOf<U[number]>, string>> {
  const post =
    typeof issuer === 'function'
      ? (body: unknown) => issuer('POST', '/api/users/', body)
      : (body: unknown) => issuer.admin.post('/api/users/', body)
  const tokens: Record<string, string> = {}
  for (const person of people) {
    const body = typeof person === 'string' ? { username: person } : person
    const res = await post(body)
    expect(res.status).toBe(201)
    tokens[body.username] = ((await res.json()) as { token: string }).token
  }
  return tokens as Record<NameOf<U[number]>, string>
}
