// Imports of bad rows only, as big as asked: what an import costs when it is refused (the memory
// bench/import-errors.ts reads, the turns test/import-turns.test.ts lets other requests take).

/** CSV rows just under `bytes`, each refused with a bad value in every column but its code. */
export function allInvalid(bytes: number): { body: string; rows: number } {
  const lines = ['code,name,size,website,founded,email,accepting_members,recruiting_cycle,image_url']
  let length = lines[0]!.length + 2
  for (let i = 0; ; i++) {
    const line = `bad-${i},,9,x,x,x,x,9,x`
    if (length + line.length + 2 > bytes) break
    lines.push(line)
    length += line.length + 2
  }
  return { body: lines.join('\r\n') + '\r\n', rows: lines.length - 1 }
}

/** The same as a JSON list of clubs: `rows` objects, `body` just under `bytes`. */
export function allInvalidJson(bytes: number): { body: string; rows: number } {
  const rows: string[] = []
  let length = 2
  for (let i = 0; ; i++) {
    const row = JSON.stringify({
      code: `bad-${i}`,
      ...{ name: '', size: 9, website: 'x', founded: 'x', email: 'x' },
      ...{ accepting_members: 'x', recruiting_cycle: 9, image_url: 'x' },
    })
    if (length + row.length + 1 > bytes) break
    rows.push(row)
    length += row.length + 1
  }
  return { body: `[${rows.join(',')}]`, rows: rows.length }
}
