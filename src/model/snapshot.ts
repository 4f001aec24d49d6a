import { t } from 'elysia'
import { ClubRecord, Tag } from './club'
import { ClubLink, Membership, UserRecord } from './user'

/** Lists a data file from before users existed may lack; they read as empty. */
const Later = <T extends ReturnType<typeof t.Array>>(list: T) => t.Optional(list)

/** The whole state as the data file (and the seed) holds it. */
export const Snapshot = t.Object({
  version: t.Literal(1),
  tags: t.Array(Tag),
  clubs: t.Array(ClubRecord),
  users: Later(t.Array(UserRecord)),
  memberships: Later(t.Array(Membership)),
  favorites: Later(t.Array(ClubLink)),
  subscriptions: Later(t.Array(ClubLink)),
})
export type Snapshot = typeof Snapshot.static
