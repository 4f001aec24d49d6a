// Webhook receivers for bench/webhook-fanout.ts, in a process of their own so that answering them
// takes nothing from the client whose writes are timed: `npx bun bench/webhook-receivers.ts N` starts
// N servers on loopback and prints, as one JSON line, their ports and the port of a control server
// whose GET /arrivals answers (and forgets) every event received so far: the subtitle the write
// set, and when it arrived (epoch milliseconds, comparable across processes). Arrivals are asked
// for between rounds, never reported one by one: fifty lines a write for the client to read would
// slow the very client that times the writes, and only while webhooks are on.
const SUBTITLE = '"subtitle":"'
let arrivals: [string, number][] = []
const receivers = Array.from({ length: Number(process.argv[2] ?? 50) }, () =>
  Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      // The subtitle found, not the body parsed: these stand for machines elsewhere, and should take little of this one.
      const body = await request.text()
      const start = body.indexOf(SUBTITLE) + SUBTITLE.length
      arrivals.push([body.slice(start, body.indexOf('"', start)), performance.timeOrigin + performance.now()])
      return new Response(null, { status: 204 })
    },
  }),
)
const control = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch() {
    const answer = Response.json(arrivals)
    arrivals = []
    return answer
  },
})
console.log(JSON.stringify({ ports: receivers.map((receiver) => receiver.port), control: control.port }))
