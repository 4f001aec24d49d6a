/** @jsxImportSource preact */
import { DEFAULT_ORDERING } from '../domain/list-query'
import { parseDays, parseSlots } from '../domain/week-slots'
import { WEEKDAYS, type ClubListItem } from '../model/club'
import { ClubCard } from './club-card'
import { TimetableForm } from './timetable'

/** The orders the directory offers (docs/reference.md §22), as `?sort=` names them, each with the list's `ordering`. */
export const SORTS = {
  favorites: { label: 'Most favorited', ordering: DEFAULT_ORDERING },
  name: { label: 'Name', ordering: 'name' },
  newest: { label: 'Newest', ordering: '-created_at,name' },
} as const
/** An order of SORTS, or a search's own: best match first (the list's relevance order). */
export type Sort = keyof typeof SORTS | 'relevance'

/** The order `?sort=` asks for, or the list's own (most favorited; best match with a search) for anything else. */
export function sortOf(raw: string | null, search: string): Sort {
  if (raw !== null && Object.hasOwn(SORTS, raw)) return raw as keyof typeof SORTS
  return search ? 'relevance' : 'favorites'
}

/** The sort a page need not name in its address: the one it gets without. */
const isDefaultSort = (state: Pick<DirectoryState, 'sort' | 'search'>) => state.sort === sortOf(null, state.search)

export interface DirectoryState {
  readonly clubs: readonly ClubListItem[]
  readonly total: number
  readonly page: number
  readonly lastPage: number
  readonly search: string
  /** Every tag, each with how many clubs the reader may see carry it. */
  readonly tags: readonly { readonly name: string; readonly clubs: number }[]
  readonly chosenTags: readonly string[]
  readonly sort: Sort
  readonly origin: string
  /** The "When are you free?" rows as the form holds them (docs/reference.md §24). */
  readonly free: FreeTimes
}

/** How many free times the directory's form offers. */
export const FREE_TIME_ROWS = 3

/** One row of "When are you free?": a day (mon … sun, or "" for none), from and to (HH:MM, or "" for the day's start or end). */
export interface FreeTime {
  readonly day: string
  readonly from: string
  readonly to: string
}

/**
 * The form's free times; `typed`, a link's own `free=` and `meets_on=` as the API takes them (kept
 * beside the form's rows); the list's `free=` of both ("" for none), and what is wrong with them.
 */
export interface FreeTimes {
  readonly rows: readonly FreeTime[]
  readonly typed: string
  readonly meetsOn: string
  readonly free: string
  readonly problem: string | null
}

/** The form's fields of free time `n` (1-based), numbered so that the script may leave empty ones out. */
const freeNames = (n: number) => ({ day: `free_day_${n}`, from: `free_from_${n}`, to: `free_to_${n}` })

/**
 * "When are you free?" from the directory's address: each row with a day becomes a slot of the
 * list's `free=` ("mon 18:00-21:00"), an empty from the start of the day, an empty to its end; a
 * link may also name `free=` and `meets_on=` as the API takes them (docs/reference.md §24).
 */
export function freeTimesOf(params: URLSearchParams): FreeTimes {
  const rows = Array.from({ length: FREE_TIME_ROWS }, (_, i) => {
    const names = freeNames(i + 1)
    const value = (name: string) => (params.get(name) ?? '').trim().slice(0, 20)
    return { day: value(names.day), from: value(names.from), to: value(names.to) }
  })
  const typed = (params.get('free') ?? '').trim().slice(0, 2000)
  const meetsOn = (params.get('meets_on') ?? '').trim().slice(0, 200)
  const free = [
    ...rows.filter((row) => row.day !== '').map((row) => `${row.day} ${row.from || '00:00'}-${row.to || '24:00'}`),
    ...(typed ? [typed] : []),
  ].join(',')
  const slots = free ? parseSlots(free) : null
  const days = meetsOn ? parseDays(meetsOn) : null
  const problem = slots && 'problem' in slots ? slots.problem : days && 'problem' in days ? days.problem : null
  return { rows, typed, meetsOn, free, problem }
}

/** The free times a page's address keeps: only those that are used. */
function appendFreeTimes(query: URLSearchParams, free: FreeTimes) {
  free.rows.forEach((row, i) => {
    const names = freeNames(i + 1)
    for (const key of ['day', 'from', 'to'] as const) if (row[key]) query.set(names[key], row[key])
  })
  if (free.typed) query.set('free', free.typed)
  if (free.meetsOn) query.set('meets_on', free.meetsOn)
}

/** The link to another page of the same search. */
function pageHref(state: DirectoryState, page: number): string {
  const query = new URLSearchParams()
  if (state.search) query.set('search', state.search)
  for (const tag of state.chosenTags) query.append('tags', tag)
  appendFreeTimes(query, state.free)
  if (!isDefaultSort(state)) query.set('sort', state.sort)
  if (page > 1) query.set('page', String(page))
  const text = query.toString()
  return text ? `/?${text}` : '/'
}

function Paging({ state }: { state: DirectoryState }) {
  if (state.lastPage <= 1) return null
  return (
    <nav aria-label="Pages" class="paging">
      {state.page > 1 ? <a href={pageHref(state, state.page - 1)}>Previous page</a> : <span />}
      <span>
        Page {state.page} of {state.lastPage}
      </span>
      {state.page < state.lastPage ? <a href={pageHref(state, state.page + 1)}>Next page</a> : <span />}
    </nav>
  )
}

/** What the search found, said so a screen reader hears it when it changes. */
function summary(state: DirectoryState): string {
  const clubs = `${state.total} club${state.total === 1 ? '' : 's'}`
  return isFiltered(state) ? `${clubs} found` : clubs
}

const isFiltered = (state: DirectoryState) =>
  state.search !== '' || state.chosenTags.length > 0 || state.free.free !== '' || state.free.meetsOn !== ''

const DAY_LABELS = WEEKDAYS.map((day) => [day.slice(0, 3), day[0]!.toUpperCase() + day.slice(1)] as const)

/** "When are you free?" (docs/reference.md §24): a few free times, each a day and hours; the clubs shown have a meeting inside one. */
function FreeTimeControl({ free }: { free: FreeTimes }) {
  return (
    <fieldset class="free-times">
      <legend>
        When are you free?{' '}
        <span class="help">(clubs with a meeting wholly inside one of these times, on the campus clock)</span>
      </legend>
      {free.problem && (
        <p class="notice error-notice" role="alert">
          {free.problem}
        </p>
      )}
      {/* A link's own free= and meets_on= stay with the form's rows. */}
      {free.typed && <input type="hidden" name="free" value={free.typed} />}
      {free.meetsOn && <input type="hidden" name="meets_on" value={free.meetsOn} />}
      {free.rows.map((row, i) => {
        const names = freeNames(i + 1)
        return (
          <fieldset class="free-time">
            <legend>Free time {i + 1}</legend>
            <span class="field">
              <label for={names.day}>Day</label>
              <select id={names.day} name={names.day}>
                <option value="">(none)</option>
                {DAY_LABELS.map(([value, label]) => (
                  <option value={value} selected={row.day === value}>
                    {label}
                  </option>
                ))}
              </select>
            </span>
            <span class="field">
              <label for={names.from}>From</label>
              <input id={names.from} name={names.from} type="time" value={row.from} />
            </span>
            <span class="field">
              <label for={names.to}>To</label>
              <input id={names.to} name={names.to} type="time" value={row.to} />
            </span>
          </fieldset>
        )
      })}
    </fieldset>
  )
}

/** How the results are ordered: a search adds its own order, best match. */
function SortControl({ state }: { state: DirectoryState }) {
  const choices: [Sort, string][] = [
    ...(state.search ? [['relevance', 'Best match'] as [Sort, string]] : []),
    ...Object.entries(SORTS).map(([value, { label }]) => [value, label] as [Sort, string]),
  ]
  return (
    <p class="field sort">
      <label for="sort">Sort by</label>
      <select id="sort" name="sort">
        {choices.map(([value, label]) => (
          <option value={value === sortOf(null, state.search) ? '' : value} selected={value === state.sort}>
            {label}
          </option>
        ))}
      </select>
    </p>
  )
}

/** The directory (docs/reference.md §20): the search form, then the results, which the script refreshes as one types. */
export function DirectoryPage({ state }: { state: DirectoryState }) {
  return (
    <>
      <h1>Student clubs</h1>
      <form method="get" action="/" role="search" class="search" data-live-search="results">
        <p class="field">
          <label for="search">Search</label>
          <input id="search" name="search" type="search" value={state.search} autocomplete="off" />
        </p>
        {state.tags.length > 0 && (
          <fieldset class="tag-filter">
            <legend>
              Tags <span class="help">(a club shows when it has all the tags chosen)</span>
            </legend>
            {state.tags.map((tag, i) => (
              <span class="check">
                <input
                  type="checkbox"
                  id={`tag-${i}`}
                  name="tags"
                  value={tag.name}
                  checked={state.chosenTags.includes(tag.name)}
                />
                <label for={`tag-${i}`}>{tag.name}</label>
              </span>
            ))}
          </fieldset>
        )}
        <FreeTimeControl free={state.free} />
        <SortControl state={state} />
        <button type="submit">Show clubs</button>
      </form>
      <TimetableForm />
      <section id="results" aria-labelledby="results-heading">
        <h2 id="results-heading" class="count" aria-live="polite">
          {summary(state)}
        </h2>
        {(isFiltered(state) || !isDefaultSort(state)) && (
          <p>
            <a href="/">Clear search and filters</a>
          </p>
        )}
        {state.clubs.length === 0 ? (
          <p>No club matches. Try fewer words or tags.</p>
        ) : (
          <ul class="cards">
            {state.clubs.map((club) => (
              <ClubCard club={club} origin={state.origin} />
            ))}
          </ul>
        )}
        <Paging state={state} />
      </section>
    </>
  )
}
