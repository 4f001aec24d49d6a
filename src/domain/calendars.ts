import { createHash, createHmac } from 'node:crypto'
import { ANONYMOUS, requireUser, type Caller } from './caller'
import type { ClubService } from './clubs'
import { NotFound } from './errors'
import { calendarText, type WeeklyEvent } from './icalendar'
import type { Commit } from './journal'
import type { LinkSet } from './relations'
import { newToken, sha256 } from './user-directory'
import { ADMIN_USERNAME, type UserService } from './users'
import { WEEKDAYS, type ClubRecord, type Meeting } from '../model/club'
import type { UserRecord } from '../model/user'

/**
 * How many years past this one a feed's time zone changes are written out: its weekly events go on
 * without end, and a calendar app reads their hours from these changes, not from its own data.
 */
const YEARS_AHEAD = 10

/** Where a calendar is served from: its clubs' pages are under `origin`, its event UIDs name `host`. */
export interface Site {
  readonly origin: string
  readonly host: string
}

export interface CalendarOptions {
  /** The campus time zone (CLUBS_TIMEZONE), an IANA name. */
  readonly timeZone: string
  /**
   * The service's secret key (kept apart from the data file): a user's address token is derived
   * from it and a random nonce the data file keeps, so the address can be shown again while the
   * data file holds only the token's SHA-256.
   */
  readonly key: Uint8Array
  readonly commit: Commit
  readonly now: () => Date
}

/** The query parameters the directory's calendar takes; the list's others do not apply. */
const DIRECTORY_PARAMETERS = ['tags', 'code'] as const

/**
 * Clubs' meetings as calendars (docs/reference.md §21): one club's, the public directory's, and a user's
 * favorites' at a secret address whose token is kept only as its SHA-256.
 */
export class CalendarService {
  readonly #dayFormat: Intl.DateTimeFormat

  constructor(
    private readonly clubs: ClubService,
    private readonly favorites: LinkSet,
    private readonly users: UserService,
    private readonly options: CalendarOptions,
  ) {
    this.#dayFormat = new Intl.DateTimeFormat('en-US', {
      timeZone: options.timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    })
  }

  /** Grows whenever anyone's secret address could have changed (a page showing one stays valid until it moves). */
  get version(): number {
    return this.users.directory.version
  }

  /** The meetings of club `code`, for anyone who may see it (404 otherwise). */
  ofClub(caller: Caller, code: string, site: Site): string {
    const club = this.clubs.retrieve(caller, code)
    return this.#text(`${club.name}: meetings`, [club], site)
  }

  /** Every public club's meetings, or those of `tags=` and `code=`, by code. */
  ofDirectory(params: URLSearchParams, site: Site): string {
    const taken = new URLSearchParams({ ordering: 'code' })
    for (const name of DIRECTORY_PARAMETERS) {
      const value = params.get(name)
      if (value !== null) taken.set(name, value)
    }
    const { records } = this.clubs.list(ANONYMOUS, this.clubs.parseQuery(taken))
    return this.#text('Club meetings', records, site)
  }

  /** The user whose calendar's secret address holds `token`: 404 for any other token, and for a disabled user. */
  holderOf(token: string): UserRecord {
    const user = this.users.directory.byCalendarToken(token)
    if (!user || user.is_active === false) throw new NotFound()
    return user
  }

  /** The meetings of `user`'s favorite clubs, as they may see them, by code. */
  ofFavorites(user: UserRecord, site: Site): string {
    const caller: Caller = { username: user.username, isAdmin: user.is_admin }
    const records = [...this.favorites.clubsOf(user.username)]
      .sort()
      .flatMap((code) => this.clubs.shownTo(caller, code) ?? [])
    return this.#text(`${user.username}: my clubs' meetings`, records, site)
  }

  /**
   * The token of the caller's secret address: the one they have, derived again from the key and
   * its nonce, or a new one when they have none (or the key it was made with is gone).
   */
  async token(caller: Caller): Promise<string> {
    return this.current(caller) ?? this.replace(caller)
  }

  /** The token of the caller's secret address as it stands, or null when they have none (nothing is made). */
  current(caller: Caller): string | null {
    const { username } = requireUser(caller)
    const record = this.users.directory.get(username)
    if (record?.calendar_nonce && record.calendar_sha256) {
      const token = this.#derive(username, record.calendar_nonce)
      if (sha256(token) === record.calendar_sha256) return token
    }
    return null
  }

  /** A new token for the caller's secret address; the previous address is a 404 from now on. */
  async replace(caller: Caller): Promise<string> {
    const { username } = requireUser(caller)
    const nonce = newToken()
    const token = this.#derive(username, nonce)
    const directory = this.users.directory
    const previous = directory.get(username)
    // The bootstrap admin may have no record: CLUBS_ADMIN_TOKEN, not the data file, is their token.
    const record: UserRecord = previous ?? {
      username,
      is_admin: username === ADMIN_USERNAME,
      token_sha256: null,
      created_at: this.options.now().toISOString(),
    }
    await this.options.commit(() => {
      directory.put({ ...record, calendar_nonce: nonce, calendar_sha256: sha256(token) })
      return () => (previous ? directory.put(previous) : directory.remove(username))
    })
    return token
  }

  #derive(username: string, nonce: string): string {
    return createHmac('sha256', this.options.key).update(`calendar\n${username}\n${nonce}`).digest('base64url')
  }

  #text(name: string, clubs: readonly ClubRecord[], site: Site): string {
    const events = clubs.flatMap((club) => this.#eventsOf(club, site))
    const starts = events.map(({ date }) => Number(date.slice(0, 4)))
    const thisYear = this.options.now().getUTCFullYear()
    const years = { from: Math.min(thisYear, ...starts), to: thisYear + YEARS_AHEAD }
    return calendarText({ name, timeZone: this.options.timeZone, events, years })
  }

  /** The date in the campus time zone at an ISO date-time, YYYY-MM-DD. */
  #dayOf(iso: string): string {
    const parts = Object.fromEntries(
      this.#dayFormat.formatToParts(new Date(iso)).map(({ type, value }) => [type, value]),
    )
    return `${parts.year}-${parts.month}-${parts.day}`
  }

  /**
   * A weekly event per meeting, first on its day at or after the day the club was made (so the
   * text stays the same from request to request), its UID made of what it is, so that an edited
   * meeting is a new event and an unchanged one keeps its UID whatever else changes.
   */
  #eventsOf(club: ClubRecord, site: Site): WeeklyEvent[] {
    const made = this.#dayOf(club.created_at)
    const url = `${site.origin}/clubs/${club.code}`
    const seen = new Map<string, number>()
    return club.meetings.map((meeting) => {
      const hash = meetingHash(meeting)
      const count = (seen.get(hash) ?? 0) + 1
      seen.set(hash, count)
      return {
        uid: `${club.code}-${hash}${count > 1 ? `-${count}` : ''}@${site.host}`,
        stamp: club.updated_at,
        date: firstOnOrAfter(made, meeting.day),
        start: meeting.start,
        end: meeting.end,
        summary: club.name,
        location: meeting.location,
        description: meeting.note ? `${meeting.note}\n\n${url}` : url,
        url,
      }
    })
  }
}

const meetingHash = ({ day, start, end, location, note }: Meeting) =>
  createHash('sha256')
    .update(JSON.stringify([day, start, end, location, note]))
    .digest('hex')
    .slice(0, 16)

/** The first `day` on or after `date` (YYYY-MM-DD). */
function firstOnOrAfter(date: string, day: Meeting['day']): string {
  const at = new Date(`${date}T00:00:00Z`)
  // getUTCDay counts from Sunday; WEEKDAYS from Monday.
  const wanted = (WEEKDAYS.indexOf(day) + 1) % 7
  at.setUTCDate(at.getUTCDate() + ((wanted - at.getUTCDay() + 7) % 7))
  return at.toISOString().slice(0, 10)
}
