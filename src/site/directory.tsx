/** @jsxImportSource preact */
import { DEFAULT_ORDERING } from '../domain/list-query'
import { ClubCard } from './club-card'
import type { ClubView } from './club-view'

/** The orders the directory offers (CONTRACT §22), as `?sort=` names them, each with the list's `ordering`. */
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
  readonly clubs: readonly ClubView[]
  readonly total: number
  readonly page: number
  readonly lastPage: number
  readonly search: string
  /** Every tag, each with how many clubs the reader may see carry it. */
  readonly tags: readonly { readonly name: string; readonly clubs: number }[]
  readonly chosenTags: readonly string[]
  readonly sort: Sort
  readonly origin: string
}

/** The link to another page of the same search. */
function pageHref(state: DirectoryState, page: number): string {
  const query = new URLSearchParams()
  if (state.search) query.set('search', state.search)
  for (const tag of state.chosenTags) query.append('tags', tag)
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

const isFiltered = (state: DirectoryState) => state.search !== '' || state.chosenTags.length > 0

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

/** The directory (CONTRACT §20): the search form, then the results, which the script refreshes as one types. */
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
        <SortControl state={state} />
        <button type="submit">Show clubs</button>
      </form>
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
