/** @jsxImportSource preact */
import type { LastDecision } from '../model/club'
import { CsrfField, type Viewer } from './layout'
import { When } from './when'

const SAID: Record<LastDecision['action'], string> = {
  approved: 'approved',
  rejected: 'rejected',
  revoked: 'revoked the approval of',
}

/**
 * The activities office's latest decision on a club, for those who run it (docs/reference.md §22): what,
 * who, when and the comment; for a rejected club, the way back into the queue as it stands.
 */
export function DecisionNote({
  code,
  decision,
  rejected,
  viewer,
}: {
  code: string
  decision: LastDecision | null
  /** The club is rejected and the viewer runs it: they may send it for review again. */
  rejected: boolean
  viewer: Viewer
}) {
  if (!decision) return null
  return (
    <section class="edit-section last-decision" aria-labelledby="last-decision">
      <h2 id="last-decision">Latest decision</h2>
      <p>
        {decision.by ?? 'The activities office'} {SAID[decision.action]} this club on <When at={decision.at} />
        {decision.comment ? ', saying:' : ', with no comment.'}
      </p>
      {decision.comment && <blockquote class="prose">{decision.comment}</blockquote>}
      {decision.action === 'revoked' && <p>Only the activities office can bring it back to the public directory.</p>}
      {rejected && (
        <form method="post" action={`/clubs/${encodeURIComponent(code)}/resubmit`}>
          <CsrfField viewer={viewer} />
          <p id="resubmit-help" class="help">
            Sends the club to the activities office again as it stands. Saving a change to its name, subtitle,
            description or logo sends it too.
          </p>
          <button type="submit" aria-describedby="resubmit-help">
            Submit for review again
          </button>
        </form>
      )}
    </section>
  )
}
