import type { Representation } from '../domain/represent'
import type { APPLICATION_REQUIRED, Meeting, RECRUITING_CYCLES, SIZES } from '../model/club'

/** The fields of a club's representation (docs/reference.md §1) that the site's pages show. */
export interface ClubView {
  readonly code: string
  readonly name: string
  readonly subtitle: string
  readonly image_url: string | null
  readonly accepting_members: boolean
  readonly enables_subscription: boolean
  readonly approved: boolean
  readonly active: boolean
  readonly email: string
  readonly favorite_count: number
  readonly membership_count: number
  readonly is_favorite: boolean
  readonly is_subscribe: boolean
  readonly is_member: boolean
  readonly tags: readonly { readonly id: number; readonly name: string }[]
}

/** The detail representation's further fields that a club's page shows. */
export interface ClubDetailView extends ClubView {
  readonly description: string
  readonly how_to_get_involved: string
  readonly website: string | null
  readonly facebook: string | null
  readonly twitter: string | null
  readonly instagram: string | null
  readonly linkedin: string | null
  readonly github: string | null
  readonly youtube: string | null
  readonly meetings: readonly Meeting[]
  readonly address: string
  readonly size: keyof typeof SIZES
  readonly application_required: keyof typeof APPLICATION_REQUIRED
  readonly recruiting_cycle: keyof typeof RECRUITING_CYCLES
  /** A date, YYYY-MM-DD. */
  readonly founded: string | null
  readonly available_virtually: boolean
  readonly appointment_needed: boolean
  /** The campus day its owners or officers last confirmed it (docs/reference.md §23), YYYY-MM-DD, or null. */
  readonly last_confirmed_on: string | null
}

/** A club's links, in the order pages show them, with their names. */
export const CLUB_LINKS = [
  ['website', 'Website'],
  ['facebook', 'Facebook'],
  ['instagram', 'Instagram'],
  ['twitter', 'X (Twitter)'],
  ['linkedin', 'LinkedIn'],
  ['github', 'GitHub'],
  ['youtube', 'YouTube'],
] as const

/** A representation read as the site's view of it: the domain builds it with these fields, always. */
export const clubView = (representation: Representation) => representation as unknown as ClubView
export const clubDetailView = (representation: Representation) => representation as unknown as ClubDetailView
