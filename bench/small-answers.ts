// Issue 18's rows: the small answers browsers and clients ask for most, from OURS with the access
// log on as deployed (CLUBS_LOG_LEVEL=info, to a file), each beside a bare Bun.serve returning the
// very same status, headers and bytes (gzip, 304, 404).
//
// These answers take microseconds, so a shared machine's noise moves their figures by a fifth from
// one run to the next. Every server stays up and the runs alternate, OURS then its ceiling, for
// ROUNDS rounds; each keeps its best run (noise only ever takes throughput away).
import { join } from 'node:path'
import { measure, settler, type Measured, type Recorder } from './measure'
import sharp from 'sharp'
import { ADMIN_TOKEN, startAnswerCeiling, startOurs, type Server } from './servers'

const ROUNDS = 3

interface Answer {
  readonly key: string
  readonly label: string
  readonly path: string
  readonly headers: Record<string, string>
  /** The status (and Content-Encoding) the answer must have: what the row is about. */
  readonly status: number
  readonly gzip: boolean
}

/** What OURS answers `path` with `headers`: status, headers (less the per-answer ones) and bytes. */
async function record(base: string, { path, headers }: Answer) {
  const res = await fetch(base + path, { headers, decompress: false } as RequestInit)
  const kept: Record<string, string> = {}
  res.headers.forEach((value, name) => {
    if (name !== 'date' && name !== 'content-length') kept[name] = value
  })
  return { status: res.status, headers: kept, body: Buffer.from(await res.arrayBuffer()).toString('base64') }
}

/** Gives club `code` a logo (a 512 px PNG made here) and answers its URL. */
async function uploadLogo(base: string, code: string): Promise<string> {
  const png = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#1f5fa8' } })
    .png()
    .toBuffer()
  const res = await fetch(`${base}/api/clubs/${code}/logo/`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    body: png,
  })
  if (res.status !== 200) throw new Error(`the logo upload answered ${res.status}: ${await res.text()}`)
  return ((await res.json()) as { image_url: string }).image_url
}

export async function benchSmallAnswers(size: number, dataSet: string, tmp: string, rec: Recorder): Promise<void> {
  const server = await startOurs(dataSet, join(tmp, `small-${size}-ours.json`), 'info')
  const list = (await (await fetch(`${server.base}/api/clubs/`)).json()) as { code: string }[]
  const code = list[Math.floor(list.length / 2)]!.code
  // First, since a new logo is a change of the data, which gives the list a new ETag.
  const logo = await uploadLogo(server.base, code)
  const etag = (await fetch(`${server.base}/api/clubs/`, { headers: { 'Accept-Encoding': 'gzip' } })).headers.get(
    'etag',
  )!
  const answers: Answer[] = [
    {
      key: 'small-retrieve-gzip',
      label: 'one club, gzip',
      path: `/api/clubs/${code}/`,
      headers: { 'Accept-Encoding': 'gzip' },
      status: 200,
      gzip: true,
    },
    {
      key: 'small-list-gzip',
      label: 'the list, gzip',
      path: '/api/clubs/',
      headers: { 'Accept-Encoding': 'gzip' },
      status: 200,
      gzip: true,
    },
    {
      key: 'small-list-304',
      label: 'the list, 304',
      path: '/api/clubs/',
      headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': etag },
      status: 304,
      gzip: false,
    },
    {
      key: 'small-logo-64',
      label: 'a logo’s 64 px thumbnail',
      path: `${new URL(logo).pathname}?size=64`,
      headers: {},
      status: 200,
      gzip: false,
    },
    {
      key: 'small-404',
      label: 'an unknown club, 404',
      path: '/api/clubs/no-such-club/',
      headers: {},
      status: 404,
      gzip: false,
    },
  ]
  const ceilings: Server[] = []
  try {
    for (const answer of answers) {
      const file = join(tmp, `small-${size}-${answer.key}.json`)
      const recorded = await record(server.base, answer)
      if (recorded.status !== answer.status || (recorded.headers['content-encoding'] === 'gzip') !== answer.gzip)
        throw new Error(
          `${answer.label}: OURS answered ${recorded.status} ${recorded.headers['content-encoding'] ?? ''}`,
        )
      await Bun.write(file, JSON.stringify(recorded))
      ceilings.push(await startAnswerCeiling(file))
    }
    const best = (runs: Measured[]) => runs.reduce((a, b) => (b.rps > a.rps ? b : a))
    const ours: Measured[][] = answers.map(() => [])
    const ceiling: Measured[][] = answers.map(() => [])
    for (let round = 0; round < ROUNDS; round++)
      for (const [i, answer] of answers.entries()) {
        const bare = ceilings[i]!
        ours[i]!.push(
          await measure(
            server.child.pid,
            () => ({ url: server.base + answer.path, headers: answer.headers }),
            settler(`${server.base}/health`),
          ),
        )
        ceiling[i]!.push(
          await measure(
            bare.child.pid,
            () => ({ url: `${bare.base}/`, headers: answer.headers }),
            settler(`${bare.base}/ready`),
          ),
        )
      }
    for (const [i, answer] of answers.entries()) {
      rec.record('ours', answer.key, `${answer.label} (access log on)`, best(ours[i]!))
      rec.record('ceiling', answer.key, `${answer.label} (same status, headers and bytes)`, best(ceiling[i]!))
    }
  } finally {
    await Promise.all([server, ...ceilings].map((started) => started.stop()))
  }
}
