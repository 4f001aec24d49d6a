// The reference's field lists, written out from docs/reference.md rather than imported from src,
// so the suites pin the reference and not whatever the code happens to say.

/** docs/reference.md §1.1: the list representation, in order. */
export const LIST_FIELDS = [
  'accepting_members',
  'active',
  'address',
  'application_required',
  'appointment_needed',
  'approved',
  'available_virtually',
  'code',
  'email',
  'enables_subscription',
  'favorite_count',
  'founded',
  'image_url',
  'is_favorite',
  'is_member',
  'is_subscribe',
  'is_school_unit',
  'membership_count',
  'recruiting_cycle',
  'name',
  'size',
  'subtitle',
  'tags',
]

/** docs/reference.md §1.2: what the detail representation adds. */
export const DETAIL_ONLY_FIELDS = [
  'description',
  'website',
  'facebook',
  'twitter',
  'instagram',
  'linkedin',
  'github',
  'youtube',
  'how_to_get_involved',
  'listserv',
  'email_public',
  'approved_by',
  'approved_comment',
  'approved_on',
  'created_at',
  'updated_at',
  // docs/reference.md §11
  'approved_version',
  // docs/reference.md §21
  'meetings',
  // docs/reference.md §23
  'last_confirmed_on',
]

/** docs/reference.md §3.1 without `code` (create only): what a PUT must carry. */
export const WRITABLE_FIELDS = [
  'name',
  'subtitle',
  'description',
  'email',
  'email_public',
  'address',
  'accepting_members',
  'application_required',
  'appointment_needed',
  'available_virtually',
  'enables_subscription',
  'founded',
  'image_url',
  'recruiting_cycle',
  'size',
  'is_school_unit',
  'website',
  'facebook',
  'twitter',
  'instagram',
  'linkedin',
  'github',
  'youtube',
  'how_to_get_involved',
  'listserv',
  'tags',
  'active',
  // docs/reference.md §21
  'meetings',
]

/** The writable fields a PUT must carry (docs/reference.md §3.4): all but docs/reference.md §21's meetings, which a client from before them leaves as they are. */
export const PUT_REQUIRED_FIELDS = WRITABLE_FIELDS.filter((field) => field !== 'meetings')

/** Case- and accent-insensitive, as a person compares names (docs/reference.md §6). */
export const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase()

/** docs/reference.md §6: the fields the list orders by. */
export const ORDERING_FIELDS = ['name', 'favorite_count', 'membership_count', 'founded', 'code', 'size'] as const

/** docs/reference.md §6 and §16: every query parameter of the list. */
export const LIST_PARAMS = [
  'ordering',
  'search',
  'tags',
  'accepting_members',
  'appointment_needed',
  'available_virtually',
  'enables_subscription',
  'is_school_unit',
  'approved',
  'active',
  'size',
  'application_required',
  'recruiting_cycle',
  'page',
  'page_size',
  'fields',
  'format',
  // docs/reference.md §16
  'code',
  'updated_since',
  // docs/reference.md §24
  'meets_on',
  'free',
]

/** docs/reference.md §3.1: what a client sends back and the service ignores. */
export const READ_ONLY_FIELDS = [
  'favorite_count',
  'membership_count',
  'is_favorite',
  'is_member',
  'is_subscribe',
  'approved_by',
  'approved_on',
  'created_at',
  'updated_at',
]
