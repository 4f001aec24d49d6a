/** @jsxImportSource preact */

/** A date-time as the office reads it: "2026-11-22 12:00 UTC". */
export const When = ({ at }: { at: string }) => <time dateTime={at}>{`${at.slice(0, 16).replace('T', ' ')} UTC`}</time>
