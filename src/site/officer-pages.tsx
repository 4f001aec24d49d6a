/** @jsxImportSource preact */
import { Elysia } from 'elysia'
import { subscriberTable } from '../domain/cells'
import { NotFound, ValidationFailed } from '../domain/errors'
import { MAX_LOGO_BYTES } from '../edge/logo-body'
import { NOSNIFF } from '../edge/respond'
import { spreadsheet } from '../edge/spreadsheets'
import type { FieldErrors } from '../domain/check'
import { REVIEWED_FIELDS, type ClubRecord } from '../model/club'
import { ClubEditPage, type EditNotice, type EditState } from './club-edit'
import { changesOf, valuesFrom, valuesOf, type EditValues } from './club-form'
import { ClubPeoplePage } from './club-people'
import { callerOf, seeOther, signInFirst, type SiteKit } from './kit'
import type { Viewer } from './layout'
import { clubStanding } from './run-clubs'

const HIDE = { detail: { hide: true } }

/**
 * What officers use (CONTRACT §20): each club's Edit form, and its join requests and
 * members, with Accept and Decline. The same domain services as the API's, with the same rules.
 */
export function officerPages(kit: SiteKit) {
  const { clubs, tags, members, requests, logos } = kit.deps

  const standingOf = (record: ClubRecord) => clubStanding(clubs, record)

  function editPage(
    viewer: Viewer,
    origin: string,
    club: ClubRecord,
    values: EditValues,
    errors: FieldErrors = {},
    notice: EditNotice = null,
  ) {
    const state: EditState = {
      code: club.code,
      name: club.name,
      values,
      errors,
      tags: tags.list(callerOf(viewer)),
      notice,
      awaitingReview: standingOf(club) === 'change',
      reviewed: clubs.reviewsEdits(callerOf(viewer), club),
      logo: club.image_url,
      origin,
      logos: logos !== null,
    }
    return {
      title: `Edit ${club.name}`,
      content: <ClubEditPage state={state} viewer={viewer} />,
      status: Object.keys(errors).length ? 400 : 200,
    }
  }

  const showEdit = kit.page(({ url, viewer, params }) => {
    if (!viewer) return signInFirst(url)
    const club = clubs.editable(callerOf(viewer), params.code!)
    const saved = url.searchParams.get('saved')
    return editPage(
      viewer,
      url.origin,
      club,
      valuesOf(club),
      {},
      saved === 'review' ? 'review' : saved ? 'saved' : null,
    )
  })

  const saveEdit = kit.action(async ({ url, viewer, params, form }) => {
    if (!viewer) return signInFirst(url)
    const caller = callerOf(viewer)
    const before = clubs.editable(caller, params.code!)
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
    const awaits = reviewedChange && standingOf(after) === 'change'
    return seeOther(`/clubs/${after.code}/edit?saved=${awaits ? 'review' : '1'}`)
  })

  const people = kit.page(({ url, viewer, params }) => {
    if (!viewer) return signInFirst(url)
    const caller = callerOf(viewer)
    const club = clubs.editable(caller, params.code!)
    const accepted = url.searchParams.get('accepted')
    const declined = url.searchParams.get('declined')
    const state = {
      code: club.code,
      name: club.name,
      requests: requests.list(caller, club.code),
      members: members.list(caller, club.code),
      subscribers: members.subscribers(caller, club.code),
      notice: accepted
        ? `${accepted} is now a member.`
        : declined
          ? `The request from ${declined} was declined.`
          : null,
    }
    return { title: `Join requests · ${club.name}`, content: <ClubPeoplePage state={state} viewer={viewer} /> }
  })

  const answer = (verb: 'accept' | 'decline') =>
    kit.action(async ({ url, viewer, params }) => {
      if (!viewer) return signInFirst(new URL(`/clubs/${params.code}/requests`, url))
      const caller = callerOf(viewer)
      const { code, username } = params as { code: string; username: string }
      if (verb === 'accept') await requests.accept(caller, code, username)
      else await requests.remove(caller, code, username)
      const done = verb === 'accept' ? 'accepted' : 'declined'
      return seeOther(`/clubs/${code}/requests?${done}=${encodeURIComponent(username)}`)
    })

  /** The subscribers as a CSV file, for the club's officers signed in on the site (the API's needs a token). */
  const subscribersFile = kit.step(async ({ url, viewer, params }) => {
    if (!viewer) return signInFirst(url)
    const caller = callerOf(viewer)
    const code = clubs.editable(caller, params.code!).code
    const file = await spreadsheet('csv', subscriberTable(members.subscribers(caller, code)), `${code}-subscribers`)
    return new Response(file.body.body, {
      headers: { 'Content-Type': file.body.type, 'Cache-Control': 'no-store', ...NOSNIFF, ...file.headers },
    })
  })

  /** After a logo change: back to the form, which says whether the change awaits review. */
  const afterLogo = (before: ClubRecord, after: ClubRecord) =>
    seeOther(
      `/clubs/${after.code}/edit?saved=${after.image_url !== before.image_url && standingOf(after) === 'change' ? 'review' : '1'}`,
    )

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
    .post('/clubs/:code/logo', uploadLogo, HIDE)
    .post('/clubs/:code/logo/remove', removeLogo, HIDE)
    .get('/clubs/:code/requests', people, HIDE)
    .get('/clubs/:code/subscribers.csv', subscribersFile, HIDE)
    .post('/clubs/:code/requests/:username/accept', answer('accept'), HIDE)
    .post('/clubs/:code/requests/:username/decline', answer('decline'), HIDE)
}
