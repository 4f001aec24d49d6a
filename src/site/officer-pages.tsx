/** @jsxImportSource preact */
import { roundNote } from './re-registration'
import { Elysia } from 'elysia'
import { subscriberTable, type Cell } from '../domain/cells'
import type { Caller } from '../domain/caller'
import { NotFound, ValidationFailed } from '../domain/errors'
import { MAX_LOGO_BYTES } from '../edge/logo-body'
import { NOSNIFF } from '../edge/respond'
import { spreadsheet } from '../edge/spreadsheets'
import type { FieldErrors } from '../domain/check'
import { REVIEWED_FIELDS, type ClubRecord } from '../model/club'
import { ClubEditPage, type EditNotice, type EditState } from './club-edit'
import { changesOf, formMark, valuesFrom, valuesOf, type EditValues } from './club-form'
import { callerOf, seeOther, signInFirst, type SiteKit } from './kit'
import type { Viewer } from './layout'
import { clubStanding } from './run-clubs'

const HIDE = { detail: { hide: true } }

/**
 * What officers use (docs/reference.md §20): each club's Edit form and logo, and its subscribers as a file
 * (My clubs: my-clubs.tsx; its join requests and members: people-routes.tsx). The same domain
 * services as the API's, with the same rules.
 */
export function officerPages(kit: SiteKit) {
  const { clubs, tags, members, logos, rounds } = kit.deps

  const standingOf = (record: ClubRecord) => clubStanding(clubs, record)

  function editPage(
    viewer: Viewer,
    origin: string,
    club: ClubRecord,
    values: EditValues,
    errors: FieldErrors = {},
    notice: EditNotice = null,
  ) {
    const caller = callerOf(viewer)
    const rejected = clubs.isRejected(club)
    const state: EditState = {
      code: club.code,
      name: club.name,
      values,
      errors,
      tags: tags.list(caller),
      notice,
      awaitingReview: standingOf(club) === 'change',
      // A rejected club's changed reviewed fields send it for review again, unless an admin changes them.
      reviewed: clubs.reviewsEdits(caller, club) || (rejected && !viewer.isAdmin),
      logo: club.image_url,
      origin,
      logos: logos !== null,
      lastDecision: clubs.lastDecision(club.code),
      resubmittable: rejected && clubs.runs(caller, club.code),
      round: club.active ? roundNote(rounds.openRound(), rounds.confirmationOf(club.code)) : null,
      seen: formMark(club),
    }
    return {
      title: `Edit ${club.name}`,
      content: <ClubEditPage state={state} viewer={viewer} />,
      status: notice === 'stale' ? 409 : Object.keys(errors).length ? 400 : 200,
    }
  }

  const showEdit = kit.page(({ url, viewer, params }) => {
    if (!viewer) return signInFirst(url)
    const club = clubs.editable(callerOf(viewer), params.code!)
    const saved = url.searchParams.get('saved')
    const notice = saved === 'review' || saved === 'resubmitted' ? saved : saved ? 'saved' : null
    return editPage(viewer, url.origin, club, valuesOf(club), {}, notice)
  })

  const saveEdit = kit.action(async ({ url, viewer, params, form }) => {
    if (!viewer) return signInFirst(url)
    const caller = callerOf(viewer)
    const before = clubs.editable(caller, params.code!)
    // A form shown before the club changed would put back what changed since: nothing is saved.
    const seen = form.get('seen')
    if (seen !== null && seen !== formMark(before))
      return editPage(viewer, url.origin, before, valuesOf(before), {}, 'stale')
    const values = valuesFrom(form)
    const changes = changesOf(values, before)
    let after = before
    try {
      if (Object.keys(changes).length) after = await clubs.update(caller, before.code, changes, true)
    } catch (error) {
      if (error instanceof ValidationFailed)
        return editPage(viewer, url.origin, before, values, error.body as FieldErrors)
      throw error
    }
    const reviewedChange = REVIEWED_FIELDS.some((field) => after[field] !== before[field])
    return seeOther(`/clubs/${after.code}/edit?saved=${savedAs(before, after, reviewedChange)}`)
  })

  /** What the edit page says after a save: a rejected club sent again, a change awaiting review, or saved. */
  const savedAs = (before: ClubRecord, after: ClubRecord, reviewedChange: boolean) =>
    !reviewedChange
      ? '1'
      : clubs.isRejected(before) && !clubs.isRejected(after)
        ? 'resubmitted'
        : standingOf(after) === 'change'
          ? 'review'
          : '1'

  /** Submit for review again: a rejected club goes back into the queue as it stands (docs/reference.md §22). */
  const resubmit = kit.action(async ({ url, viewer, params }) => {
    if (!viewer) return signInFirst(new URL(`/clubs/${params.code}/edit`, url))
    const club = await clubs.resubmit(callerOf(viewer), params.code!)
    return seeOther(`/clubs/${club.code}/edit?saved=resubmitted`)
  })

  /** The subscribers as a CSV file, for the club's officers signed in on the site (the API's needs a token). */
  const subscribersFile = csvAnswer(
    kit,
    (caller, code) => subscriberTable(members.subscribers(caller, code)),
    'subscribers',
  )

  /** After a logo change: back to the form, which says whether the change awaits review. */
  const afterLogo = (before: ClubRecord, after: ClubRecord) =>
    seeOther(`/clubs/${after.code}/edit?saved=${savedAs(before, after, after.image_url !== before.image_url)}`)

  const uploadLogo = kit.upload(
    'image',
    MAX_LOGO_BYTES,
    // The image is made before the write's turn; one signed out is sent to sign in below.
    async ({ viewer, params, file }) => {
      if (!viewer || !logos) return null
      const upload = !file
        ? { problem: 'Choose an image file to upload.' }
        : file.byteLength > MAX_LOGO_BYTES
          ? { problem: 'The image is larger than 2 MiB.' }
          : { bytes: file }
      return logos.prepare(callerOf(viewer), params.code!, upload)
    },
    async ({ url, viewer, params, prepared }) => {
      if (!viewer) return signInFirst(new URL(`/clubs/${params.code}/edit`, url))
      const caller = callerOf(viewer)
      const before = clubs.editable(caller, params.code!)
      if (!logos || !prepared) throw new NotFound()
      try {
        return afterLogo(before, await logos.put(caller, before.code, prepared, url.origin))
      } catch (error) {
        if (error instanceof ValidationFailed)
          return editPage(viewer, url.origin, before, valuesOf(before), error.body as FieldErrors)
        throw error
      }
    },
  )

  const removeLogo = kit.action(async ({ url, viewer, params }) => {
    if (!viewer) return signInFirst(new URL(`/clubs/${params.code}/edit`, url))
    const caller = callerOf(viewer)
    const before = clubs.editable(caller, params.code!)
    if (!logos) throw new NotFound()
    await logos.remove(caller, before.code)
    return afterLogo(before, clubs.editable(caller, before.code))
  })

  return new Elysia({ name: 'site-officer-pages' })
    .get('/clubs/:code/edit', showEdit, HIDE)
    .post('/clubs/:code/edit', saveEdit, HIDE)
    .post('/clubs/:code/resubmit', resubmit, HIDE)
    .post('/clubs/:code/logo', uploadLogo, HIDE)
    .post('/clubs/:code/logo/remove', removeLogo, HIDE)
    .get('/clubs/:code/subscribers.csv', subscribersFile, HIDE)
}

/**
 * A club's table (`tableOf` for its officers) as a CSV file `<code>-<name>.csv`, for the club's
 * officers signed in on the site (the API's needs a token); to anyone else, what `editable` says.
 */
export function csvAnswer(kit: SiteKit, tableOf: (caller: Caller, code: string) => Cell[][][], name: string) {
  return kit.step(async ({ url, viewer, params }) => {
    if (!viewer) return signInFirst(url)
    const caller = callerOf(viewer)
    const code = kit.deps.clubs.editable(caller, params.code!).code
    const file = await spreadsheet('csv', tableOf(caller, code), `${code}-${name}`)
    return new Response(file.body.body, {
      headers: { 'Content-Type': file.body.type, 'Cache-Control': 'no-store', ...NOSNIFF, ...file.headers },
    })
  })
}
