/** @jsxImportSource preact */
import type { Case } from '../domain/review'
import { CsrfField, type Viewer } from './layout'

/**
 * The confirmation Revoke asks for before it acts (docs/reference.md §22): it names the club, says what
 * revoking does, and takes the comment again; only its button's POST revokes. Works without JavaScript.
 */
export function RevokePage({
  review,
  viewer,
  seen,
  comment,
}: {
  review: Case
  viewer: Viewer
  /** The values the reviewer decided on: a club changed since is refused (409), not revoked. */
  seen: string
  comment: string
}) {
  const { club } = review
  const code = encodeURIComponent(club.code)
  return (
    <>
      <h1>Revoke {club.name}?</h1>
      <p>
        Revoking takes “{club.name}” out of the public directory at once: its page, the list, search, tag counts,
        favorites and subscriptions. Its owners and officers still see it and read your comment. Only an approval brings
        it back.
      </p>
      <form method="post" action={`/review/${code}/revoke`} class="decision">
        <CsrfField viewer={viewer} />
        <input type="hidden" name="seen" value={seen} />
        <p class="field">
          <label for="comment">Comment</label>
          <textarea id="comment" name="comment" rows={2} maxLength={1000} aria-describedby="comment-help">
            {comment}
          </textarea>
          <span id="comment-help" class="help">
            Kept with the decision in the club’s history; its officers read it.
          </span>
        </p>
        <p class="actions">
          <button type="submit" class="danger">
            Revoke {club.name}
          </button>{' '}
          <a href={`/clubs/${code}`}>Cancel: keep it public</a>
        </p>
      </form>
    </>
  )
}
