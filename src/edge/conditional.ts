// The request headers that choose between answers of the same resource: If-None-Match, Accept-Encoding.
import { memoByValue } from './header-memo'

/** True when one of the request's If-None-Match tags names `etag` (weak comparison). */
export function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false
  if (ifNoneMatch === etag) return true
  const bare = etag.replace(/^W\//, '')
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim()
    return t === '*' || t.replace(/^W\//, '') === bare
  })
}

/** True when Accept-Encoding names gzip (or *) with a q above zero. */
export function acceptsGzip(acceptEncoding: string | null): boolean {
  return acceptEncoding ? namesGzip(acceptEncoding) : false
}

const namesGzip = memoByValue((acceptEncoding) =>
  acceptEncoding.split(',').some((part) => {
    const [coding = '', ...params] = part.trim().toLowerCase().split(';')
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    return (coding.trim() === 'gzip' || coding.trim() === '*') && (q === undefined || Number(q.slice(2)) > 0)
  }),
)
