import { CLUB_DEFAULTS, WEEKDAYS, type ClubRecord, type Meeting } from '../model/club'
import { SNAPSHOT_VERSION, type Snapshot } from '../model/snapshot'
import { emptySnapshot } from './seed'

/**
 * A generated campus (CLUBS_SEED_FILE=demo[:N], docs/reference.md §25): `count` plausible clubs, the same
 * ones for the same count (and the first clubs of a larger campus are those of a smaller one),
 * each approved, with a subtitle, a description, tags, meetings spread over the week and public
 * officers people can contact. Nothing random: every choice comes from the club's number.
 */
export function demoCampus(count: number): Snapshot {
  const tags = TAGS.map((name, i) => ({ id: i + 1, name }))
  const clubs: Snapshot['clubs'][number][] = []
  const memberships: NonNullable<Snapshot['memberships']>[number][] = []
  for (let i = 0; i < count; i++) {
    const club = demoClub(i)
    clubs.push(club.record)
    memberships.push(...club.officers)
  }
  return { ...emptySnapshot(), version: SNAPSHOT_VERSION, tags, clubs, memberships }
}

/** The colour a demo club's logo is drawn in, from its number. */
export const demoColour = (i: number) => COLOURS[hash(i, 7) % COLOURS.length]!

/** The initials a demo club's logo shows: the first letters of its name's first two words. */
export const initialsOf = (name: string) =>
  name
    .split(/\s+/)
    .filter((word) => /^[A-Z]/.test(word))
    .slice(0, 2)
    .map((word) => word[0])
    .join('')

const TAGS = [
  'Academic',
  'Arts',
  'Athletics',
  'Community Service',
  'Cultural',
  'Engineering',
  'Games',
  'Media',
  'Music',
  'Performing Arts',
  'Politics',
  'Pre-Professional',
  'Religious',
  'Science',
  'Social',
  'Sustainability',
  'Technology',
  'Wellness',
  'Writing',
  'Entrepreneurship',
]

/** What a club is about, the activity its description names, and its tags (by their index in TAGS, from 1). */
const SUBJECTS: readonly (readonly [string, string, readonly number[]])[] = [
  ['Chess', 'open play and tournament preparation', [7, 1]],
  ['Go', 'teaching games and weekend leagues', [7]],
  ['Robotics', 'building robots for regional competitions', [6, 17]],
  ['Rowing', 'early mornings on the river', [3, 18]],
  ['Jazz', 'big band rehearsals and small combos', [9, 10]],
  ['Film', 'screenings, discussions and short films of our own', [8, 2]],
  ['Debate', 'parliamentary debate against other campuses', [11, 1]],
  ['Photography', 'photo walks and darkroom nights', [2, 8]],
  ['Hiking', 'day hikes and weekend trips', [3, 18]],
  ['Climbing', 'bouldering sessions and outdoor trips', [3, 18]],
  ['Astronomy', 'telescope nights on the roof', [14, 1]],
  ['Poetry', 'readings, workshops and a yearly anthology', [19, 2]],
  ['Gardening', 'tending the campus plots', [16, 4]],
  ['Coding', 'hack nights and open-source projects', [17, 6]],
  ['Startup', 'pitch nights and founders’ talks', [20, 12]],
  ['Choir', 'four-part singing, two concerts a term', [9, 10]],
  ['Theatre', 'two productions a year, on stage and backstage', [10, 2]],
  ['Volunteering', 'weekly shifts at local charities', [4, 15]],
  ['Cycling', 'group rides and bike repair evenings', [3, 16]],
  ['Cooking', 'cooking together and sharing recipes from home', [5, 15]],
  ['Languages', 'conversation tables in a dozen languages', [5, 1]],
  ['Mathematics', 'problem sessions and competition training', [1, 14]],
  ['Economics', 'talks, case studies and a reading group', [1, 12]],
  ['Journalism', 'the weekly paper and its website', [8, 19]],
  ['Radio', 'shows on the campus station', [8, 9]],
  ['Dance', 'classes from salsa to hip hop', [10, 18]],
  ['Yoga', 'calm sessions for every level', [18]],
  ['Board Games', 'game nights with a library of three hundred games', [7, 15]],
  ['Sustainability', 'swap shops and energy challenges', [16, 4]],
  ['Medicine', 'shadowing, talks and exam preparation', [12, 14]],
  ['Law', 'moot court and talks by practitioners', [12, 11]],
  ['Architecture', 'model-making and city walks', [2, 6]],
  ['History', 'talks, archives and museum visits', [1, 19]],
  ['Philosophy', 'reading groups and open discussions', [1, 19]],
  ['Anime', 'screenings and drawing meet-ups', [5, 2]],
  ['Esports', 'teams, scrims and watch parties', [7, 17]],
  ['Sailing', 'lessons and regattas on the lake', [3]],
  ['Swimming', 'training sessions and open-water swims', [3, 18]],
  ['Fencing', 'foil, épée and sabre for beginners and competitors', [3]],
  ['Faith', 'weekly gatherings and community meals', [13, 15]],
]

const PREFIXES = [
  'Campus',
  'University',
  'Student',
  'Undergraduate',
  'Graduate',
  'Riverside',
  'Northside',
  'Eastgate',
  'Westfield',
  'Hillcrest',
  'Old Quad',
  'Lakeside',
]

const KINDS = ['Club', 'Society', 'Collective', 'Association', 'Circle', 'Team', 'Guild', 'Union']

const ADJECTIVES = ['Friendly', 'Serious', 'Curious', 'Relaxed', 'Ambitious', 'Welcoming', 'Lively', 'Thoughtful']

const PLACES = [
  'Student Union 101',
  'Library, Room 3',
  'Science Hall 210',
  'Arts Centre Studio B',
  'Sports Hall',
  'Old Quad Lounge',
  'Engineering Building 014',
  'Music Building 2',
]

const FIRST = [
  'alex',
  'sam',
  'priya',
  'tom',
  'mei',
  'omar',
  'lena',
  'jonas',
  'ana',
  'kofi',
  'yuki',
  'noor',
  'ravi',
  'ines',
]
const LAST = ['lind', 'okafor', 'raman', 'chen', 'garcia', 'novak', 'haddad', 'smith', 'kim', 'moreau', 'silva', 'berg']

const COLOURS = ['#1f6f8b', '#99582a', '#6a4c93', '#2b9348', '#c1121f', '#3a0ca3', '#bc6c25', '#0077b6', '#7b2cbf']

/** How many distinct names one round of prefixes, subjects and kinds makes. */
const COMBINATIONS = PREFIXES.length * SUBJECTS.length * KINDS.length
/** A stride coprime with COMBINATIONS: neighbouring clubs get far-apart names. */
const STRIDE = 7919

/** A small integer hash of a club's number and a salt, the source of every choice. */
function hash(i: number, salt: number): number {
  let h = Math.imul(i + 1, 0x9e3779b1) ^ Math.imul(salt + 1, 0x85ebca77)
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d)
  h = Math.imul(h ^ (h >>> 12), 0x297a2d39)
  return (h ^ (h >>> 15)) >>> 0
}

const pick = <T>(list: readonly T[], i: number, salt: number): T => list[hash(i, salt) % list.length]!

/** The club numbered `i` (from 0), with its officers. */
function demoClub(i: number) {
  const j = ((i % COMBINATIONS) * STRIDE) % COMBINATIONS
  const round = Math.floor(i / COMBINATIONS)
  const prefix = PREFIXES[j % PREFIXES.length]!
  const [subject, activity, tagIds] = SUBJECTS[Math.floor(j / PREFIXES.length) % SUBJECTS.length]!
  const kind = KINDS[Math.floor(j / (PREFIXES.length * SUBJECTS.length))]!
  const name = `${prefix} ${subject} ${kind}${round ? ` ${round + 1}` : ''}`
  const code = name
    .toLowerCase()
    .normalize('NFD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
  const at = new Date(Date.UTC(2025, 7, 25, 9) + i * 60_000).toISOString()
  const meetings: Meeting[] = Array.from({ length: 1 + (hash(i, 1) % 2) }, (_, k) => {
    const hour = 8 + (hash(i, 10 + k) % 12)
    return {
      day: WEEKDAYS[(hash(i, 2) + k * 3) % WEEKDAYS.length]!,
      start: `${String(hour).padStart(2, '0')}:00`,
      end: `${String(hour + 1 + (hash(i, 20 + k) % 2)).padStart(2, '0')}:30`,
      location: pick(PLACES, i, 3 + k),
      note: k === 0 ? 'Everyone welcome' : 'Beginners’ session',
    }
  })
  const people = [0, 1].map((k) => `${pick(FIRST, i, 30 + k)}.${pick(LAST, i, 40 + k)}${i}`)
  const record: ClubRecord = {
    ...CLUB_DEFAULTS,
    code,
    name,
    subtitle: `${pick(ADJECTIVES, i, 4)} ${subject.toLowerCase()} for everyone on campus`,
    description: `The ${name} brings students together for ${activity}. No experience needed: come to a meeting and say hello.`,
    email: `${code}@clubs.example.edu`,
    address: meetings[0]!.location,
    accepting_members: hash(i, 5) % 5 !== 0,
    application_required: 1 + (hash(i, 6) % 3),
    available_virtually: hash(i, 8) % 3 === 0,
    founded: `${1950 + (hash(i, 9) % 75)}-09-01`,
    recruiting_cycle: 1 + (hash(i, 11) % 4),
    size: 1 + (hash(i, 12) % 4),
    how_to_get_involved: `Come to a meeting, or write to ${code}@clubs.example.edu.`,
    tags: [...tagIds],
    approved: true,
    approved_by: 'admin',
    approved_comment: '',
    approved_on: at,
    favorite_count: hash(i, 13) % 200,
    membership_count: 2,
    created_at: at,
    updated_at: at,
    archived_at: null,
    approved_version: null,
    last_confirmed_on: null,
    meetings,
  }
  const officers = people.map((username, k) => ({
    club: code,
    username,
    role: k === 0 ? ('owner' as const) : ('officer' as const),
    title: k === 0 ? 'President' : 'Secretary',
    public: true,
  }))
  return { record, officers }
}
