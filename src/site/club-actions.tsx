/** @jsxImportSource preact */
import { Elysia } from 'elysia'
import type { Caller } from '../domain/caller'
import { field } from './forms'
import { callerOf, seeOther, signInFirst, type FormPost, type SiteKit } from './kit'
import { CsrfField, type Viewer } from './layout'
import { SUBSCRIBING } from './my-clubs'

/** Where a signed-in reader stands with a club: what its buttons offer. */
export interface Standing {
  readonly code: string
  readonly favorite: boolean
  readonly subscribed: boolean
  readonly takesSubscriptions: boolean
  readonly member: boolean
  readonly requested: boolean
  readonly acceptingMembers: boolean
  /** The reader runs the club (an owner or officer) or is an admin: they get its Edit and requests pages. */
  readonly runs: boolean
}

/** What the page says after a button did its work (`?done=`). */
export const DONE: Readonly<Record<string, string>> = {
  favorited: 'Added to your favorites.',
  unfavorited: 'Removed from your favorites.',
  subscribed: `Subscribed. ${SUBSCRIBING}`,
  unsubscribed: 'Unsubscribed.',
  asked: 'Your request to join was sent to the club’s officers.',
  withdrawn: 'Your request to join was withdrawn.',
}

function Button({
  viewer,
  action,
  name,
  value,
  children,
}: {
  viewer: Viewer
  action: string
  name?: string
  value?: string
  children: string
}) {
  return (
    <form method="post" action={action} class="inline">
      <CsrfField viewer={viewer} />
      {name && <input type="hidden" name={name} value={value} />}
      <button type="submit">{children}</button>
    </form>
  )
}

/** A club page's buttons for a signed-in reader (docs/reference.md §20), and what the last one did. */
export function ClubActions({ viewer, standing, done }: { viewer: Viewer; standing: Standing; done: string | null }) {
  const base = `/clubs/${encodeURIComponent(standing.code)}`
  return (
    <section class="club-actions" aria-label="Your place in this club">
      {done && Object.hasOwn(DONE, done) && (
        <p class="notice" role="status">
          {DONE[done]}
        </p>
      )}
      {standing.runs && (
        <p class="buttons">
          <a class="button" href={`${base}/edit`}>
            Edit this club
          </a>
          <a class="button secondary" href={`${base}/requests`}>
            Join requests and members
          </a>
        </p>
      )}
      <div class="buttons">
        <Button viewer={viewer} action={`${base}/favorite`} name="on" value={String(!standing.favorite)}>
          {standing.favorite ? 'Unfavorite' : 'Favorite'}
        </Button>
        {(standing.takesSubscriptions || standing.subscribed) && (
          <Button viewer={viewer} action={`${base}/subscription`} name="on" value={String(!standing.subscribed)}>
            {standing.subscribed ? 'Unsubscribe' : 'Subscribe'}
          </Button>
        )}
      </div>
      {standing.takesSubscriptions && !standing.subscribed && <p class="help">{SUBSCRIBING}</p>}
      {standing.member ? (
        <p>You are a member of this club.</p>
      ) : standing.requested ? (
        <div class="join">
          <p>Your request to join is waiting for the club’s officers.</p>
          <Button viewer={viewer} action={`${base}/join/withdraw`}>
            Withdraw request
          </Button>
        </div>
      ) : standing.acceptingMembers ? (
        <form method="post" action={`${base}/join`} class="join">
          <CsrfField viewer={viewer} />
          <label for="join-message">Message to the officers (optional)</label>
          <textarea id="join-message" name="message" maxLength={1000} rows={3} />
          <button type="submit">Ask to join</button>
        </form>
      ) : (
        <p>This club is not taking new members right now.</p>
      )}
    </section>
  )
}

/** A club page's invitation for someone not signed in. */
export const SignInToJoin = ({ code }: { code: string }) => (
  <p class="club-actions">
    <a href={`/sign-in?next=${encodeURIComponent(`/clubs/${code}`)}`}>Sign in</a> to favorite, subscribe to or join this
    club.
  </p>
)

/** The buttons' POSTs: each does its work through the domain, then goes back to the club's page. */
export function clubActionRoutes(kit: SiteKit) {
  const { favorites, subscriptions, requests } = kit.deps
  const signedIn = (work: (caller: Caller, post: FormPost) => Promise<string>) =>
    kit.action(async (post) => {
      if (!post.viewer) return signInFirst(new URL(`/clubs/${post.params.code}`, post.url))
      const done = await work(callerOf(post.viewer), post)
      return seeOther(`/clubs/${encodeURIComponent(post.params.code!)}?done=${done}`)
    })
  const toggle = (saved: typeof favorites, on: string, off: string) =>
    signedIn(async (caller, { form, params }) => {
      if (form.get('on') === 'false') {
        await saved.remove(caller, params.code!)
        return off
      }
      await saved.add(caller, { club: params.code })
      return on
    })

  return new Elysia({ name: 'site-club-actions' })
    .post('/clubs/:code/favorite', toggle(favorites, 'favorited', 'unfavorited'), { detail: { hide: true } })
    .post('/clubs/:code/subscription', toggle(subscriptions, 'subscribed', 'unsubscribed'), { detail: { hide: true } })
    .post(
      '/clubs/:code/join',
      signedIn(async (caller, { form, params }) => {
        const message = field(form, 'message', 1000).trim()
        await requests.ask(caller, params.code!, message ? { message } : {})
        return 'asked'
      }),
      { detail: { hide: true } },
    )
    .post(
      '/clubs/:code/join/withdraw',
      signedIn(async (caller, { params }) => {
        await requests.remove(caller, params.code!, caller.username!)
        return 'withdrawn'
      }),
      { detail: { hide: true } },
    )
}
