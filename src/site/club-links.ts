/** A club's links, in the order pages show them, with their names. */
export const CLUB_LINKS = [
  ['website', 'Website'],
  ['facebook', 'Facebook'],
  ['instagram', 'Instagram'],
  ['twitter', 'X (Twitter)'],
  ['linkedin', 'LinkedIn'],
  ['github', 'GitHub'],
  ['youtube', 'YouTube'],
] as const
