/** @jsxImportSource preact */
import { Elysia } from 'elysia'
import { ApiError, BadRequest, Conflict, NotFound } from '../domain/errors'
import { DECISIONS, type Case, type Decision } from '../domain/review'
import { reasonOf } from '../edge/error-answer'
import { field } from './forms'
import { callerOf, seeOther, signInFirst, type SiteKit } from './kit'
import type { Viewer } from './layout'
import { ReviewPage, type ReviewNotice } from './review-page'
import { RevokePage } from './review-revoke'

/** The sentence naming a club and the decision just made on it, from its history. */
function decided(review: Case): string | null {
  const name = `“${review.club.name}”`
  switch (review.lastDecision?.event) {
    case 'approved':
      return `Approved ${name}: the public sees it as it stands now.`
    case 'rejected':
      return review.standing === 'change rejected'
        ? `Rejected the change to ${name}: the public keeps seeing its approved version.`
        : `Rejected ${name}: it stays out of the public directory.`
    case 'revoked':
      return `Revoked ${name}: it has left the public directory.`
    default:
      return null
  }
}

const isDecision = (value: string | null): value is Decision => DECISIONS.includes(value as Decision)

/** The office's Review page, and its decisions (admins only; the club page offers Revoke too). */
export function reviewRoutes(kit: SiteKit) {
  const { review } = kit.deps

  const page = (viewer: Viewer, notice: ReviewNotice | null, status = 200) => ({
    title: 'Review',
    content: <ReviewPage queue={review.queue(callerOf(viewer))} viewer={viewer} notice={notice} />,
    status,
  })

  /** The notice after a decision on `code` (`?decided=`): what its history says was decided last. */
  function afterDecision(viewer: Viewer, code: string | null): ReviewNotice | null {
    if (!code) return null
    try {
      const text = decided(review.case(callerOf(viewer), code))
      return text === null ? null : { text, code, refused: false }
    } catch (error) {
      if (error instanceof NotFound) return null
      throw error
    }
  }

  return new Elysia({ name: 'site-review' })
    .get(
      '/review',
      kit.page(({ url, viewer }) => {
        if (!viewer) return signInFirst(url)
        return page(viewer, afterDecision(viewer, url.searchParams.get('decided')))
      }),
      { detail: { hide: true } },
    )
    .post(
      '/review/:code',
      kit.action(async ({ url, viewer, form, params }) => {
        if (!viewer) return signInFirst(new URL('/review', url))
        const decision = form.get('decision')
        if (!isDecision(decision)) throw new BadRequest('Choose Approve, Reject or Revoke.')
        // Revoke asks first, on a page of its own that names the club (docs/reference.md §22).
        if (decision === 'revoke') return askToRevoke(viewer, params.code!, form)
        return decide(viewer, params.code!, decision, form)
      }),
      { detail: { hide: true } },
    )
    .get(
      '/review/:code/revoke',
      kit.page(({ url, viewer, params }) => {
        if (!viewer) return signInFirst(url)
        const code = params.code!
        const caller = callerOf(viewer)
        const seen = url.searchParams.get('seen') ?? review.case(caller, code).seen
        try {
          const asked = review.open(caller, code, 'revoke', seen)
          const comment = (url.searchParams.get('comment') ?? '').slice(0, 1000)
          return {
            title: `Revoke ${asked.club.name}?`,
            content: <RevokePage review={asked} viewer={viewer} seen={seen} comment={comment} />,
          }
        } catch (error) {
          return refusal(viewer, code, error)
        }
      }),
      { detail: { hide: true } },
    )
    .post(
      '/review/:code/revoke',
      kit.action(async ({ url, viewer, form, params }) => {
        if (!viewer) return signInFirst(new URL(`/review/${params.code}/revoke`, url))
        return decide(viewer, params.code!, 'revoke', form)
      }),
      { detail: { hide: true } },
    )

  /** Makes `decision` on club `code` as the form says, then shows the queue with what was decided. */
  async function decide(viewer: Viewer, code: string, decision: Decision, form: URLSearchParams) {
    const comment = field(form, 'comment', 1000).trim()
    try {
      await review.decide(callerOf(viewer), code, decision, comment, form.get('seen') ?? '')
    } catch (error) {
      return refusal(viewer, code, error)
    }
    return seeOther(`/review?decided=${encodeURIComponent(code)}`)
  }

  /** Sends the reviewer to the confirmation of a revocation, once the club may be revoked as they saw it. */
  function askToRevoke(viewer: Viewer, code: string, form: URLSearchParams) {
    const seen = form.get('seen') ?? ''
    const comment = field(form, 'comment', 1000).trim()
    try {
      review.open(callerOf(viewer), code, 'revoke', seen)
    } catch (error) {
      return refusal(viewer, code, error)
    }
    const asked = new URLSearchParams({ seen })
    if (comment) asked.set('comment', comment)
    return seeOther(`/review/${encodeURIComponent(code)}/revoke?${asked}`)
  }

  /** For a decision the club's state refuses (409): the queue as it stands, and why nothing was done. */
  function refusal(viewer: Viewer, code: string, error: unknown) {
    if (error instanceof Conflict) return page(viewer, { text: conflictText(error), code, refused: true }, 409)
    throw error
  }
}

const conflictText = (error: ApiError) => `Nothing was done: ${reasonOf(error)}`
