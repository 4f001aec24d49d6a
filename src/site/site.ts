import { Elysia } from 'elysia'
import { siteAssets } from './assets'
import { campusSignInRoutes } from './campus-sign-in'
import { clubActionRoutes } from './club-actions'
import { siteKit, type SiteDeps } from './kit'
import { myClubsRoutes } from './my-clubs-routes'
import { officerPages } from './officer-pages'
import { peopleRoutes } from './people-routes'
import { posterRoutes } from './poster'
import { interestedRoutes } from './interest-form'
import { inviteRoutes } from './invite-routes'
import { publicPages } from './public-pages'
import { timetablePages } from './timetable'
import { registerRoutes } from './register'
import { reviewRoutes } from './review'
import { signInRoutes } from './sign-in'
import { officeRoutes } from './office'
import { roundRoutes } from './rounds'
import { webFormatRoutes } from './web-formats'

/**
 * The campus site (docs/reference.md §20): pages for people, rendered on the server from the same domain
 * services the API endpoints call. Another edge beside the API, not a second app.
 */
export function siteRoutes(deps: SiteDeps) {
  const kit = siteKit(deps)
  return new Elysia({ name: 'site' })
    .use(siteAssets())
    .use(registerRoutes(kit))
    .use(publicPages(kit))
    .use(timetablePages(kit))
    .use(posterRoutes(kit))
    .use(clubActionRoutes(kit))
    .use(signInRoutes(kit))
    .use(myClubsRoutes(kit))
    .use(officerPages(kit))
    .use(peopleRoutes(kit))
    .use(interestedRoutes(kit))
    .use(inviteRoutes(kit))
    .use(reviewRoutes(kit))
    .use(officeRoutes(kit))
    .use(roundRoutes(kit))
    .use(webFormatRoutes(kit))
    .use(deps.campus ? campusSignInRoutes(kit, deps.campus) : new Elysia())
}
