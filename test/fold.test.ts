// fold (src/domain/code.ts): case and accents fold away, so that names sort and search as a person
// reads them. Each row is a text and what it folds to; ASCII takes a shorter way, to the same answer.
import { expect, test } from 'bun:test'
import { fold } from '../src/domain/code'

const ROWS: [string, string][] = [
  ['', ''],
  ['chess', 'chess'],
  ['Penn Chess Society 626', 'penn chess society 626'],
  ['Open play,\nALL levels!', 'open play,\nall levels!'],
  ['Société', 'societe'],
  ['CAFÉ Português', 'cafe portugues'],
  ['Ñandú', 'nandu'],
  ['ﬁre', 'fire'], // a compatibility ligature decomposes
  ['Ελληνικά', 'ελληνικα'],
  ['日本語 Club', '日本語 club'],
]

test.each(ROWS)('%j folds to %j', (text, folded) => {
  expect(fold(text)).toBe(folded)
})
