import { t } from 'elysia'
// Elysia's t.Integer also accepts numeric strings; the data model takes JSON integers only.
import { Type, type TObject } from '@sinclair/typebox'
// Sets what the formats named below (uri, date, email) mean, for every compiled check.
import './formats'

/** Coded values (docs/reference.md §1.4): the integer stored, and the label people read. */
export const SIZES = { 1: '1-20', 2: '21-50', 3: '51-100', 4: '101+' } as const
export const APPLICATION_REQUIRED = {
  1: 'Open membership',
  2: 'Tryout required',
  3: 'Audition required',
  4: 'Application required',
  5: 'Application and interview required',
} as const
export const RECRUITING_CYCLES = { 1: 'Unknown', 2: 'Fall', 3: 'Spring', 4: 'Both', 5: 'Open' } as const

const labelsOf = (codes: Record<number, string>) =>
  Object.entries(codes)
    .map(([value, label]) => `${value} = ${label}`)
    .join('; ')

/** A name for each code, for the constants a generated client makes of them (`x-enum-varnames`). */
const CODE_NAMES = new Map<Record<number, string>, readonly string[]>([
  [SIZES, ['UpTo20', 'From21To50', 'From51To100', 'Over100']],
  [APPLICATION_REQUIRED, ['OpenMembership', 'Tryout', 'Audition', 'Application', 'ApplicationAndInterview']],
  [RECRUITING_CYCLES, ['Unknown', 'Fall', 'Spring', 'Both', 'Open']],
])

// No schema here carries a `default`: a framework could fill defaults into a partial update.
// CLUB_DEFAULTS below is the one source of what a new club holds.
const coded = (codes: Record<number, string>, title: string) =>
  Type.Integer({
    title,
    minimum: 1,
    maximum: Object.keys(codes).length,
    enum: Object.keys(codes).map(Number),
    'x-enum-varnames': CODE_NAMES.get(codes),
    'x-enum-descriptions': Object.values(codes),
    description: labelsOf(codes),
  })

const Url = t.Union([t.String({ format: 'uri', maxLength: 2048 }), t.Null()], {
  description: 'An absolute http or https URL, or null.',
})
const Text = (maxLength: number, description?: string) => t.String({ maxLength, description })

export const CODE_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$'

/** The days a club may meet on, Monday first (docs/reference.md §21). */
export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const
export type Weekday = (typeof WEEKDAYS)[number]
/** A time of day, 24-hour: 00:00 to 23:59. */
export const TIME_PATTERN = '^([01][0-9]|2[0-3]):[0-5][0-9]$'
export const MAX_MEETINGS = 10

const meetingFields = {
  day: t.Union(
    WEEKDAYS.map((day) => t.Literal(day)),
    { description: 'monday to sunday.' },
  ),
  start: t.String({
    pattern: TIME_PATTERN,
    description: 'HH:MM, 24-hour, in the campus time zone.',
    examples: ['18:30'],
  }),
  end: t.String({ pattern: TIME_PATTERN, description: 'HH:MM, 24-hour; after start.', examples: ['20:00'] }),
}
/** A weekly meeting as a client writes it: location and note may be left out ("" then). */
export const MeetingWrite = t.Object(
  {
    ...meetingFields,
    location: t.Optional(t.String({ maxLength: 200, description: 'Where; "" when absent.' })),
    note: t.Optional(t.String({ maxLength: 500, description: 'Anything else; "" when absent.' })),
  },
  { additionalProperties: false },
)
/** A weekly meeting as a club keeps and shows it. */
export const Meeting = t.Object(
  { ...meetingFields, location: t.String({ maxLength: 200 }), note: t.String({ maxLength: 500 }) },
  { additionalProperties: false },
)
export type Meeting = typeof Meeting.static

export const Tag = t.Object({ id: Type.Integer({ minimum: 1 }), name: t.String({ minLength: 1, maxLength: 100 }) })
export type Tag = typeof Tag.static

/**
 * A tag as a client names it on write: by id, by name, or by a bare name. The club service resolves each one and
 * names a bad one itself, so write checks do not report errors inside the items.
 */
const TagRef = t.Union([
  t.Object({ id: Type.Integer() }, { additionalProperties: true }),
  t.Object({ name: t.String() }, { additionalProperties: true }),
  t.String({ description: 'A tag by its name, as {"name": ...} names it.', examples: ['Games'] }),
])

/**
 * The fields a client may write (docs/reference.md §3.1), as they are checked (no coercion: a JSON "3" is
 * not a size). `code` is create-only; `approved` and `approved_comment` are admin-only and kept apart.
 */
export const ClubWrite = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 255, description: 'Display name; unique ignoring case.' }),
    code: t.String({
      pattern: CODE_PATTERN,
      maxLength: 100,
      description: 'Create only. Derived from the name when absent.',
      examples: ['go-club'],
    }),
    subtitle: Text(255, 'Short description.'),
    description: Text(10_000),
    email: t.Union([t.String({ format: 'email', maxLength: 254 }), t.Literal('')], {
      description: 'Empty, or a valid e-mail address.',
    }),
    email_public: t.Boolean({ description: 'When false, lists show "Hidden".' }),
    address: Text(255),
    accepting_members: t.Boolean(),
    application_required: coded(APPLICATION_REQUIRED, 'ApplicationRequired'),
    appointment_needed: t.Boolean(),
    available_virtually: t.Boolean(),
    enables_subscription: t.Boolean(),
    founded: t.Union([t.String({ format: 'date' }), t.Null()], {
      description: 'YYYY-MM-DD, not in the future, or null.',
    }),
    image_url: Url,
    recruiting_cycle: coded(RECRUITING_CYCLES, 'RecruitingCycle'),
    size: coded(SIZES, 'Size'),
    is_school_unit: t.Boolean(),
    website: Url,
    facebook: Url,
    twitter: Url,
    instagram: Url,
    linkedin: Url,
    github: Url,
    youtube: Url,
    how_to_get_involved: Text(10_000),
    listserv: Text(255),
    tags: t.Array(TagRef, {
      maxItems: 20,
      description: 'Tags named by id ({"id": 7}) or name ({"name": "Games"}, or "Games" alone).',
    }),
    active: t.Boolean(),
    meetings: t.Array(MeetingWrite, {
      maxItems: MAX_MEETINGS,
      description: `When the club meets, every week: at most ${MAX_MEETINGS}.`,
    }),
  },
  { additionalProperties: false },
)
export type ClubWrite = typeof ClubWrite.static

/** What a new club holds in each writable field it was not sent (docs/reference.md §3.3). */
export const CLUB_DEFAULTS = {
  subtitle: '',
  description: '',
  email: '',
  email_public: true,
  address: '',
  accepting_members: false,
  application_required: 4,
  appointment_needed: false,
  available_virtually: false,
  enables_subscription: true,
  founded: null,
  image_url: null,
  recruiting_cycle: 1,
  size: 1,
  is_school_unit: false,
  website: null,
  facebook: null,
  twitter: null,
  instagram: null,
  linkedin: null,
  github: null,
  youtube: null,
  how_to_get_involved: '',
  listserv: '',
  tags: [],
  active: true,
  meetings: [],
} as const satisfies Omit<ClubWrite, 'name' | 'code'>

export const ApprovalWrite = t.Object({
  approved: t.Boolean({ description: 'Admin only: approve (true) or reject (false).' }),
  approved_comment: t.String({ maxLength: 1000, description: 'Admin only.' }),
})

/** What a create takes: a name, and any other writable field (admins may also decide approval). */
export const ClubCreate = t.Composite(
  [t.Pick(ClubWrite, ['name']), t.Partial(t.Omit(ClubWrite, ['name'])), t.Partial(ApprovalWrite)],
  {
    additionalProperties: false,
  },
)
/**
 * What a PUT takes: every writable field of the spec, the code sent back unchanged or not at all,
 * and the meetings (docs/reference.md §21) or not: a client from before them keeps them as they are.
 */
export const ClubReplace = t.Composite(
  [
    t.Omit(ClubWrite, ['code', 'meetings']),
    t.Partial(t.Pick(ClubWrite, ['code', 'meetings'])),
    t.Partial(ApprovalWrite),
  ],
  {
    additionalProperties: false,
  },
)
/** What a PATCH takes: any writable field. */
export const ClubPatch = t.Partial(t.Composite([ClubWrite, ApprovalWrite]), { additionalProperties: false })

/** Changing any of these sends an approved club back to the approval queue, unless an admin does it. */
export const REVIEWED_FIELDS = ['name', 'subtitle', 'description', 'image_url'] as const

/** Read-only fields: sent back by clients in the GET-edit-PUT pattern and ignored. */
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
  'approved_version',
  'last_decision',
  'last_confirmed_on',
] as const

/** The read-only fields as a write body may carry them back: any value, ignored. */
const READ_ONLY_ECHOES = Object.fromEntries(
  READ_ONLY_FIELDS.map((field) => [
    field,
    t.Optional(t.Unknown({ readOnly: true, description: 'Read-only: accepted when sent back, and ignored.' })),
  ]),
)

/**
 * A club write body as clients may send it, and as the API docs show it: `body`'s fields and,
 * from the common GET-edit-PUT, the read-only fields, which the check drops (docs/reference.md §3.1).
 * No other field is taken: said with `propertyNames`, not `additionalProperties: false`, because
 * a validator that drops `readOnly` properties from a request's schema (Prism does, as OpenAPI
 * says a client should not send them) would then refuse the read-only fields the server accepts.
 */
export const acceptingReadOnly = (body: TObject) => {
  const properties = { ...body.properties, ...READ_ONLY_ECHOES }
  return t.Object(properties, { propertyNames: { enum: Object.keys(properties) } })
}

/**
 * A club's reviewed fields as an admin last approved them, with that decision (docs/reference.md §11):
 * what the public sees while a change to them awaits review.
 */
export const ApprovedVersion = t.Object({
  name: t.String(),
  subtitle: t.String(),
  description: t.String(),
  image_url: t.Union([t.String(), t.Null()]),
  approved_by: t.Union([t.String(), t.Null()]),
  approved_on: t.Union([t.String(), t.Null()]),
  approved_comment: t.String(),
  /** When what the public sees of the club last changed; a file from before the change log has none. */
  updated_at: t.Optional(t.String()),
})
export type ApprovedVersion = typeof ApprovedVersion.static

/** The decisions of the activities office on a club, as its history names them (docs/reference.md §11). */
export const DECISION_EVENTS = ['approved', 'rejected', 'revoked'] as const

/** The latest decision on a club, as its owners, officers and admins see it on the club (docs/reference.md §22). */
export const LastDecision = t.Object({
  action: t.Union(DECISION_EVENTS.map((event) => t.Literal(event))),
  comment: t.String({ description: 'The admin\'s comment; "" when none.' }),
  by: t.Union([t.String(), t.Null()], { description: 'The admin who decided, or null.' }),
  at: t.String({ format: 'date-time' }),
})
export type LastDecision = typeof LastDecision.static

/** A club as the data file keeps it. */
export const ClubRecord = t.Object({
  ...t.Omit(ClubWrite, ['tags', 'meetings']).properties,
  tags: t.Array(Type.Integer()),
  meetings: t.Array(Meeting),
  approved: t.Boolean(),
  approved_by: t.Union([t.String(), t.Null()]),
  approved_comment: t.String(),
  approved_on: t.Union([t.String(), t.Null()]),
  favorite_count: Type.Integer({ minimum: 0 }),
  membership_count: Type.Integer({ minimum: 0 }),
  created_at: t.String(),
  updated_at: t.String(),
  archived_at: t.Union([t.String(), t.Null()]),
  /**
   * Kept only while the record differs from what was last approved (a change awaits review, or
   * was rejected): what the public sees meanwhile. null otherwise, and for a club never approved.
   */
  approved_version: t.Union([ApprovedVersion, t.Null()]),
  /** The campus day its owners or officers last confirmed it in a re-registration round (docs/reference.md §23), or null. */
  last_confirmed_on: t.Union([t.String({ format: 'date' }), t.Null()]),
})
export type ClubRecord = typeof ClubRecord.static

/** The list representation: exactly the 23 fields of the spec, in its order (docs/reference.md §1.1). */
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
] as const

/** Fields the detail representation adds to the list ones (docs/reference.md §1.2). */
export const DETAIL_FIELDS = [
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
  'approved_version',
  'meetings',
  'last_confirmed_on',
] as const

const Nullable = <S extends ReturnType<typeof t.String>>(s: S) => t.Union([s, t.Null()])

export const ClubListItem = t.Object({
  accepting_members: t.Boolean(),
  active: t.Boolean(),
  address: t.String(),
  application_required: coded(APPLICATION_REQUIRED, 'ApplicationRequired'),
  appointment_needed: t.Boolean(),
  approved: t.Boolean(),
  available_virtually: t.Boolean(),
  code: t.String({ pattern: CODE_PATTERN, examples: ['penn-chess-society'] }),
  email: t.String({ description: 'The address, or "Hidden" when it is not public.' }),
  enables_subscription: t.Boolean(),
  favorite_count: Type.Integer({ minimum: 0 }),
  founded: Nullable(t.String({ format: 'date' })),
  image_url: Nullable(t.String()),
  is_favorite: t.Boolean(),
  is_member: t.Boolean(),
  is_subscribe: t.Boolean(),
  is_school_unit: t.Boolean(),
  membership_count: Type.Integer({ minimum: 0 }),
  recruiting_cycle: coded(RECRUITING_CYCLES, 'RecruitingCycle'),
  name: t.String(),
  size: coded(SIZES, 'Size'),
  subtitle: t.String(),
  tags: t.Array(Tag),
})
export type ClubListItem = typeof ClubListItem.static

export const ClubDetail = t.Object({
  ...ClubListItem.properties,
  description: t.String(),
  website: Nullable(t.String()),
  facebook: Nullable(t.String()),
  twitter: Nullable(t.String()),
  instagram: Nullable(t.String()),
  linkedin: Nullable(t.String()),
  github: Nullable(t.String()),
  youtube: Nullable(t.String()),
  how_to_get_involved: t.String(),
  listserv: t.String(),
  email_public: t.Boolean(),
  approved_by: Nullable(t.String()),
  approved_comment: t.String(),
  approved_on: Nullable(t.String({ format: 'date-time' })),
  created_at: t.String({ format: 'date-time' }),
  updated_at: t.String({ format: 'date-time' }),
  approved_version: t.Union(
    [
      t.Object({
        name: t.String(),
        subtitle: t.String(),
        description: t.String(),
        image_url: Nullable(t.String()),
        approved_by: Nullable(t.String()),
        approved_on: Nullable(t.String({ format: 'date-time' })),
        approved_comment: t.String(),
      }),
      t.Null(),
    ],
    {
      description:
        'To owners, officers and admins, while a change to the reviewed fields awaits review: the values the public sees, as last approved. Otherwise null.',
    },
  ),
  meetings: t.Array(Meeting, { description: 'When the club meets, every week, in the campus time zone.' }),
  last_confirmed_on: Nullable(
    t.String({
      format: 'date',
      description:
        'The day (YYYY-MM-DD, in the campus time zone) its owners or officers last confirmed it in a re-registration round; null when they never did.',
    }),
  ),
  last_decision: t.Optional(
    t.Union([LastDecision, t.Null()], {
      description:
        "Only to the club's owners, officers and admins (absent for everyone else): the activities office's latest decision on it, approved, rejected or revoked, with the admin's comment, who and when; null when none was made yet.",
    }),
  ),
})
export type ClubDetail = typeof ClubDetail.static
