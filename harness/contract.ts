// The contract's field lists, written out from CONTRACT.md rather than imported from src,
// so the suites pin the contract and not whatever the code happens to say.

/** CONTRACT §1.1: the list representation, in order. */
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

/** CONTRACT §1.2: what the detail representation adds. */
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
  // CONTRACT §11
  'approved_version',
  // CONTRACT §21
  'meetings',
  // CONTRACT §23
  'last_confirmed_on',
]

/** CONTRACT §3.1 without `code` (create only): what a PUT must carry. */
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
  // CONTRACT §21
  'meetings',
]

/** The writable fields a PUT must carry (CONTRACT §3.4): all but §21's meetings, which a client from before them leaves as they are. */
export const PUT_REQUIRED_FIELDS = WRITABLE_FIELDS.filter((field) => field !== 'meetings')

/** Case- and accent-insensitive, as a person compares names (CONTRACT §6). */
export const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase()

/** CONTRACT §6: the fields the list orders by. */
export const ORDERING_FIELDS = ['name', 'favorite_count', 'membership_count', 'founded', 'code', 'size'] as const

/** CONTRACT §6 and §16: every query parameter of the list. */
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
  // CONTRACT §16
  'code',
  'updated_since',
  // CONTRACT §24
  'meets_on',
  'free',
]

/** CONTRACT §3.1: what a client sends back and the service ignores. */
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
