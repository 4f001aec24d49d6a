import { describe, expect, it } from 'bun:test'
import { Prepared } from '../src/edge/prepared'

// A list answer is written item by item into one buffer (src/edge/prepared.ts fromJsonItems): its
// bytes, length and ETag must be those of the same text made whole, whatever its characters.

const rows: { name: string; head: string; items: string[]; tail: string }[] = [
  { name: 'an empty list', head: '[', items: [], tail: ']' },
  { name: 'one item', head: '[', items: ['{"code":"chess"}'], tail: ']' },
  { name: 'items joined by commas', head: '[', items: ['1', '{"a":2}', '"three"'], tail: ']' },
  {
    name: 'accents, scripts beyond Latin-1 and astral characters, in items and around them',
    head: '{"next":"/é","results":[',
    items: ['{"name":"Café Society"}', '{"name":"围棋社"}', '{"name":"Chess ♞ 🎲"}', '"\\u0000"'],
    tail: '],"note":"ñ"}',
  },
  { name: 'a page', head: '{"count":3,"next":null,"previous":null,"results":[', items: ['1', '2', '3'], tail: ']}' },
]

describe('Prepared.fromJsonItems', () => {
  for (const { name, head, items, tail } of rows)
    it(`${name}: the bytes and ETag of the text made whole`, async () => {
      const whole = `${head}${items.join(',')}${tail}`
      const built = Prepared.fromJsonItems(head, items, tail)
      const made = Prepared.file(new TextEncoder().encode(whole), 'application/json')
      expect(await built.text()).toBe(whole)
      expect(built.body.size).toBe(Buffer.byteLength(whole))
      expect(built.etag).toBe(made.etag)
      expect(built.body.type).toBe(made.body.type)
    })

  it('gives different lists different ETags', () => {
    expect(Prepared.fromJsonItems('[', ['1', '2'], ']').etag).not.toBe(
      Prepared.fromJsonItems('[', ['2', '1'], ']').etag,
    )
  })
})
