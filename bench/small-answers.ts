// Issue 18's rows: the small answers browsers and clients ask for most, from OURS with the access
// log on as deployed (CLUBS_LOG_LEVEL=info, to a file), each beside a bare Bun.serve returning the
// very same status, headers and bytes (gzip, 304, 404).
import { join } from 'node:path'
import { measure, settler, type Recorder } from './measure'
import { startAnswerCeiling, startOurs } from './servers'

interface Answer {
  readonly key: string
  readonly label: string
  readonly path: string
  readonly headers: Record<string, string>
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

export async function benchSmallAnswers(size: number, dataSet: string, tmp: string, rec: Recorder): Promise<void> {
  const server = await startOurs(dataSet, join(tmp, `small-${size}-ours.json`), 'info')
  const list = (await (await fetch(`${server.base}/api/clubs/`)).json()) as { code: string }[]
  const code = list[Math.floor(list.length / 2)]!.code
  const etag = (await fetch(`${server.base}/api/clubs/`, { headers: { 'Accept-Encoding': 'gzip' } })).headers.get(
    'etag',
  )!
  const answers: Answer[] = [
    {
      key: 'small-retrieve-gzip',
      label: 'one club, gzip',
      path: `/api/clubs/${code}/`,
      headers: { 'Accept-Encoding': 'gzip' },
    },
    { key: 'small-list-gzip', label: 'the list, gzip', path: '/api/clubs/', headers: { 'Accept-Encoding': 'gzip' } },
    {
      key: 'small-list-304',
      label: 'the list, 304',
      path: '/api/clubs/',
      headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': etag },
    },
    { key: 'small-404', label: 'an unknown club, 404', path: '/api/clubs/no-such-club/', headers: {} },
  ]
  const recorded = []
  for (const answer of answers) recorded.push(await record(server.base, answer))
  const settle = settler(`${server.base}/health`)
  for (const answer of answers)
    rec.record(
      'ours',
      answer.key,
      `${answer.label} (access log on)`,
      await measure(server.child.pid, () => ({ url: server.base + answer.path, headers: answer.headers }), settle),
    )
  await server.stop()

  for (const [i, answer] of answers.entries()) {
    const file = join(tmp, `small-${size}-${answer.key}.json`)
    await Bun.write(file, JSON.stringify(recorded[i]))
    const ceiling = await startAnswerCeiling(file)
    rec.record(
      'ceiling',
      answer.key,
      `${answer.label} (same status, headers and bytes)`,
      await measure(
        ceiling.child.pid,
        () => ({ url: `${ceiling.base}/`, headers: answer.headers }),
        settler(`${ceiling.base}/ready`),
      ),
    )
    await ceiling.stop()
  }
}
