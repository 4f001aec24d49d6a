import { Catalog } from './clubs/catalog'
import { Journal } from './journal'
import { LinkService } from './clubs/links'
import { MemberService } from './clubs/members'
import { Relations } from './clubs/relations'
import { ClubService } from './clubs/service'
import type { Snapshot } from './store/snapshot'
import type { Store } from './store/store'
import { UserDirectory } from './users/directory'
import { UserService } from './users/service'

export interface DomainOptions {
  readonly autoApprove: boolean
  readonly now: () => Date
}

/**
 * The in-memory state over a loaded snapshot and the services that change it, each saving
 * through `store`. The HTTP app and the operator commands share it.
 */
export function openDomain(store: Store, data: Snapshot, { autoApprove, now }: DomainOptions) {
  const catalog = new Catalog(data.clubs, data.tags)
  const relations = new Relations({
    memberships: data.memberships ?? [],
    favorites: data.favorites ?? [],
    subscriptions: data.subscriptions ?? [],
  })
  const directory = new UserDirectory(data.users ?? [])
  store.track(() => ({ version: 1, ...catalog.snapshot(), users: directory.all(), ...relations.snapshot() }))

  const { commit } = new Journal(() => store.save())
  const clubs = new ClubService(catalog, relations, { commit, autoApprove, now })
  const users = new UserService(directory, commit, now)
  const members = new MemberService(clubs, (username) => users.exists(username), commit)
  const favorites = new LinkService(
    clubs,
    { noun: 'favorite', links: relations.favorites, counter: 'favorite_count' },
    commit,
  )
  const subscriptions = new LinkService(
    clubs,
    {
      noun: 'subscription',
      links: relations.subscriptions,
      refuses: (club) => (club.enables_subscription ? null : 'This club does not take subscriptions.'),
    },
    commit,
  )
  return { catalog, relations, directory, clubs, users, members, favorites, subscriptions }
}
