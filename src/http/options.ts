import type { TSchema } from 'elysia'
import type { PageInfo } from './endpoints'
import { replyJson, type Exchange } from './respond'

/** OPTIONS: the endpoint's metadata, with the schema of each write it takes; also a CORS preflight answer. */
export function options(ex: Exchange, page: PageInfo, actions?: Record<string, TSchema>) {
  const metadata = {
    name: page.name,
    description: page.description,
    renders: ['application/json', 'text/html'],
    parses: ['application/json'],
    allowed_methods: page.allow.split(', '),
    ...(actions ? { actions } : {}),
  }
  return replyJson(ex, 200, metadata, {
    'Access-Control-Allow-Methods': `${page.allow}, HEAD, OPTIONS`,
    'Access-Control-Allow-Headers': 'Authorization, Content-Type, If-None-Match',
    'Access-Control-Max-Age': '86400',
  })
}
