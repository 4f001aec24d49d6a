import { t } from 'elysia'
import { TagCreate, TagPatch } from '../../model/tag'
import { headerRefs, schemaRef } from '../docs/components'
import { json, WRITE_ERRORS } from '../docs/openapi'
import { endpoint } from '../endpoint'

const COUNTED = 'clubs counts the clubs carrying it that you may see.'

export const tagList = endpoint({
  path: '/api/tags/',
  name: 'Tag List',
  description:
    'Every tag, with the number of clubs you may see that carry it; each name links to its clubs. Admins create tags with POST.',
  tag: 'tags',
  template: () => ({ name: '' }),
  actions: {
    GET: {
      summary: 'List tags',
      description: `Every tag by id. ${COUNTED}`,
      access: 'anyone',
      responses: { 200: json(t.Array(schemaRef('Tag')), 'Every tag with its number of visible clubs.') },
      errors: [401, 404],
      handle: ({ services, caller }) => ({ status: 200, body: services.tags.list(caller) }),
    },
    POST: {
      summary: 'Create a tag',
      description: 'Admins. The name is trimmed, 1-100 characters, and unique ignoring case.',
      access: 'user',
      body: { schema: TagCreate, example: { name: 'Robotics' } },
      responses: {
        201: {
          ...json(schemaRef('Tag'), 'The new tag, carried by no club yet; Location names it.'),
          headers: headerRefs('Location'),
        },
      },
      errors: [400, 401, 403, 405, 413, 415, 503],
      async handle({ services, caller, body, ex }) {
        const tag = await services.tags.create(caller, body)
        return { status: 201, body: tag, headers: { Location: `${ex.url.origin}/api/tags/${tag.id}/` } }
      },
    },
  },
})

export const tagDetail = endpoint({
  path: '/api/tags/:id/',
  name: 'Tag Instance',
  description:
    'One tag. Admins rename it with PATCH (every club carrying it shows the new name) or delete it with DELETE (it disappears from every club).',
  tag: 'tags',
  template: (shown) => ({ name: (shown as { name?: unknown } | null)?.name ?? '' }),
  actions: {
    GET: {
      summary: 'Retrieve a tag',
      description: `The tag and its number of clubs. ${COUNTED}`,
      access: 'anyone',
      responses: { 200: json(schemaRef('Tag'), 'The tag.') },
      errors: [401, 404],
      handle: ({ services, caller, params }) => ({ status: 200, body: services.tags.retrieve(caller, params.id) }),
    },
    PATCH: {
      summary: 'Rename a tag',
      description: 'Admins. Every club carrying the tag shows the new name at once, and its updated_at moves.',
      access: 'user',
      body: { schema: TagPatch, example: { name: 'Robotics & AI' } },
      responses: { 200: json(schemaRef('Tag'), 'The renamed tag.') },
      errors: WRITE_ERRORS,
      async handle({ services, caller, params, body }) {
        return { status: 200, body: await services.tags.rename(caller, params.id, body) }
      },
    },
    DELETE: {
      summary: 'Delete a tag',
      description: 'Admins. The tag disappears from every club carrying it (whose updated_at moves).',
      access: 'user',
      responses: { 204: { description: 'Deleted.' } },
      errors: [401, 403, 404, 405, 503],
      async handle({ services, caller, params }) {
        await services.tags.destroy(caller, params.id)
        return { status: 204 }
      },
    },
  },
})
