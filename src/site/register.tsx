/** @jsxImportSource preact */
import { Elysia } from 'elysia'
import type { FieldErrors } from '../domain/check'
import { ValidationFailed } from '../domain/errors'
import { ClubForm, ErrorSummary } from './club-edit'
import { changesOf, NEW_CLUB, valuesFrom, valuesOf, type EditValues } from './club-form'
import { callerOf, seeOther, signInFirst, type Shown, type SiteKit } from './kit'
import type { Viewer } from './layout'

const HIDE = { detail: { hide: true } }
const NEW = '/clubs/new'

/** The Register page: the Edit page's club form, empty, for a club not in the directory yet. */
function RegisterPage({ values, errors, tags, viewer }: RegisterState & { viewer: Viewer }) {
  return (
    <>
      <h1>Register a club</h1>
      <ErrorSummary errors={errors} />
      <p class="notice">
        You become the new club’s owner. It awaits review by the activities office before it is in the public directory;
        until then you find it under <a href="/my-clubs">My clubs</a>, where you can edit it and add a logo.
      </p>
      <ClubForm state={{ values, errors, tags, reviewed: false }} viewer={viewer} action={NEW} submit="Register" />
    </>
  )
}

interface RegisterState {
  readonly values: EditValues
  readonly errors: FieldErrors
  readonly tags: readonly { readonly id: number; readonly name: string }[]
}

/**
 * Registering a club (docs/reference.md §22): `/clubs/new` for anyone signed in, a create as
 * `POST /api/clubs/` makes one — the caller its owner, the club awaiting review — and refused
 * with the API's own words, beside the fields, the values kept.
 */
export function registerRoutes(kit: SiteKit) {
  const { clubs, tags } = kit.deps

  const shown = (viewer: Viewer, values: EditValues, errors: FieldErrors = {}): Shown => ({
    title: 'Register a club',
    content: <RegisterPage values={values} errors={errors} tags={tags.list(callerOf(viewer))} viewer={viewer} />,
    status: Object.keys(errors).length ? 400 : 200,
  })

  const form = kit.page(({ url, viewer }) => (viewer ? shown(viewer, valuesOf(NEW_CLUB)) : signInFirst(url)))

  const register = kit.action(async ({ url, viewer, form }) => {
    if (!viewer) return signInFirst(new URL(NEW, url))
    const values = valuesFrom(form)
    try {
      const club = await clubs.create(callerOf(viewer), changesOf(values, NEW_CLUB))
      return seeOther(`/my-clubs?done=${club.approved ? 'registered-approved' : 'registered'}`)
    } catch (error) {
      if (error instanceof ValidationFailed) return shown(viewer, values, error.body as FieldErrors)
      throw error
    }
  })

  return new Elysia({ name: 'site-register' }).get(NEW, form, HIDE).post(NEW, register, HIDE)
}
