import type { Catalog } from './catalog'
import {
  DETAIL_FIELDS,
  LIST_FIELDS,
  type ApprovedVersion,
  type ClubDetail,
  type ClubListItem,
  type ClubRecord,
  type Tag,
} from '../model/club'

/** What one caller sees of one club beyond the record: their own flags, and the real e-mail. */
export interface Viewpoint {
  readonly isFavorite: boolean
  readonly isMember: boolean
  readonly isSubscribed: boolean
  /** Owners, officers and admins see the address even when it is not public. */
  readonly seesEmail: boolean
}

export const ANONYMOUS_VIEW: Viewpoint = { isFavorite: false, isMember: false, isSubscribed: false, seesEmail: false }

export type Representation = Record<string, unknown>

/** What the list shows in place of an address that is not public (docs/reference.md §1.1). */
export const HIDDEN_EMAIL = 'Hidden'

function tagsOf(record: ClubRecord, catalog: Catalog): Tag[] {
  const tags: Tag[] = []
  for (const id of record.tags) {
    const tag = catalog.tag(id)
    if (tag) tags.push({ id: tag.id, name: tag.name })
  }
  return tags
}

/** The list representation: the spec's 23 fields in the spec's order (docs/reference.md §1.1). */
export function listItem(record: ClubRecord, view: Viewpoint, catalog: Catalog): ClubListItem {
  return {
    accepting_members: record.accepting_members,
    active: record.active,
    address: record.address,
    application_required: record.application_required,
    appointment_needed: record.appointment_needed,
    approved: record.approved,
    available_virtually: record.available_virtually,
    code: record.code,
    email: record.email_public || view.seesEmail ? record.email : HIDDEN_EMAIL,
    enables_subscription: record.enables_subscription,
    favorite_count: record.favorite_count,
    founded: record.founded,
    image_url: record.image_url,
    is_favorite: view.isFavorite,
    is_member: view.isMember,
    is_subscribe: view.isSubscribed,
    is_school_unit: record.is_school_unit,
    membership_count: record.membership_count,
    recruiting_cycle: record.recruiting_cycle,
    name: record.name,
    size: record.size,
    subtitle: record.subtitle,
    tags: tagsOf(record, catalog),
  }
}

/** A viewpoint with nothing of its own: the club as the public sees it. */
export const isPlain = (view: Viewpoint) => !view.isFavorite && !view.isMember && !view.isSubscribed && !view.seesEmail

/** The detail representation: the list fields, then the fields of docs/reference.md §1.2. */
export function detail(record: ClubRecord, view: Viewpoint, catalog: Catalog): ClubDetail {
  return {
    ...listItem(record, view, catalog),
    description: record.description,
    website: record.website,
    facebook: record.facebook,
    twitter: record.twitter,
    instagram: record.instagram,
    linkedin: record.linkedin,
    github: record.github,
    youtube: record.youtube,
    how_to_get_involved: record.how_to_get_involved,
    listserv: record.listserv,
    email_public: record.email_public,
    approved_by: record.approved_by,
    approved_comment: record.approved_comment,
    approved_on: record.approved_on,
    created_at: record.created_at,
    updated_at: record.updated_at,
    // Only a current record that differs from its approved version holds one; the public's view never does.
    approved_version: record.approved_version && withoutPublicStamp(record.approved_version),
    meetings: record.meetings,
    last_confirmed_on: record.last_confirmed_on,
  }
}

/** Keeps only `fields` (in representation order) when the caller asked for a selection. */
export function select(item: Representation, fields: readonly string[] | null): Representation {
  if (!fields) return item
  const out: Representation = {}
  for (const field of [...LIST_FIELDS, ...DETAIL_FIELDS])
    if (fields.includes(field) && field in item) out[field] = item[field]
  return out
}

/** The approved version as shown: its values and decision (when the public view last changed is the public's updated_at). */
function withoutPublicStamp({ updated_at: _, ...version }: ApprovedVersion): Omit<ApprovedVersion, 'updated_at'> {
  return version
}
