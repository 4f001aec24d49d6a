import { Elysia, type TSchema } from 'elysia'
import { MethodNotAllowed } from '../errors'
import type { PageInfo } from './endpoints'
import { exchange } from './exchange'
import { options } from './options'

/** Kept out of the OpenAPI document: a catch-all there would overwrite the real operations. */
const HIDDEN = { detail: { hide: true } }

/** Route options of a read: its OpenAPI description. */
export const read = (detail: object) => ({ detail })

/** Route options of a write: its OpenAPI description; the body is read by `readJsonBody`, not Elysia. */
export const write = (detail: object) => ({ parse: 'none' as const, detail })

/** OPTIONS (metadata, CORS preflight) and a 405 for every method an endpoint does not serve. */
export function otherMethods(path: string, page: PageInfo, actions?: Record<string, TSchema>) {
  return new Elysia()
    .options(path, ({ request }) => options(exchange(request), page, actions), HIDDEN)
    .all(
      path,
      ({ request }) => {
        throw new MethodNotAllowed(request.method, page.allow)
      },
      HIDDEN,
    )
}
