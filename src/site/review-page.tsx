/** @jsxImportSource preact */
import { ownLogoPath } from '../domain/logos'
import type { Case, ReviewedField } from '../domain/review'
import { DecisionForm } from './decision-form'
import type { Viewer } from './layout'
import { When } from './when'

const FIELDS: readonly [ReviewedField, string][] = [
  ['name', 'Name'],
  ['subtitle', 'Subtitle'],
  ['description', 'Description'],
  ['image_url', 'Image URL'],
]

/** What the page says above the queue: the decision just made, or why one was refused. */
export interface ReviewNotice {
  readonly text: string
  readonly code: string | null
  readonly refused: boolean
}

/** A reviewed value as text; a logo of this service's as its picture too, so the two can be compared by eye. */
function Value({ value, version }: { value: string | null; version: string }) {
  if (value === null || value === '') return <span class="no-value">(empty)</span>
  const logo = ownLogoPath(value)
  if (!logo) return <>{value}</>
  return (
    <>
      <img class="logo" src={`${logo}?size=256`} alt={`The ${version} logo`} width={96} height={96} />
      <span class="url">{value}</span>
    </>
  )
}

/** The reviewed fields side by side: the approved value (what the public sees) and the pending one. */
function Comparison({ review }: { review: Case }) {
  const { club, approved, changed } = review
  return (
    <div class="table-wrap">
      <table class="comparison">
        <caption>{approved ? 'Approved and pending values' : 'Pending values (nothing approved yet)'}</caption>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Approved</th>
            <th scope="col">Pending</th>
          </tr>
        </thead>
        <tbody>
          {FIELDS.map(([field, label]) => {
            const isChanged = changed.includes(field)
            const cellClass = field === 'image_url' ? 'url' : 'prose'
            return (
              <tr class={isChanged ? 'changed' : undefined}>
                <th scope="row">
                  {label}
                  {isChanged && <span class="change-mark"> (changed)</span>}
                </th>
                <td class={cellClass}>
                  {approved ? (
                    <Value value={approved[field]} version="approved" />
                  ) : (
                    <span class="no-value">(none)</span>
                  )}
                </td>
                <td class={cellClass}>
                  <Value value={club[field]} version="pending" />
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}

/** One club awaiting review: what it is, whose, since when, the values, and the decision. */
function Awaiting({ review, viewer }: { review: Case; viewer: Viewer }) {
  const { club, standing, owners } = review
  const heading = `review-${club.code}`
  return (
    <section class="awaiting" id={heading} aria-labelledby={`${heading}-name`}>
      <h2 id={`${heading}-name`}>{club.name}</h2>
      <p class="facts">
        {standing === 'new club'
          ? 'A new club: it is not public yet, and has no approved values.'
          : 'A change to an approved club: the public sees the approved values until you decide.'}
      </p>
      <dl class="case">
        <dt>Submitted</dt>
        <dd>
          <When at={review.waitingSince!} />
        </dd>
        <dt>{owners.length === 1 ? 'Owner' : 'Owners'}</dt>
        <dd>{owners.length ? owners.join(', ') : 'none'}</dd>
        <dt>Club page</dt>
        <dd>
          <a href={`/clubs/${encodeURIComponent(club.code)}`}>/clubs/{club.code}</a>
        </dd>
      </dl>
      <Comparison review={review} />
      <DecisionForm viewer={viewer} review={review} />
    </section>
  )
}

/** The office's Review page (docs/reference.md §20): every club awaiting review, the longest waiting first. */
export function ReviewPage({
  queue,
  viewer,
  notice,
}: {
  queue: readonly Case[]
  viewer: Viewer
  notice: ReviewNotice | null
}) {
  return (
    <>
      <h1>Review</h1>
      {notice && (
        <p class={notice.refused ? 'notice refused' : 'notice'} role={notice.refused ? 'alert' : 'status'}>
          {notice.text}
          {notice.code && (
            <>
              {' '}
              <a href={`/clubs/${encodeURIComponent(notice.code)}`}>Open its page</a>
            </>
          )}
        </p>
      )}
      <p>
        {queue.length === 0
          ? 'Nothing awaits review.'
          : `${queue.length === 1 ? 'One club awaits' : `${queue.length} clubs await`} review, the longest waiting first.`}{' '}
        To revoke an approved club, open its page.
      </p>
      {queue.map((review) => (
        <Awaiting review={review} viewer={viewer} />
      ))}
    </>
  )
}
