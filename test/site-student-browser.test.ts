import { expect, it } from 'bun:test'
import { browserSuite, checkPage, enter, offHost, press, tabTo, watchPage } from '../harness/browser'
import { users } from '../harness/users'
import { adminSender } from '../harness/service'

// A student's journey on the site in Chromium, on a phone-sized screen (375 px) and by keyboard
// alone (docs/reference.md §20): sign in with a token, find a club with the search field, open it,
// favorite it and ask to join with a message; axe-core finds nothing on any page on the way, no
// page scrolls sideways, and every control reached shows where the focus is. Then (docs/reference.md §22)
// another student finds their favorite, subscription and join request on My clubs, withdraws the
// request, replaces their calendar's address and registers a club.

const TOKEN = 'student-browser-admin-token'
const TIMEOUT = 60_000
const suite = process.env.SKIP_BROWSER_TESTS === '1' ? it.skip : it

const site = browserSuite(TOKEN, 'clubs-student-browser-', { timeout: TIMEOUT })

const api = (path: string, init: { method?: string; json?: unknown; token?: string } = {}) =>
  fetch(`${site.origin}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${init.token ?? TOKEN}`, 'content-type': 'application/json' },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  }).then((res) => res.json() as Promise<any>)

suite(
  'a student signs in, finds a club, favorites it and asks to join, by keyboard at 375 px',
  async () => {
    const { sam: token } = await users(adminSender(site.origin, TOKEN), 'sam')
    await api('/api/clubs/penn-chess-society/', { method: 'PATCH', json: { accepting_members: true } })

    const watched = await watchPage(site.browser, new URL(site.origin).host)
    const { page, problems } = watched
    await page.setViewportSize({ width: 375, height: 800 })
    await page.goto(`${site.origin}/`)
    await checkPage(page, problems, 'directory')

    await press(page, page.getByRole('link', { name: 'Sign in' }))
    await checkPage(page, problems, 'sign-in')
    await tabTo(page, page.getByLabel('Your token'))
    await page.keyboard.type(token)
    await enter(page)
    await expect(page.getByRole('button', { name: /Sign out/ }).isVisible()).resolves.toBe(true)

    await tabTo(page, page.getByLabel('Search'))
    await page.keyboard.type('chess')
    await enter(page)
    await checkPage(page, problems, 'search results')
    await press(page, page.getByRole('link', { name: 'Penn Chess Society' }))
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Penn Chess Society')
    await checkPage(page, problems, 'club page')

    await press(page, page.getByRole('button', { name: 'Favorite', exact: true }))
    await expect(page.getByRole('status').textContent()).resolves.toBe('Added to your favorites.')
    await checkPage(page, problems, 'club page, favorited')

    await tabTo(page, page.getByLabel('Message to the officers (optional)'))
    await page.keyboard.type('I have played since school.')
    await press(page, page.getByRole('button', { name: 'Ask to join' }))
    await expect(page.getByRole('status').textContent()).resolves.toBe(
      'Your request to join was sent to the club’s officers.',
    )
    await expect(page.getByRole('button', { name: 'Withdraw request' }).isVisible()).resolves.toBe(true)
    await checkPage(page, problems, 'club page, asked to join')

    expect((await api('/api/favorites/', { token })).map((f: any) => f.club.code)).toEqual(['penn-chess-society'])
    expect(await api('/api/users/me/requests/', { token })).toEqual([
      { club: 'penn-chess-society', message: 'I have played since school.', created_at: expect.any(String) },
    ])
    expect(offHost(watched)).toEqual([])
  },
  TIMEOUT,
)

suite(
  'a student favorites, subscribes and asks to join, finds all three on My clubs, withdraws, replaces the calendar address and registers a club',
  async () => {
    const { maya: token } = await users(adminSender(site.origin, TOKEN), 'maya')
    const club = { code: 'astronomy-society', name: 'Astronomy Society' }

    const watched = await watchPage(site.browser, new URL(site.origin).host)
    const { page, problems } = watched
    await page.setViewportSize({ width: 375, height: 800 })
    await page.goto(`${site.origin}/sign-in?next=${encodeURIComponent(`/clubs/${club.code}`)}`)
    await tabTo(page, page.getByLabel('Your token'))
    await page.keyboard.type(token)
    await enter(page)
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(club.name)

    await press(page, page.getByRole('button', { name: 'Favorite', exact: true }))
    await press(page, page.getByRole('button', { name: 'Subscribe', exact: true }))
    await expect(page.getByRole('status').textContent()).resolves.toContain('This site itself sends no e-mail.')
    await press(page, page.getByRole('button', { name: 'Ask to join' }))
    await checkPage(page, problems, 'club page, favorited, subscribed and asked to join')

    await press(page, page.getByRole('link', { name: 'My clubs' }))
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('My clubs')
    for (const [section, button] of [
      ['Favorites', 'Unfavorite'],
      ['Subscriptions', 'Unsubscribe'],
      ['Join requests waiting', 'Withdraw'],
    ]) {
      const region = page.getByRole('region', { name: section })
      await expect(region.getByRole('link', { name: club.name }).isVisible()).resolves.toBe(true)
      await expect(region.getByRole('button', { name: `${button} ${club.name}` }).isVisible()).resolves.toBe(true)
    }
    await checkPage(page, problems, 'My clubs')

    await press(page, page.getByRole('button', { name: `Withdraw ${club.name}` }))
    await expect(page.getByRole('status').textContent()).resolves.toBe('Your request to join was withdrawn.')
    await expect(
      page
        .getByRole('region', { name: 'Join requests waiting' })
        .getByText('No request of yours is waiting.')
        .isVisible(),
    ).resolves.toBe(true)
    expect(await api('/api/users/me/requests/', { token })).toEqual([])

    await press(page, page.getByRole('button', { name: 'Make my calendar address' }))
    const address = page.getByLabel('Your calendar address')
    const first = await address.inputValue()
    await press(page, page.getByRole('button', { name: 'Replace the calendar address' }))
    await expect(page.getByRole('status').textContent()).resolves.toBe(
      'Your calendar has a new address; the old one no longer works.',
    )
    const second = await address.inputValue()
    expect(second).not.toBe(first)
    expect((await api('/api/users/me/calendar-url/', { token })).url).toBe(second)
    expect((await fetch(first)).status).toBe(404)
    expect((await fetch(second)).status).toBe(200)
    await checkPage(page, problems, 'My clubs, calendar replaced')

    await press(page, page.getByRole('main').getByRole('link', { name: 'Register a club', exact: true }))
    await checkPage(page, problems, 'Register a club')
    await tabTo(page, page.getByLabel('Name', { exact: true }))
    await page.keyboard.type('Stargazers Anonymous')
    await press(page, page.getByRole('button', { name: 'Register' }))
    await expect(page.getByRole('status').textContent()).resolves.toContain('Your club is registered')
    await expect(
      page
        .getByRole('region', { name: 'Clubs you run' })
        .getByRole('link', { name: 'Stargazers Anonymous', exact: true })
        .isVisible(),
    ).resolves.toBe(true)
    expect(offHost(watched)).toEqual([])
  },
  TIMEOUT,
)
