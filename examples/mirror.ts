// A mirror of the club directory: list every club once, then follow the change stream from the
// number the list answer carries; it misses nothing (docs/reference.md §18).
// `npx bun examples/mirror.ts [N]` stops after N changes.
const base = process.env.BASE ?? 'http://localhost:3000'
let left = Number(process.argv[2] ?? Infinity)
const clubs = new Map<string, unknown>()
const listed = await fetch(`${base}/api/clubs/`)
for (const club of await listed.json()) clubs.set(club.code, club)
console.log(`${clubs.size} clubs, as of change ${listed.headers.get('X-Changes-Seq')}`)
const stream = await fetch(`${base}/api/changes/stream?since=${listed.headers.get('X-Changes-Seq')}`)
let buffer = ''
for await (const text of stream.body!.pipeThrough(new TextDecoderStream())) {
  buffer += text
  for (let end; (end = buffer.indexOf('\n\n')) >= 0; buffer = buffer.slice(end + 2)) {
    const data = buffer.slice(0, end).match(/^data: (.*)$/m)?.[1]
    if (!data) continue // a heartbeat
    const change = JSON.parse(data)
    if (change.type === 'club.removed') clubs.delete(change.code)
    else clubs.set(change.code, change.club)
    console.log(`${change.seq} ${change.type} ${change.code}: ${clubs.size} clubs`)
    if (--left === 0) process.exit(0)
  }
}
