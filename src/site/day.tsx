/** @jsxImportSource preact */
// How the site writes days: one formatter each, made once.

const MEDIUM = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: 'UTC' })
const LONG = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' })

/** A moment (ISO 8601) as its day, "28 Nov 2026", in a <time> element. */
export const Day = ({ at }: { at: string }) => <time dateTime={at}>{MEDIUM.format(new Date(at))}</time>

/** A moment or a date (ISO 8601) written out: "28 November 2026". */
export const longDay = (at: string) => LONG.format(new Date(at))
