/** @jsxImportSource preact */
import { Elysia } from 'elysia'
import { ApiError, BadRequest, Conflict, NotFound } from '../domain/errors'
import { DECISIONS, type Case, type Decision } from '../domain/review'
import { field } from './forms'
import { callerOf, seeOther, signInFirst, type SiteKit } from './kit'
import type { Viewer } from './layout'
import { ReviewPage, type ReviewNotice } from './review-page'

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
        const code = params.code!
        try {
          await review.decide(
            callerOf(viewer),
            code,
            decision,
            field(form, 'comment', 1000).trim(),
            form.get('seen') ?? '',
          )
        } catch (error) {
          // The reviewer sees the queue as it stands now, and why nothing was done.
          if (error instanceof Conflict) return page(viewer, { text: conflictText(error), code, refused: true }, 409)
          throw error
        }
        return seeOther(`/review?decided=${encodeURIComponent(code)}`)
      }),
      { detail: { hide: true } },
    )
}

const conflictText = (error: ApiError) => `Nothing was done: ${String(error.body.detail)}`
