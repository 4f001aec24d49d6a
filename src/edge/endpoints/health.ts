import { Elysia, t } from 'elysia'
import { Type } from '@sinclair/typebox'
import { json } from '../docs/openapi'
import type { Services } from '../endpoint'
import { NOSNIFF } from '../respond'

/** `GET /health`: for load balancers and the container's health check; no negotiation, no caches. */
export const health = ({ health }: Pick<Services, 'health'>) =>
  new Elysia({ name: 'health' }).get(
    '/health',
    () => Response.json({ status: 'ok', ...health() }, { headers: NOSNIFF }),
    {
      detail: {
        tags: ['operations'],
        summary: 'Health check',
        description: 'Answers 200 once the data is loaded, with the number of live clubs and the data version.',
        security: [],
        responses: {
          200: json(
            t.Object({ status: t.Literal('ok'), clubs: Type.Integer(), version: Type.Integer() }),
            'Loaded and serving.',
          ),
        },
      },
    },
  )
