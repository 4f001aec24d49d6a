/** @jsxImportSource preact */
import { Elysia } from 'elysia'
import { ApiError, BadRequest } from '../domain/errors'
import { busyTimes, MAX_TIMETABLE_BYTES } from '../edge/timetable'
import type { ClubListItem, Meeting } from '../model/club'
import { ClubCard } from './club-card'
import { MeetingList } from './club-facts'
import { checkOrigin, readUpload } from './forms'
import type { SiteKit } from './kit'
import { ANONYMOUS } from '../domain/caller'

// "Upload your timetable (.ics)" (docs/reference.md §24): the directory's form sends a student's timetable
// here, and the page shows only the clubs with a meeting that clashes with nothing in it, each
// with those meetings. The upload changes nothing and shows only public clubs, so, unlike the
// forms that change something, it carries no session token (the directory page stays one page
// for everyone); a POST from another site is still refused. A file that is not a timetable is
// said so on the page, with the form to try another.

const FIELD = 'timetable'

/** The upload form, on the directory and above the clubs that fit. */
export function TimetableForm({ problem = null }: { problem?: string | null }) {
  return (
    <form method="post" action="/timetable" enctype="multipart/form-data" class="timetable">
      {problem && (
        <p class="notice error-notice" role="alert">
          {problem}
        </p>
      )}
      <p class="field">
        <label for={FIELD}>Upload your timetable (.ics)</label>
        <input
          id={FIELD}
          name={FIELD}
          type="file"
          accept=".ics,text/calendar"
          required
          aria-describedby="timetable-help"
        />
        <span id="timetable-help" class="help">
          An iCalendar file from your calendar app or student system: we show the clubs with a meeting that clashes with
          none of your events in the next four weeks. The file is read, not kept.
        </span>
      </p>
      <button type="submit">Find clubs that fit</button>
    </form>
  )
}

interface Fitting {
  readonly club: ClubListItem
  readonly meetings: readonly Meeting[]
}

function TimetablePage({
  fitting,
  problem,
  origin,
  timeZone,
}: {
  fitting: readonly Fitting[] | null
  problem: string | null
  origin: string
  timeZone: string
}) {
  return (
    <>
      <h1>Clubs that fit your timetable</h1>
      <p>
        <a href="/">Back to all clubs</a>
      </p>
      <TimetableForm problem={problem} />
      {fitting && (
        <section aria-labelledby="fitting-heading">
          <h2 id="fitting-heading" class="count">
            {fitting.length} club{fitting.length === 1 ? '' : 's'} fit
          </h2>
          {fitting.length === 0 ? (
            <p>No club has a meeting that misses all of your events in the next four weeks.</p>
          ) : (
            <ul class="cards">
              {fitting.map(({ club, meetings }) => (
                <ClubCard club={club} origin={origin}>
                  <p class="fits">Meetings that fit:</p>
                  <MeetingList meetings={meetings} timeZone={timeZone} />
                </ClubCard>
              ))}
            </ul>
          )}
        </section>
      )}
    </>
  )
}

/** `POST /timetable`: the clubs that fit the uploaded timetable, or what is wrong with the file. */
export function timetablePages(kit: SiteKit) {
  const { clubs, fitting, timeZone } = kit.deps
  const shown = (origin: string, found: readonly Fitting[] | null, problem: string | null, status = 200) => ({
    title: found ? 'Clubs that fit your timetable' : 'Your timetable could not be read',
    content: <TimetablePage fitting={found} problem={problem} origin={origin} timeZone={timeZone} />,
    status,
  })
  const upload = kit.step(async ({ request, url }) => {
    checkOrigin(request, url.origin)
    try {
      const { file } = await readUpload(request, FIELD, MAX_TIMETABLE_BYTES)
      if (!file) throw new BadRequest('Choose a timetable file (.ics) to upload.')
      const window = fitting.window()
      const busy = busyTimes(new TextDecoder().decode(file), window)
      const query = clubs.parseQuery(new URLSearchParams())
      const found = fitting.fitting(query, window, busy).clubs.map(({ record, meetings }) => ({
        club: clubs.listItem(ANONYMOUS, record),
        meetings,
      }))
      return shown(url.origin, found, null)
    } catch (error) {
      // A file too big, not iCalendar, or one that expands too far: said on the page.
      if (!(error instanceof ApiError) || (error.status !== 400 && error.status !== 413)) throw error
      const detail = (error.body as { detail?: string }).detail
      const problem =
        error.status === 413
          ? `That file is too big: a timetable may have at most ${MAX_TIMETABLE_BYTES / 1024 / 1024} MiB.`
          : (detail ?? 'That file could not be read as a timetable.')
      return shown(url.origin, null, problem, error.status)
    }
  })
  return new Elysia({ name: 'site-timetable' }).post('/timetable', upload, { detail: { hide: true } })
}
