/** @jsxImportSource preact */
import type { FieldErrors } from '../domain/check'
import type { Member } from '../domain/members'
import { ROLES } from '../model/user'
import { CheckField, ErrorSummary, FormErrors, SelectField, TextField } from './fields'
import { CsrfField, type Viewer } from './layout'

/** What a members form holds. */
export interface MemberValues {
  readonly username: string
  readonly role: string
  readonly title: string
  readonly public: boolean
}

/**
 * A members form the domain refused: the member it was for (null: the add form), its values as sent
 * (null: the member's as they stand, for a refused Remove) and the errors.
 */
export interface MemberForm {
  readonly target: string | null
  readonly values: MemberValues | null
  readonly errors: FieldErrors
}

const ROLE_CHOICES = ROLES.map((role) => [role, role[0]!.toUpperCase() + role.slice(1)] as const)
const PUBLIC_LABEL = 'Public: listed with their title on the club’s page'
const FIELD_NAMES = ['username', 'role', 'title', 'public']

/** The ids of a members form's controls: `m-<username>-…` for a member's, `new-member-…` for the add form's. */
const idsOf = (target: string | null) => {
  const prefix = target === null ? 'new-member' : `m-${target}`
  return {
    username: `${prefix}-username`,
    role: `${prefix}-role`,
    title: `${prefix}-title`,
    public: `${prefix}-public`,
    form: `${prefix}-form-error`,
  }
}

/** What each control of a members form carries (its id, its name, its errors), and the id of the form's own errors. */
const controlsOf = (target: string | null, errors: FieldErrors) => {
  const ids = idsOf(target)
  const control = (name: keyof MemberValues) => ({ id: ids[name], name, errors: errors[name] })
  return Object.assign(control, { formError: ids.form })
}

/** Where the summary links each problem of the refused form. */
export function summaryFields(target: string | null) {
  const ids = idsOf(target)
  const of = target === null ? '' : ` of ${target}`
  return {
    username: { id: ids.username, label: 'Username' },
    role: { id: ids.role, label: `Role${of}` },
    title: { id: ids.title, label: `Title${of}` },
    public: { id: ids.public, label: `Public${of}` },
    non_field_errors: { id: ids.form, label: target ?? 'Add a member' },
  }
}

/** A label that names the member too, for a screen reader moving between the members' forms. */
const Named = ({ text, username }: { text: string; username: string }) => (
  <>
    {text}
    <span class="visually-hidden"> of {username}</span>
  </>
)

/**
 * One member: as the page shows them to an owner or admin (role, title and `public` to change, and
 * Remove), to the member themselves (their title and `public`, and Leave), or to anyone else (text).
 */
function MemberItem({
  member,
  code,
  viewer,
  manages,
  form,
}: {
  member: Member
  code: string
  viewer: Viewer
  manages: boolean
  form: MemberForm | null
}) {
  const { username } = member
  const self = username === viewer.username
  const refused = form?.target === username ? form : null
  const shown = refused?.values
  const errors = refused?.errors ?? {}
  const control = controlsOf(username, errors)
  const action = `/clubs/${code}/members/${encodeURIComponent(username)}`
  const heading = (
    <>
      <strong>{username}</strong>
      {self && ' (you)'} — {member.role}
      {member.title && `, ${member.title}`}
      {member.public && ' (public)'}
    </>
  )
  if (!manages && !self) return <li class="member">{heading}</li>
  return (
    <li class="member">
      <form method="post" action={action} class="member-form" noValidate>
        <CsrfField viewer={viewer} />
        <fieldset>
          <legend>{heading}</legend>
          <FormErrors id={control.formError} errors={errors} fields={FIELD_NAMES} />
          {manages && (
            <SelectField
              {...control('role')}
              label={<Named text="Role" username={username} />}
              value={shown?.role ?? member.role}
              choices={ROLE_CHOICES}
            />
          )}
          <TextField
            {...control('title')}
            label={<Named text="Title" username={username} />}
            value={shown?.title ?? member.title}
            maxLength={100}
          />
          <CheckField
            {...control('public')}
            label={<Named text={PUBLIC_LABEL} username={username} />}
            checked={shown?.public ?? member.public}
          />
          <button type="submit">
            Save <span class="visually-hidden">{username}</span>
          </button>
        </fieldset>
      </form>
      <form method="post" action={`${action}/remove`} class="inline">
        <CsrfField viewer={viewer} />
        <button type="submit" class="secondary">
          {self ? (
            'Leave the club'
          ) : (
            <>
              Remove <span class="visually-hidden">{username}</span>
            </>
          )}
        </button>
      </form>
    </li>
  )
}

/** The form that adds a member by username, with their role, title and `public` (docs/reference.md §22). */
function AddMember({ code, viewer, form }: { code: string; viewer: Viewer; form: MemberForm | null }) {
  const refused = form?.target === null ? form : null
  const shown = refused?.values
  const errors = refused?.errors ?? {}
  const control = controlsOf(null, errors)
  return (
    <form method="post" action={`/clubs/${code}/members`} class="edit-section narrow" noValidate>
      <CsrfField viewer={viewer} />
      <h3>Add a member</h3>
      <FormErrors id={control.formError} errors={errors} fields={FIELD_NAMES} />
      <TextField
        {...control('username')}
        label="Username"
        value={shown?.username ?? ''}
        maxLength={64}
        autocomplete="off"
        help="Someone who has signed in here before, or has a token."
      />
      <SelectField {...control('role')} label="Role" value={shown?.role ?? 'member'} choices={ROLE_CHOICES} />
      <TextField
        {...control('title')}
        label="Title"
        value={shown?.title ?? ''}
        maxLength={100}
        help="Optional, e.g. “President”."
      />
      <CheckField {...control('public')} label={PUBLIC_LABEL} checked={shown?.public ?? false} />
      <button type="submit">Add member</button>
    </form>
  )
}

/** The club's members, each with what the viewer may change of them, and the form to add one. */
export function MembersSection({
  code,
  members,
  viewer,
  manages,
  form,
}: {
  code: string
  members: readonly Member[]
  viewer: Viewer
  manages: boolean
  form: MemberForm | null
}) {
  return (
    <section aria-labelledby="members">
      <h2 id="members">Members</h2>
      {form && <ErrorSummary errors={form.errors} fields={summaryFields(form.target)} />}
      <ul class="members">
        {members.map((member) => (
          <MemberItem member={member} code={code} viewer={viewer} manages={manages} form={form} />
        ))}
      </ul>
      <AddMember code={code} viewer={viewer} form={form} />
    </section>
  )
}
