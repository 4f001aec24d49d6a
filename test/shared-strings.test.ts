// shareStrings (src/store/shared-strings.ts): a parsed data file's equal strings become one
// string in place, and nothing else changes. Each row is a JSON text; after sharing, the tree
// says exactly what it said, key order included.
import { expect, test } from 'bun:test'
import { shareStrings } from '../src/store/shared-strings'

const ROWS: [string, string][] = [
  ['an empty object', '{}'],
  ['no strings', '{"version":2,"changes_seq":7,"on":true,"off":false,"none":null}'],
  ['an equal value under two keys', '{"created_at":"2024-02-07","updated_at":"2024-02-07"}'],
  ['equal values across records', '{"clubs":[{"by":"admin","day":"tue"},{"by":"admin","day":"wed"},{"by":"admin"}]}'],
  ['strings in arrays, nested', '[["a","b","a"],[["b"],"c"],{"a":["a",null,1,"a"]}]'],
  ['a value equal to a key', '{"name":"name","code":"name"}'],
  ['accents and other scripts', '{"x":["Société","société","Société","日本語","日本語",""]}'],
  ['empty strings', '{"a":"","b":["",""],"c":{"d":""}}'],
]

test.each(ROWS)('%s: the tree is unchanged', (_, text) => {
  const tree = JSON.parse(text) as object
  shareStrings(tree)
  expect(JSON.stringify(tree)).toBe(JSON.stringify(JSON.parse(text)))
})
