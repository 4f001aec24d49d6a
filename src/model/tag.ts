import { t } from 'elysia'
// Elysia's t.Integer also accepts numeric strings; answers hold integers only.
import { Type } from '@sinclair/typebox'
import { Tag } from './club'

export const MAX_TAG_NAME_LENGTH = 100

const Name = t.String({
  minLength: 1,
  maxLength: MAX_TAG_NAME_LENGTH,
  description: 'Trimmed; 1-100 characters; unique ignoring case.',
})

/** What an admin sends to create a tag (POST /api/tags/). */
export const TagCreate = t.Object({ name: Name }, { additionalProperties: false })
export type TagCreate = typeof TagCreate.static

/** What an admin sends to rename a tag (PATCH /api/tags/{id}/); `{}` changes nothing. */
export const TagPatch = t.Object({ name: t.Optional(Name) }, { additionalProperties: false })
export type TagPatch = typeof TagPatch.static

/** A tag as answered: with the number of clubs carrying it that the caller may see (docs/reference.md §14). */
export const TagWithCount = t.Object(
  { ...Tag.properties, clubs: Type.Integer({ minimum: 0, description: 'Clubs you may see that carry it.' }) },
  { title: 'Tag' },
)
export type TagWithCount = typeof TagWithCount.static
