/** The cookie that holds a site session's id, and nothing else (docs/reference.md §20). */
export const SESSION_COOKIE = 'clubs_session'

/** The session id a request's Cookie header carries, or null. */
export const sessionIdOf = (request: Request): string | null => randomCookie(request, SESSION_COOKIE)

/** The value of the cookie `name`, when it is shaped like the random values the site puts in cookies; else null. */
export function randomCookie(request: Request, name: string): string | null {
  const header = request.headers.get('cookie')
  if (header === null) return null
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue
    const value = part.slice(eq + 1).trim()
    return /^[A-Za-z0-9_-]{1,100}$/.test(value) ? value : null
  }
  return null
}

/** Sets the session cookie: script cannot read it, other sites' requests do not carry it, https keeps it to https. */
export function sessionCookie(id: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`
}

/** Removes the session cookie from the browser. */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}`
}
