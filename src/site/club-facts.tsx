/** @jsxImportSource preact */
import type { ComponentChildren } from 'preact'
import {
  APPLICATION_REQUIRED,
  RECRUITING_CYCLES,
  SIZES,
  type ClubDetail,
  type Meeting,
  type Weekday,
} from '../model/club'
import { longDay } from './day'

const DAY_NAMES: Readonly<Record<Weekday, string>> = {
  monday: 'Monday',
  tuesday: 'Tuesday',
  wednesday: 'Wednesday',
  thursday: 'Thursday',
  friday: 'Friday',
  saturday: 'Saturday',
  sunday: 'Sunday',
}

/** When a club meets, its clock named: "Every Tuesday, 18:00–20:00 (America/New_York)". */
export const meetingTime = (meeting: Meeting, timeZone: string) =>
  `Every ${DAY_NAMES[meeting.day]}, ${meeting.start}–${meeting.end} (${timeZone})`

/** A club's meetings, each its time, place and note (the club page's and the poster's). */
export const MeetingList = ({ meetings, timeZone }: { meetings: readonly Meeting[]; timeZone: string }) => (
  <ul class="meetings">
    {meetings.map((meeting) => (
      <li>
        <strong>{meetingTime(meeting, timeZone)}</strong>
        {meeting.location && <> · {meeting.location}</>}
        {meeting.note && <span class="help"> — {meeting.note}</span>}
      </li>
    ))}
  </ul>
)

const yesNo = (value: boolean) => (value ? 'Yes' : 'No')

/** An address that is a web address (a club that meets online) is a link; any other is text. */
function Address({ address }: { address: string }) {
  if (!/^https?:\/\//i.test(address) || !URL.canParse(address)) return <>{address}</>
  return (
    <a href={address} rel="noopener noreferrer">
      {address}
    </a>
  )
}

/** A coded value's label: the representation types a code as any integer, the table has its own. */
const labelOf = (codes: Readonly<Record<number, string>>, code: number) => codes[code]

/**
 * The club's public facts (docs/reference.md §22): coded values by the labels the API documents for them
 * (the tables of src/model/club.ts, which the OpenAPI document's enum descriptions come from).
 */
export function ClubFacts({ club }: { club: ClubDetail }) {
  const facts: (readonly [string, ComponentChildren] | null)[] = [
    club.address ? ['Address', <Address address={club.address} />] : null,
    ['Size', `${labelOf(SIZES, club.size)} members`],
    ['How to join', labelOf(APPLICATION_REQUIRED, club.application_required)],
    ['Recruiting cycle', labelOf(RECRUITING_CYCLES, club.recruiting_cycle)],
    club.founded ? ['Founded', <time dateTime={club.founded}>{longDay(club.founded)}</time>] : null,
    ['Meets online', yesNo(club.available_virtually)],
    ['Appointment needed', yesNo(club.appointment_needed)],
  ]
  return (
    <section aria-labelledby="facts">
      <h2 id="facts">At a glance</h2>
      <dl class="facts">
        {facts.map(
          (fact) =>
            fact && (
              <>
                <dt>{fact[0]}</dt>
                <dd>{fact[1]}</dd>
              </>
            ),
        )}
      </dl>
    </section>
  )
}
