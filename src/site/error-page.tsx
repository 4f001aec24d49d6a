/** @jsxImportSource preact */
import { ApiError } from '../domain/errors'

const TITLES: Record<number, string> = {
  400: 'That did not work',
  403: 'Not allowed',
  404: 'Page not found',
  409: 'Changed meanwhile',
  429: 'Too many tries',
  503: 'Try again soon',
}

/** What a person reads when a page cannot be shown: the status in words, and the reason. */
export function ErrorPage({ status, detail }: { status: number; detail: string }) {
  return (
    <>
      <h1>{TITLES[status] ?? 'Something went wrong'}</h1>
      <p>{detail}</p>
      <p>
        <a href="/">Back to the directory</a>
      </p>
    </>
  )
}

/** The status and the sentence a domain error carries, for an error page; null for a fault that is not one. */
export function errorOf(error: unknown): { status: number; detail: string } | null {
  if (!(error instanceof ApiError)) return null
  if (typeof error.body.detail === 'string') return { status: error.status, detail: error.body.detail }
  // A refusal by field (a 400): its messages, which say what to change.
  const messages = Object.values(error.body).flatMap((value) => (Array.isArray(value) ? value.map(String) : []))
  return { status: error.status, detail: messages.length ? messages.join(' ') : 'Some values are not valid.' }
}

export const errorTitle = (status: number) => TITLES[status] ?? 'Something went wrong'
