// A club as spreadsheet cells and back (src/domain/cells.ts, docs/reference.md §15): what an export writes
// in a cell, and what an imported cell means for its column.
import { describe, expect, test } from 'bun:test'
import { defuse, fromCell, isWritableColumn, tableOf, toCell, undefuse, xmlCell } from '../src/domain/cells'

describe('defuse: no spreadsheet takes an exported text for a formula', () => {
  const rows: { text: string; cell: string }[] = [
    { text: '=1+2', cell: "'=1+2" },
    { text: '+1', cell: "'+1" },
    { text: '-1', cell: "'-1" },
    { text: '@SUM(A1)', cell: "'@SUM(A1)" },
    { text: '\tcmd', cell: "'\tcmd" },
    { text: '\rcmd', cell: "'\rcmd" },
    { text: 'a=1', cell: 'a=1' },
    { text: ' =1', cell: ' =1' },
    { text: '', cell: '' },
    { text: "'Til Dawn", cell: "'Til Dawn" },
    // A text whose quotes come before a formula character gets one more, so that import gives it back.
    { text: "'=1", cell: "''=1" },
    { text: "''-x", cell: "'''-x" },
  ]
  test.each(rows)('$text → $cell', ({ text, cell }) => {
    expect(defuse(text)).toBe(cell)
    expect(undefuse(cell)).toBe(text)
  })

  test.each(["'Til Dawn", "'", "''", "'a=1", 'x', "'\n="])('leaves "%s" alone on import', (cell) => {
    expect(undefuse(cell)).toBe(cell)
  })
})

describe('toCell: values of a representation as cells', () => {
  const rows: { value: unknown; cell: string | number }[] = [
    { value: true, cell: 'true' },
    { value: false, cell: 'false' },
    { value: null, cell: '' },
    { value: 0, cell: 0 },
    { value: 143, cell: 143 },
    { value: 'Chess', cell: 'Chess' },
    { value: '=HYPERLINK("x")', cell: '\'=HYPERLINK("x")' },
    {
      value: [
        { id: 7, name: 'Games' },
        { id: 1, name: 'Academic' },
      ],
      cell: 'Games; Academic',
    },
    { value: [], cell: '' },
    { value: [{ id: 9, name: '-Minus' }], cell: "'-Minus" },
    { value: { name: 'X', approved_by: 'admin' }, cell: '{"name":"X","approved_by":"admin"}' },
    {
      value: [{ day: 'monday', start: '18:00', end: '20:00', location: '', note: '' }],
      cell: '[{"day":"monday","start":"18:00","end":"20:00","location":"","note":""}]',
    },
  ]
  test.each(rows)('%p', ({ value, cell }) => {
    expect(toCell(value)).toBe(cell)
  })

  test('a table is a header row naming the columns, then a row per item in their order', () => {
    const items = [
      { code: 'a', name: '=a', active: true },
      { code: 'b', name: 'B', active: false },
    ]
    expect(tableOf(['name', 'code'], items)).toEqual([
      ['name', 'code'],
      ["'=a", 'a'],
      ['B', 'b'],
    ])
  })
})

describe('xmlCell: a cell as an XLSX file can hold it', () => {
  const rows: { cell: string | number; xml: string | number }[] = [
    { cell: 'Chess', xml: 'Chess' },
    { cell: 143, xml: 143 },
    // What XML 1.0 holds stays: tab, LF, CR, the rest of the BMP but U+FFFE/U+FFFF, surrogate pairs.
    { cell: 'a\tb\nc\rd', xml: 'a\tb\nc\rd' },
    { cell: 'Société 日本語 \uFFFD \uE000 \u{1F600}', xml: 'Société 日本語 \uFFFD \uE000 \u{1F600}' },
    // What it does not hold is dropped.
    { cell: 'a\u0000b\u0001c\u0008d\u000Be\u000Cf\u000Eg\u001Fh', xml: 'abcdefgh' },
    { cell: 'Room\uFFFE 1\uFFFF', xml: 'Room 1' },
    { cell: 'lone \uD800 high, lone \uDC00 low, reversed \uDC00\uD800', xml: 'lone  high, lone  low, reversed ' },
    { cell: '\uFFFF\u0000', xml: '' },
    // Defused again for what is left: a formula once the rest is dropped gets its `'`, and one already defused no second.
    { cell: '\u0001=1+2', xml: "'=1+2" },
    { cell: "'=1+2\uFFFF", xml: "'=1+2" },
    { cell: "'\uFFFF=1+2", xml: "''=1+2" },
    { cell: "\u0000'-x", xml: "''-x" },
  ]
  test.each(rows)('%p', ({ cell, xml }) => {
    expect(xmlCell(cell)).toBe(xml)
  })
})

describe('fromCell: what an imported cell means in its column', () => {
  const rows: { column: string; cell: string; value: unknown }[] = [
    { column: 'name', cell: 'Chess', value: 'Chess' },
    { column: 'name', cell: "'=1+2", value: '=1+2' },
    { column: 'subtitle', cell: '', value: '' },
    { column: 'email', cell: '', value: '' },
    { column: 'website', cell: '', value: null },
    { column: 'founded', cell: '', value: null },
    { column: 'founded', cell: '1902-10-14', value: '1902-10-14' },
    { column: 'image_url', cell: 'https://x.example/a.png', value: 'https://x.example/a.png' },
    { column: 'accepting_members', cell: 'true', value: true },
    { column: 'accepting_members', cell: 'FALSE', value: false },
    { column: 'accepting_members', cell: ' True ', value: true },
    { column: 'accepting_members', cell: '', value: undefined }, // left as it is
    { column: 'accepting_members', cell: 'yes', value: 'yes' }, // for the club's checks to refuse
    { column: 'approved', cell: 'false', value: false },
    { column: 'size', cell: '3', value: 3 },
    { column: 'size', cell: ' 2 ', value: 2 },
    { column: 'size', cell: '', value: undefined },
    { column: 'size', cell: 'big', value: 'big' },
    { column: 'size', cell: '1.5', value: '1.5' },
    { column: 'tags', cell: 'Games; Academic', value: [{ name: 'Games' }, { name: 'Academic' }] },
    { column: 'tags', cell: 'Games;Academic; ', value: [{ name: 'Games' }, { name: 'Academic' }] },
    { column: 'tags', cell: '', value: [] },
    { column: 'tags', cell: "'-Minus", value: [{ name: '-Minus' }] },
    { column: 'meetings', cell: '', value: [] },
    { column: 'meetings', cell: '[{"day":"friday"}]', value: [{ day: 'friday' }] },
    { column: 'meetings', cell: 'friday', value: 'friday' }, // for the club's checks to refuse
  ]
  test.each(rows)('$column: "$cell"', ({ column, cell, value }) => {
    expect(fromCell(column, cell)).toEqual(value)
  })

  test('the writable columns are the fields of a PATCH; read-only ones are not', () => {
    for (const column of ['name', 'code', 'tags', 'approved', 'approved_comment', 'email_public', 'youtube'])
      expect(isWritableColumn(column)).toBe(true)
    for (const column of ['favorite_count', 'is_member', 'created_at', 'updated_at', 'approved_by', 'colour'])
      expect(isWritableColumn(column)).toBe(false)
  })

  test('every exported value reads back as itself', () => {
    const values: [string, unknown][] = [
      ['name', '=cmd'],
      ['subtitle', "''+x"],
      ['accepting_members', true],
      ['size', 4],
      ['website', null],
      ['founded', '2001-01-01'],
      ['tags', [{ name: '@home' }, { name: 'Games' }]],
    ]
    for (const [column, value] of values) {
      const cell = toCell(column === 'tags' ? (value as { name: string }[]).map((t, id) => ({ id, ...t })) : value)
      expect(fromCell(column, String(cell))).toEqual(value)
    }
  })
})
