// Webhook receivers for bench/webhook-fanout.ts, in a process of their own so that answering them
// takes nothing from the client whose writes are timed: `bun bench/webhook-receivers.ts N` starts
// N servers on loopback, prints their ports as one JSON line, then one line per event received:
// the subtitle the write set, and when it arrived (epoch milliseconds, comparable across processes).
const receivers = Array.from({ length: Number(process.argv[2] ?? 50) }, () =>
  Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const { club } = (await request.json()) as { club: { subtitle: string } }
      console.log(JSON.stringify([club.subtitle, performance.timeOrigin + performance.now()]))
      return new Response(null, { status: 204 })
    },
  }),
)
console.log(JSON.stringify(receivers.map((receiver) => receiver.port)))
