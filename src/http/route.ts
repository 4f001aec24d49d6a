import { MethodNotAllowed } from '../errors'
import type { PageInfo } from './browsable'

/** The handler of an endpoint's `.all()` route: every method it does not serve is a 405. */
export const refuseOtherMethods =
  (page: PageInfo) =>
  ({ request }: { request: Request }): never => {
    throw new MethodNotAllowed(request.method, page.allow)
  }
