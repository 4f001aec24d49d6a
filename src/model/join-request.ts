import { t } from 'elysia'
import { CODE_PATTERN } from './club'
import { USERNAME_PATTERN } from './user'

export const MAX_MESSAGE_LENGTH = 1000
/** How many requests one user may have pending at once (docs/reference.md §12), so no one floods officers. */
export const MAX_PENDING_REQUESTS = 50

const Message = t.String({ maxLength: MAX_MESSAGE_LENGTH, description: 'To the officers; at most 1,000 characters.' })
const CreatedAt = t.String({ format: 'date-time' })

/** A pending request to join a club, as the data file keeps it. */
export const JoinRequestRecord = t.Object({
  club: t.String(),
  username: t.String(),
  message: t.String({ maxLength: MAX_MESSAGE_LENGTH }),
  created_at: t.String(),
})
export type JoinRequestRecord = typeof JoinRequestRecord.static

/** What a user sends to ask to join (POST /api/clubs/{code}/requests/): `{}` or a message. */
export const JoinRequestWrite = t.Object({ message: t.Optional(Message) }, { additionalProperties: false })
export type JoinRequestWrite = typeof JoinRequestWrite.static

/** A request as a club's officers see it. */
export const JoinRequest = t.Object({
  username: t.String({ pattern: USERNAME_PATTERN, examples: ['bob'] }),
  message: Message,
  created_at: CreatedAt,
})
export type JoinRequest = typeof JoinRequest.static

/** A request as its requester sees it, among their own (GET /api/users/me/requests/). */
export const OwnJoinRequest = t.Object({
  club: t.String({ pattern: CODE_PATTERN, description: 'The club code.', examples: ['penn-chess-society'] }),
  message: Message,
  created_at: CreatedAt,
})
export type OwnJoinRequest = typeof OwnJoinRequest.static
