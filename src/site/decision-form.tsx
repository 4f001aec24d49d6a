/** @jsxImportSource preact */
import type { Case, Decision } from '../domain/review'
import { CsrfField, type Viewer } from './layout'

const BUTTONS: Record<Decision, { label: string; class?: string }> = {
  approve: { label: 'Approve' },
  reject: { label: 'Reject', class: 'secondary' },
  revoke: { label: 'Revoke', class: 'danger' },
}

/** A comment and one button per decision open on the club; it carries the values the reviewer saw. */
export function DecisionForm({ viewer, review }: { viewer: Viewer; review: Case }) {
  const code = review.club.code
  const id = `comment-${code}`
  return (
    <form method="post" action={`/review/${encodeURIComponent(code)}`} class="decision">
      <CsrfField viewer={viewer} />
      <input type="hidden" name="seen" value={review.seen} />
      <p class="field">
        <label for={id}>Comment</label>
        <textarea id={id} name="comment" rows={2} maxLength={1000} aria-describedby={`${id}-help`} />
        <span id={`${id}-help`} class="help">
          Kept with the decision in the club’s history; its officers read it.
        </span>
      </p>
      <p class="actions">
        {review.decisions.map((decision) => (
          <button type="submit" name="decision" value={decision} class={BUTTONS[decision].class}>
            {BUTTONS[decision].label}
          </button>
        ))}
      </p>
    </form>
  )
}
