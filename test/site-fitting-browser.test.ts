import { describe, expect, it } from 'bun:test'
import { browserSuite, checkPage, NARROW, offHost, press, watchPage } from '../harness/browser'

// Clubs that fit a student's week on the campus site (docs/reference.md §24), in Chromium at 375 px, by
// keyboard, found by visible labels and roles, audited by axe-core: a student types free times and
// sees only the clubs with a meeting inside one, then uploads a timetable and sees only the clubs
// with a meeting that clashes with none of its classes; a file that is not a timetable is said so
// on the page. The seed's meetings (campus clock UTC, the default):
//   chess Tue 19:00-21:30 and Sat 10-12; jazz Tue 18-20; robotics Wed 18-21; rock climbing Wed
//   18:30-20:30; hack club Wed 19-22; ballroom Mon and Thu 19-21; Société française Thu 17-18:30;
//   astronomy Fri 20-23; film Fri 19-22; garden Sat 9-12; board games Sat 18-22; esports Sun 15-18.

const TOKEN = 'site-fitting-admin-token'
const TIMEOUT = 120_000
const suite = process.env.SKIP_BROWSER_TESTS === '1' ? describe.skip : describe

/**
 * Weekly from January 2026, so every week the service checks (from its own today) holds them, on
 * the campus clock (no zone): weekdays 08:00-17:00, Saturday mornings, Wednesday 17:30-19:00,
 * Thursday 19:00-20:00, and 18:00-23:00 from Friday to Sunday.
 */
const TIMETABLE = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Example University//Timetable//EN',
  ...[
    ['classes', '20260105T080000', '20260105T170000', 'MO,TU,WE,TH,FR'],
    ['saturday-lab', '20260110T080000', '20260110T130000', 'SA'],
    ['tutorial', '20260107T173000', '20260107T190000', 'WE'],
    ['choir', '20260108T190000', '20260108T200000', 'TH'],
    ['practice', '20260109T180000', '20260109T230000', 'FR,SA,SU'],
  ].flatMap(([uid, start, end, days]) => [
    'BEGIN:VEVENT',
    `UID:${uid}@example.edu`,
    'DTSTAMP:20260101T000000Z',
    `DTSTART:${start}`,
    `DTEND:${end}`,
    `RRULE:FREQ=WEEKLY;BYDAY=${days}`,
    `SUMMARY:${uid}`,
    'END:VEVENT',
  ]),
  'END:VCALENDAR',
  '',
].join('\r\n')

suite('clubs that fit a week, in Chromium', () => {
  const site = browserSuite(TOKEN, 'clubs-fitting-', { timeout: TIMEOUT })

  it(
    'free times, then a timetable: only the clubs that fit, by keyboard at 375 px',
    async () => {
      const watched = await watchPage(site.browser, new URL(site.origin).host, NARROW)
      const { page } = watched
      await page.goto(`${site.origin}/`)
      await checkPage(page, watched.problems, 'directory')
      const names = async () => (await page.locator('.cards h3').allTextContents()).map((name) => name.trim()).sort()

      // Wednesday evening and Saturday morning.
      const first = page.getByRole('group', { name: 'Free time 1' })
      await first.getByLabel('Day').selectOption({ label: 'Wednesday' })
      await first.getByLabel('From').fill('18:00')
      await first.getByLabel('To').fill('21:00')
      const second = page.getByRole('group', { name: 'Free time 2' })
      await second.getByLabel('Day').selectOption({ label: 'Saturday' })
      await second.getByLabel('From').fill('09:00')
      await second.getByLabel('To').fill('12:00')
      await press(page, page.getByRole('button', { name: 'Show clubs' }))
      expect(new URL(page.url()).searchParams.get('free_day_1')).toBe('wed')
      expect(await names()).toEqual([
        'Campus Garden Cooperative',
        'Penn Chess Society',
        'Robotics Collective',
        'Rock Climbing Club',
      ])
      expect(await page.getByRole('heading', { name: '4 clubs found' }).isVisible()).toBe(true)
      // The form keeps what was chosen.
      expect(await page.getByRole('group', { name: 'Free time 2' }).getByLabel('From').inputValue()).toBe('09:00')
      await checkPage(page, watched.problems, 'directory with free times')

      // A time range the wrong way round is said, not a failure.
      await page.goto(`${site.origin}/?free_day_1=mon&free_from_1=21:00&free_to_1=18:00`)
      expect(await page.getByRole('alert').textContent()).toContain('the end must come after the start')

      // The timetable: its file chosen, the form sent by keyboard.
      await page.goto(`${site.origin}/`)
      await page
        .getByLabel('Upload your timetable (.ics)')
        .setInputFiles({ name: 'timetable.ics', mimeType: 'text/calendar', buffer: Buffer.from(TIMETABLE) })
      await press(page, page.getByRole('button', { name: 'Find clubs that fit' }))
      expect(new URL(page.url()).pathname).toBe('/timetable')
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Clubs that fit your timetable')
      expect(await names()).toEqual([
        'Ballroom Dance Team',
        'Esports League',
        'Hack Club',
        'Jazz Ensemble',
        'Penn Chess Society',
        'Société Française',
      ])
      expect(await page.getByRole('heading', { name: '6 clubs fit' }).isVisible()).toBe(true)
      // Each with only its meetings that fit: ballroom's Monday, not its Thursday; chess's Tuesday, not its Saturday.
      const ballroom = page.locator('.card', { hasText: 'Ballroom Dance Team' })
      expect(await ballroom.locator('.meetings li').allTextContents()).toEqual([expect.stringContaining('Monday')])
      const chess = page.locator('.card', { hasText: 'Penn Chess Society' })
      expect(await chess.locator('.meetings li').allTextContents()).toEqual([expect.stringContaining('Tuesday')])
      await checkPage(page, watched.problems, 'clubs that fit a timetable')

      // A file that is not a timetable: said on the page, with the form to try again.
      await page
        .getByLabel('Upload your timetable (.ics)')
        .setInputFiles({ name: 'notes.ics', mimeType: 'text/calendar', buffer: Buffer.from('my classes: maths, art') })
      const [answer] = await Promise.all([
        page.waitForResponse((res) => res.url().endsWith('/timetable')),
        page.getByRole('button', { name: 'Find clubs that fit' }).click(),
      ])
      expect(answer.status()).toBe(400)
      await page.waitForLoadState('load')
      expect(await page.getByRole('alert').textContent()).toContain('not an iCalendar file')
      expect(await page.locator('.cards').count()).toBe(0)
      // The browser logs the 400 itself; nothing else went wrong.
      expect(watched.problems.filter((problem) => !problem.includes('400'))).toEqual([])
      expect(offHost(watched)).toEqual([])
      await page.context().close()
    },
    TIMEOUT,
  )
})
