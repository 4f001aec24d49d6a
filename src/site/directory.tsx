/** @jsxImportSource preact */
import { ClubCard } from './club-card'
import type { ClubView } from './club-view'

export interface DirectoryState {
  readonly clubs: readonly ClubView[]
  readonly total: number
  readonly page: number
  readonly lastPage: number
  readonly search: string
  /** Every tag, each with how many clubs the reader may see carry it. */
  readonly tags: readonly { readonly name: string; readonly clubs: number }[]
  readonly chosenTags: readonly string[]
  readonly origin: string
}

/** The link to another page of the same search. */
function pageHref(state: DirectoryState, page: number): string {
  const query = new URLSearchParams()
  if (state.search) query.set('search', state.search)
  for (const tag of state.chosenTags) query.append('tags', tag)
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
  const filtered = state.search !== '' || state.chosenTags.length > 0
  return filtered ? `${clubs} found` : clubs
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
            <legend>Tags</legend>
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
        <button type="submit">Show clubs</button>
      </form>
      <section id="results" aria-labelledby="results-heading">
        <h2 id="results-heading" class="count" aria-live="polite">
          {summary(state)}
        </h2>
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
