import { t } from 'elysia'
import { Type } from '@sinclair/typebox'
import { Tag } from '../../model/club'
import { FORMAT, json } from '../docs/openapi'
import { endpoint } from '../endpoint'

export const tagList = endpoint({
  path: '/api/tags/',
  name: 'Tag List',
  description: 'Every tag, with the number of clubs that carry it.',
  tag: 'tags',
  actions: {
    GET: {
      summary: 'List tags',
      description: 'Every tag by id, with the number of public clubs carrying it.',
      access: 'anyone',
      query: [FORMAT],
      responses: {
        200: json(
          t.Array(t.Object({ ...Tag.properties, clubs: Type.Integer() })),
          'Every tag with its number of visible clubs.',
        ),
      },
      errors: [401, 404],
      handle: ({ services }) => ({ status: 200, body: services.tags.list() }),
    },
  },
})
