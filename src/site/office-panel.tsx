/** @jsxImportSource preact */
import type { Case } from '../domain/review'
import { DecisionForm } from './decision-form'
import type { Viewer } from './layout'
import { When } from './when'

/** Where the club stands, in the office's words, with the last decision when there is one. */
function Standing({ review }: { review: Case }) {
  const { standing, lastDecision: last } = review
  const code = encodeURIComponent(review.club.code)
  if (standing === 'new club' || standing === 'change to an approved club')
    return (
      <p>
        {standing === 'new club' ? 'A new club awaiting review.' : 'A change awaiting review.'}{' '}
        <a href={`/review#review-${code}`}>Review it</a>
      </p>
    )
  const said = {
    public: 'Public: approved, with nothing awaiting review.',
    'change rejected': 'Public as last approved: its latest change was rejected.',
    hidden: `Not public: ${last?.event === 'revoked' ? 'its approval was revoked' : 'it was rejected'}.`,
  }[standing]
  return (
    <p>
      {said}
      {last && (
        <>
          {' '}
          Last decision: {last.event} by {last.by ?? 'nobody known'} on <When at={last.at} />
          {last.comment && <>, “{last.comment}”</>}.
        </>
      )}
    </p>
  )
}

/**
 * What an admin may decide on a club's page: revoke a public club with nothing awaiting review,
 * approve a rejected or revoked one again (docs/reference.md §11); a club awaiting review is decided on the
 * Review page, beside its approved values.
 */
export function OfficePanel({ review, viewer }: { review: Case; viewer: Viewer }) {
  const awaiting = review.standing === 'new club' || review.standing === 'change to an approved club'
  return (
    <section class="office" aria-labelledby="office">
      <h2 id="office">Activities office</h2>
      <Standing review={review} />
      {!awaiting && <DecisionForm viewer={viewer} review={review} />}
    </section>
  )
}
