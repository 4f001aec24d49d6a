import { t } from 'elysia'
import type { Caller } from '../../domain/caller'
import type { SavedClubs } from '../../domain/saved-clubs'
import type { ClubRecord } from '../../model/club'
import { SavedClubWrite } from '../../model/user'
import { schemaRef } from '../docs/components'
import { json } from '../docs/openapi'
import { endpoint, type Services } from '../endpoint'

const Saved = t.Object({ club: schemaRef('ClubListItem') })

const savedOf = ({ clubs }: Services, caller: Caller, club: ClubRecord) => ({ club: clubs.listItem(caller, club) })

/** `/api/favorites/` or `/api/subscriptions/` and their `{code}/`: a caller's saved clubs of one kind. */
function savedClubs<const Path extends string>(
  path: Path,
  kind: { plural: 'favorites' | 'subscriptions'; noun: string; name: string; description: string },
  serviceOf: (services: Services) => SavedClubs,
) {
  const list = endpoint({
    path,
    name: kind.name,
    description: kind.description,
    tag: kind.plural,
    template: () => ({ club: '' }),
    actions: {
      GET: {
        summary: `Your ${kind.plural}`,
        description: `The clubs you keep as ${kind.plural}, by club code.`,
        access: 'user',
        responses: { 200: json(t.Array(Saved), `Your ${kind.plural}, by club code.`) },
        errors: [401],
        handle: ({ services, caller }) => ({
          status: 200,
          body: serviceOf(services)
            .list(caller)
            .map((club) => savedOf(services, caller, club)),
        }),
      },
      POST: {
        summary: `Add a ${kind.noun}`,
        description: `Adds the club named by its code to your ${kind.plural}.`,
        access: 'user',
        body: { schema: SavedClubWrite, example: { club: 'penn-chess-society' } },
        responses: { 201: json(Saved, 'Added.') },
        errors: [400, 401, 405, 413, 415, 503],
        async handle({ services, caller, body }) {
          const club = await serviceOf(services).add(caller, body)
          return { status: 201, body: savedOf(services, caller, club) }
        },
      },
    },
  })
  const detail = endpoint({
    path: `${path}:code/`,
    name: kind.name.replace(/s$/, ''),
    description: `DELETE removes the club from your ${kind.plural}.`,
    tag: kind.plural,
    actions: {
      DELETE: {
        summary: `Remove a ${kind.noun}`,
        description: `Removes the club from your ${kind.plural}.`,
        access: 'user',
        responses: { 204: { description: 'Removed.' } },
        errors: [401, 404, 405, 503],
        async handle({ services, caller, params }) {
          await serviceOf(services).remove(caller, params.code)
          return { status: 204 }
        },
      },
    },
  })
  return [list, detail] as const
}

export const [favoriteList, favoriteDetail] = savedClubs(
  '/api/favorites/',
  {
    plural: 'favorites',
    noun: 'favorite',
    name: 'Favorites',
    description: 'Your favorite clubs. POST {"club": "<code>"} adds one.',
  },
  (services) => services.favorites,
)

export const [subscriptionList, subscriptionDetail] = savedClubs(
  '/api/subscriptions/',
  {
    plural: 'subscriptions',
    noun: 'subscription',
    name: 'Subscriptions',
    description: 'The clubs whose news you subscribe to. POST {"club": "<code>"} subscribes.',
  },
  (services) => services.subscriptions,
)
