// The ceiling for our runtime: a minimal Bun.serve answering GET with the exact bytes the
// service returned for its list, as fast as Bun can: a static route for "/" (what wrk asks
// for), and one shared Blob for any other GET.
//   bun bench/ceiling.ts <list body file> <port>
const [file, port] = Bun.argv.slice(2)
if (!file || !port) throw new Error('usage: bun bench/ceiling.ts <list body file> <port>')
const body = new Blob([await Bun.file(file).bytes()])
const headers = { 'Content-Type': 'application/json' }

Bun.serve({
  hostname: '127.0.0.1',
  port: Number(port),
  routes: { '/': new Response(body, { headers }) },
  fetch: (request) =>
    request.method === 'GET' ? new Response(body, { headers }) : new Response(null, { status: 405 }),
})

export {}
