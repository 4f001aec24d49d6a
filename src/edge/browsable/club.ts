import type { BrowsableNotes } from '../exchange'
import { escapeHtml, link } from './html'

// What the browsable view shows beside a club's JSON: its state and the caller's own ties to it at
// a glance, and for reviewers what awaits review.

/** The club's state and the caller's own flags, as the answer says them. */
const FACTS: [field: string, when: unknown, text: string][] = [
  ['approved', false, 'Awaiting approval'],
  ['active', false, 'Inactive'],
  ['accepting_members', true, 'Accepting members'],
  ['is_member', true, 'You are a member'],
  ['is_favorite', true, 'One of your favorites'],
  ['is_subscribe', true, 'You are subscribed'],
]

export function clubFacts(club: Record<string, unknown>): string {
  const facts = FACTS.filter(([field, when]) => club[field] === when).map(
    ([field, , text]) => `<li class="${field}">${text}</li>`,
  )
  return facts.length ? `<ul class="facts" aria-label="At a glance">${facts.join('')}</ul>` : ''
}

const REVIEWED = ['name', 'subtitle', 'description', 'image_url'] as const

/** A reviewer's view of a change awaiting review: the approved and the pending values side by side. */
export function reviewTable(club: Record<string, unknown>): string {
  const approved = club.approved_version as Record<string, unknown> | null | undefined
  if (!approved) return ''
  const cell = (value: unknown) => escapeHtml(value === null ? '—' : String(value))
  const rows = REVIEWED.map((field) => {
    const changed = approved[field] !== club[field]
    return `<tr${changed ? ' class="changed"' : ''}><th>${field}</th><td>${cell(approved[field])}</td><td>${cell(club[field])}</td></tr>`
  })
  return `<table class="review"><caption>Awaiting review: approved and pending values (approved by ${cell(approved.approved_by)})</caption>
<thead><tr><th>field</th><th>approved (public)</th><th>pending</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
}

/** In the approval queue: which listed clubs are new and which are changes to approved ones. */
export function reviewQueue(notes: BrowsableNotes): string {
  if (!notes.review?.size) return ''
  const rows = [...notes.review].map(
    ([code, kind]) => `<li>${link(`/api/clubs/${code}/?format=api`, code)}: ${escapeHtml(kind)}</li>`,
  )
  return `<section class="queue" aria-labelledby="queue-title"><h2 id="queue-title">Awaiting review</h2><ul>${rows.join('')}</ul></section>`
}
