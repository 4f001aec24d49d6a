// docs/reference.md §11 under load: 10% of the clubs have a change awaiting review. The public list is
// still one cached answer per data version (against its own Bun.serve ceiling), and a club
// under review is retrieved as fast as any other.
import { join } from 'node:path'
import { versionOf } from '../src/domain/snapshot-format'
import { generate } from './generate'
import { measure, settler, type LoadOf, type Recorder } from './measure'
import { startCeiling, startOurs } from './servers'

/** Every tenth club with a changed subtitle awaiting review; the public keeps its approved version. */
export async function writeReviewDataSet(size: number, file: string): Promise<string[]> {
  const snapshot = await generate(size)
  const underReview: string[] = []
  snapshot.clubs = snapshot.clubs.map((club, i) => {
    if (i % 10 !== 0) return club
    underReview.push(club.code)
    return {
      ...club,
      subtitle: `${club.subtitle} (edited)`,
      approved: false,
      approved_by: null,
      approved_on: null,
      approved_comment: '',
      approved_version: versionOf(club),
    }
  })
  await Bun.write(file, JSON.stringify(snapshot))
  return underReview
}

export async function benchUnderReview(size: number, tmp: string, rec: Recorder): Promise<void> {
  const dataSet = join(tmp, `review-${size}.json`)
  const underReview = await writeReviewDataSet(size, dataSet)
  const server = await startOurs(dataSet, join(tmp, `review-${size}-ours.json`))
  const listRes = await fetch(`${server.base}/api/clubs/`, { headers: { 'Accept-Encoding': 'identity' } })
  const listBody = new Uint8Array(await listRes.arrayBuffer())
  const list = JSON.parse(new TextDecoder().decode(listBody)) as { code: string; subtitle: string }[]
  const shown = list.filter((club) => underReview.includes(club.code))
  if (list.length !== size || shown.length !== underReview.length || shown.some((c) => c.subtitle.endsWith('(edited)')))
    throw new Error('review bench: the public list does not show the approved versions of the clubs under review')

  const settle = settler(`${server.base}/health`)
  const get =
    (path: string): LoadOf =>
    () => ({ url: server.base + path })
  const pid = server.child.pid
  const reviewed = underReview[Math.floor(underReview.length / 2)]!
  const plain = list.find((club) => !underReview.includes(club.code))!.code
  rec.record('ours', 'review-list', 'list, 10% under review', await measure(pid, get('/api/clubs/'), settle))
  rec.record(
    'ours',
    'review-retrieve',
    'retrieve a club under review',
    await measure(pid, get(`/api/clubs/${reviewed}/`), settle),
  )
  rec.record(
    'ours',
    'review-retrieve-other',
    'retrieve a club not under review',
    await measure(pid, get(`/api/clubs/${plain}/`), settle),
  )
  await server.stop()

  const listFile = join(tmp, `review-${size}-list.json`)
  await Bun.write(listFile, listBody)
  const ceiling = await startCeiling(listFile)
  rec.record(
    'ceiling',
    'review-list',
    'list, 10% under review (same bytes)',
    await measure(ceiling.child.pid, () => ({ url: `${ceiling.base}/` }), settler(`${ceiling.base}/`)),
  )
  await ceiling.stop()
}
